/**
 * URLs whose password the WHATWG parser misreads are not shown either:
 * RedisStorage.connect with a URL ioredis cannot read (an unescaped `#`, `/`
 * or `?` in the password) is an `invalid_request` without the URL's password
 * (ioredis's own TypeError quotes the whole URL); a password of digits and
 * `/` that parses as host, port and path is not shown as the path (the
 * PostgreSQL connect error, the CLI's --addr usage message).
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseStreamArgs } from '../../adapters/cli/stream-args.js';
import { RedisStorage } from '../../adapters/redis/index.js';
import { redactedValue, redactUrl } from '../../src/util/redact-url.js';

describe('URL redaction misses', () => {
  it.each([
    ['redis://:hunter2#x@127.0.0.1:6379/0'],
    ['redis://default:hun/ter2-hunter2@127.0.0.1:6379/0'],
  ])('RedisStorage.connect(%s) fails with a TransitError that holds no password', async (url) => {
    const e = await RedisStorage.connect(url).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(inspect(e)).not.toContain('hunter2');
    expect(JSON.stringify(e)).not.toContain('hunter2');
    expect((e as { code?: string }).code).toBe('invalid_request');
  });

  it.each([
    ['postgres://app:12/hunter2@db.example:5432/app'],
    ['https://ops:8200/hunter2@vault.example:8200'],
  ])('redactUrl / redactedValue(%s) hold no password', (url) => {
    expect(redactUrl(url)).not.toContain('hunter2');
    expect(redactedValue(url)).not.toContain('hunter2');
  });

  it('the --addr usage message holds no password', () => {
    let message = '';
    try {
      parseStreamArgs('encrypt', [
        '--key',
        'k',
        '--addr',
        'https://ops:8200/hunter2@vault.example:8200',
      ]);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/--addr/);
    expect(message).not.toContain('hunter2');
  });
});
