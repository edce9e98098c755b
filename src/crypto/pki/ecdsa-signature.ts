/**
 * Shape check of an ASN.1 ECDSA signature (`Ecdsa-Sig-Value ::= SEQUENCE {
 * r INTEGER, s INTEGER }`, RFC 3279 §2.2.3) before verification, so the
 * engine can answer as Vault's `verifyWithECDSA` does: a value that does not
 * parse is `supplied signature is invalid`, a value followed by more bytes is
 * `supplied signature contains extra data` (Go's `asn1.Unmarshal` `rest`).
 * The backends themselves verify strict DER and simply return false.
 *
 * Parsed through `asn1js` (no hand-written DER).
 *
 * @module
 */
import * as asn1js from 'asn1js';

/** Outcome of {@link checkEcdsaDerShape}. @internal */
export type EcdsaDerShape = 'ok' | 'invalid' | 'extra-data';

/**
 * Classify an ASN.1 ECDSA signature: `ok` (one SEQUENCE of two INTEGERs and
 * nothing after it), `invalid` (anything else that is not a full such value)
 * or `extra-data` (a well-formed value followed by trailing bytes).
 * @internal
 */
export function checkEcdsaDerShape(sig: Uint8Array): EcdsaDerShape {
  if (sig.length === 0) return 'invalid';
  let parsed: ReturnType<typeof asn1js.fromBER>;
  try {
    parsed = asn1js.fromBER(sig);
  } catch {
    return 'invalid'; // asn1js throws on some malformed values (e.g. a GeneralizedTime)
  }
  if (parsed.offset === -1 || parsed.result.error) return 'invalid';
  const seq = parsed.result;
  if (!(seq instanceof asn1js.Sequence)) return 'invalid';
  const items = seq.valueBlock.value;
  if (items.length !== 2 || !items.every((i) => i instanceof asn1js.Integer)) return 'invalid';
  return parsed.offset < sig.length ? 'extra-data' : 'ok';
}
