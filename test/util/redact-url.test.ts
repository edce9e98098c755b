/**
 * One rule for showing a URL in an error or log line (adapters and CLI): no
 * password, query (ioredis and pg read `?password=`) or fragment; a value that
 * is no URL is shown up to its first `@`, `?` or `#`.
 */
import { describe, expect, it } from 'vitest';
import { redactedValue, redactUrl } from '../../src/util/redact-url.js';

describe('redactUrl', () => {
  it.each([
    ['redis://:hunter2@cache:6379/0', 'redis://cache:6379/0'],
    ['redis://127.0.0.1:6379/0?password=hunter2', 'redis://127.0.0.1:6379/0'],
    ['postgres://app:hunter2@db:5432/app?sslkey=/k#hunter2', 'postgres://app@db:5432/app'],
    ['not a url hunter2', '<unparsable url>'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});

describe('redactedValue', () => {
  it.each([
    ['POSTGRES://admin:hunter2@db.example/transit', 'postgres://admin@db.example/transit'],
    ['postgres:/admin:hunter2@db.example/transit', 'postgres:…'],
    ['admin:hunter2@db.example', 'admin:…'],
    ['app@db.example', 'app…'],
    ['memry', 'memry'],
  ])('%s → %s', (value, shown) => {
    expect(redactedValue(value)).toBe(shown);
  });
});
