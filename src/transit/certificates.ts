/**
 * Certificate signing requests and certificate chains of signing keys
 * (Vault ≥ 1.15 / OpenBao `path_certificates.go`).
 *
 * Routes: `POST /transit/keys/:name/csr`, `POST /transit/keys/:name/set-certificate`.
 *
 * Both need a key type that signs, refuse derived keys (no single key pair to
 * certify) and soft-deleted keys, and take `version` (a number or `latest`,
 * default latest). The CSR is built and signed by `../crypto/pki/csr.ts`; the
 * chain is parsed and its leaf checked against the version's public key by
 * `../crypto/pki/chain.ts`, then stored as DER on the version (overwriting any
 * earlier chain); read key and the `certificate-chain` export show it.
 * @module
 */
import { checkLeafMatches, parseCertificateChain } from '../crypto/pki/chain.js';
import { signCsr as buildCsr } from '../crypto/pki/csr.js';
import { encodeSpki } from '../crypto/pki/keys.js';
import { invalidRequest } from '../errors.js';
import { type AsymmetricFamily, familyOf } from '../keys/asymmetric/family.js';
import { requireMaterial } from '../keys/asymmetric/material.js';
import { checkKeyName } from '../keys/names.js';
import { assertNotSoftDeleted, type KeyPolicy, oldestVersion, typeInfo } from '../keys/policy.js';
import type { LoadedKey } from '../keys/policy-store.js';
import { optString } from '../request.js';
import { SET_CERTIFICATE_FIELDS, SIGN_CSR_FIELDS } from './certificate-fields.js';

// The endpoint's schema lives apart (no PKI for the route table) and is exported here too.
export { SET_CERTIFICATE_FIELDS, SIGN_CSR_FIELDS };

import { againIfChanged, type Engine, requireKey } from './engine.js';
import type {
  SetCertificateRequest,
  SetCertificateResult,
  SignCsrRequest,
  SignCsrResult,
} from './types.js';

/** The requested version: a number, `latest`, or omitted (latest). Vault's "no such key version" otherwise. */
function versionOf(p: KeyPolicy, value: unknown, prefix: string): number {
  let v: number;
  if (value === undefined || value === null || value === '' || value === 'latest') {
    v = p.latest_version;
  } else if (typeof value === 'number' && Number.isSafeInteger(value)) v = value;
  else if (typeof value === 'string' && /^[0-9]{1,15}$/.test(value)) v = Number(value);
  else throw invalidRequest("'version' must be an integer or 'latest'");
  if (v < Math.max(oldestVersion(p), p.min_decryption_version) || v > p.latest_version) {
    throw invalidRequest(`${prefix}: no such key version`);
  }
  return v;
}

/** Load a key for csr / set-certificate and apply Vault's checks. */
async function certifiableKey(
  e: Engine,
  name: string,
): Promise<{ key: LoadedKey; family: AsymmetricFamily }> {
  checkKeyName(name);
  const key = await requireKey(e, name, `key with provided name '${name}' not found`);
  const p = key.doc.policy;
  assertNotSoftDeleted(p);
  const info = typeInfo(p);
  if (!info.supportsSigning) throw invalidRequest(`key type '${p.type}' does not support signing`);
  if (p.derived) throw invalidRequest('operation not supported for keys with derivation enabled');
  return { key, family: familyOf(info) };
}

/**
 * `POST /transit/keys/:name/csr`.
 * @throws TransitError `invalid_request` (missing, non-signing, derived or
 * soft-deleted key; no such version; public-only version; bad template).
 * @internal
 */
export function signCsr(
  e: Engine,
  name: string,
  request: SignCsrRequest = {},
): Promise<SignCsrResult> {
  return againIfChanged(signCsrOnce(e, name, request), () => signCsrOnce(e, name, request));
}

/** {@link signCsr}, once. */
async function signCsrOnce(
  e: Engine,
  name: string,
  request: SignCsrRequest = {},
): Promise<SignCsrResult> {
  const r = SIGN_CSR_FIELDS.request(request);
  const template = optString(r.csr, 'csr');
  const { key, family } = await certifiableKey(e, name);
  const p = key.doc.policy;
  const ver = versionOf(p, r.version, 'could not create the csr');
  const version = await e.store.version(key, ver);
  const priv = family.privateKey(requireMaterial(version.asymmetric));
  if (!priv) {
    throw invalidRequest(
      'could not create the csr: private key not imported for key version selected',
    );
  }
  const csr = await buildCsr({ key: priv, backend: e.backend, templatePem: template });
  return { name: p.name, type: p.type, csr };
}

/**
 * `POST /transit/keys/:name/set-certificate`.
 * @throws TransitError `invalid_request` (missing, non-signing, derived or
 * soft-deleted key; no such version; a chain that does not parse or whose leaf
 * is not the version's key).
 * @internal
 */
export async function setCertificate(
  e: Engine,
  name: string,
  request: SetCertificateRequest,
): Promise<SetCertificateResult> {
  const r = SET_CERTIFICATE_FIELDS.request(request);
  const pem = r.certificate_chain;
  if (pem === undefined || pem === null) throw invalidRequest("missing 'certificate_chain'");
  if (typeof pem !== 'string') throw invalidRequest("'certificate_chain' must be a PEM string");
  const { key, family } = await certifiableKey(e, name);
  const ver = versionOf(key.doc.policy, r.version, 'failed to persist certificate chain');
  const chain = parseCertificateChain(pem);
  const stored = await e.store.mutate(name, async (current) => {
    const p = current.doc.policy;
    assertNotSoftDeleted(p);
    versionOf(p, ver, 'failed to persist certificate chain');
    const version = await e.store.version(current, ver);
    const spki = encodeSpki(family.publicKey(requireMaterial(version.asymmetric)));
    checkLeafMatches(chain, spki);
    return {
      policy: p,
      add: new Map([[ver, { ...version, certificate_chain: chain }]]),
      base: new Map([[ver, version]]),
    };
  });
  if (!stored) throw invalidRequest(`key with provided name '${name}' not found`);
  return { name: stored.doc.policy.name, type: stored.doc.policy.type, certificate_chain: pem };
}
