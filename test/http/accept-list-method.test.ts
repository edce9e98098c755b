/**
 * `acceptListMethod(server)` (transitkit/http/node) on servers an application
 * creates itself: an Express app's `app.listen()` server and a
 * `https.createServer()` with an openssl-made certificate. node-vault (plain
 * HTTP) and hvac (TLS, verifying the CA) list keys with `LIST`; over TLS the
 * app still sees an encrypted socket (`req.secure`); a second call is harmless,
 * and without the call the same servers answer `LIST` with Node's bare 400.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import nodeVault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptListMethod } from '../../adapters/http/node-server.js';
import { NO_HVAC_REASON, pythonWithHvac, SKIP_HVAC } from '../helpers/tools.js';
import { vaultHandler } from './helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'transitkit-accept-list-'));
const keyFile = path.join(dir, 'key.pem');
const certFile = path.join(dir, 'cert.pem');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function app() {
  const { vault, rootToken } = await vaultHandler();
  const a = express();
  a.get('/secure', (req, res) => {
    res.json({ secure: req.secure });
  });
  a.use(vault.node);
  return { app: a, rootToken };
}

const listening = (server: Server) =>
  new Promise<number>((resolve) =>
    server.once('listening', () => resolve((server.address() as AddressInfo).port)),
  );

/** An https request with any method; resolves with the status and body. */
function tlsCall(port: number, method: string, urlPath: string, token: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        ca: readFileSync(certFile),
        headers: { 'X-Vault-Token': token },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(() => {
  execFileSync('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
    ...['-keyout', keyFile, '-out', certFile, '-subj', '/CN=127.0.0.1', '-days', '2'],
    ...['-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE'],
  ]);
});

describe('acceptListMethod on app.listen()', () => {
  it('node-vault lists through it; a second call changes nothing', async () => {
    const { app: a, rootToken } = await app();
    const server = a.listen(0, '127.0.0.1');
    acceptListMethod(server);
    acceptListMethod(server);
    const port = await listening(server);
    try {
      const client = nodeVault({ endpoint: `http://127.0.0.1:${port}`, token: rootToken });
      await client.write('transit/keys/listed', {});
      expect((await client.transitListKeys()).data.keys).toEqual(['listed']);
      expect((await client.list('transit/keys')).data.keys).toEqual(['listed']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('acceptListMethod on https.createServer()', () => {
  it('without it, LIST over TLS is a bare 400', async () => {
    const { app: a, rootToken } = await app();
    const server = createHttpsServer(
      { key: readFileSync(keyFile), cert: readFileSync(certFile) },
      a,
    ).listen(0, '127.0.0.1');
    const port = await listening(server);
    try {
      expect((await tlsCall(port, 'LIST', '/v1/transit/keys', rootToken)).status).toBe(400);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('with it, LIST works over TLS and the app still sees a secure request', async () => {
    const { app: a, rootToken } = await app();
    const server = createHttpsServer(
      { key: readFileSync(keyFile), cert: readFileSync(certFile) },
      a,
    );
    acceptListMethod(server);
    server.listen(0, '127.0.0.1');
    const port = await listening(server);
    try {
      expect((await tlsCall(port, 'POST', '/v1/transit/keys/tls-key', rootToken)).status).toBe(200);
      const listed = await tlsCall(port, 'LIST', '/v1/transit/keys', rootToken);
      expect(listed.status).toBe(200);
      expect(JSON.parse(listed.body).data.keys).toEqual(['tls-key']);
      expect(JSON.parse((await tlsCall(port, 'GET', '/secure', rootToken)).body)).toEqual({
        secure: true,
      });
      if (!SKIP_HVAC) {
        const script = [
          'import sys, hvac',
          'c = hvac.Client(url=sys.argv[1], token=sys.argv[2], verify=sys.argv[3])',
          'print(",".join(c.secrets.transit.list_keys()["data"]["keys"]))',
        ].join('\n');
        // Async: the server runs in this process.
        const { stdout } = await promisify(execFile)(
          pythonWithHvac(),
          ['-c', script, `https://127.0.0.1:${port}`, rootToken, certFile],
          { encoding: 'utf8', timeout: 20_000 },
        );
        expect(stdout.trim()).toBe('tls-key');
      } else {
        console.warn(`hvac part skipped: ${NO_HVAC_REASON}`);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
