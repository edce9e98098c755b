/**
 * A password with a reserved character whose part before it is all digits
 * (`1234#abc`, `12/hunter2`, `6379?pw`) is read by WHATWG URL as the port of
 * a host named after the user: such a URL shows only its scheme, so no part
 * of the password appears as a port.
 */
import { expect, it } from 'vitest';
import { redactedValue, redactUrl } from '../../src/util/redact-url.js';

const cases: Array<[string, string]> = [
  ['postgres://app:12/hunter2@db/app', '12'], // the commit's own example
  ['redis://user:1234#abc@host:6379/0', '1234'],
  ['redis://u:6379?pw@host:6379', '6379?'],
];

it.each(cases)('redactUrl(%s) shows no part of the password', (url, secret) => {
  const shown = redactUrl(url);
  // The text between the user and the last '@' is the password: none of it appears.
  expect(shown).not.toContain(`:${secret.replace('?', '')}`);
  expect(redactedValue(url)).not.toContain(`:${secret.replace('?', '')}`);
});
