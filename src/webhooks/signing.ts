/**
 * Standard Webhooks signatures (docs/api.md section 6.3, "Signature verification"):
 * HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{raw body}` with the part of
 * the secret after `whsec_`, base64-decoded; sent as `v1,<base64>`. While a
 * rotated secret's grace period runs, both signatures are sent, space-separated.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";

const secretPrefix = "whsec_";

/** A new signing secret from the CSPRNG: `whsec_` + 24 random bytes in base64. */
export function generateSigningSecret(): string {
  return `${secretPrefix}${randomBytes(24).toString("base64")}`;
}

export function isSigningSecret(text: string): boolean {
  if (!text.startsWith(secretPrefix)) return false;
  const key = Buffer.from(text.slice(secretPrefix.length), "base64");
  return key.length >= 16 && key.toString("base64") === text.slice(secretPrefix.length);
}

/**
 * A keyed HMAC-SHA256 per secret, copied for each signature: every attempt signs,
 * an endpoint's secret seldom changes, and Bun's hasher copied from one already
 * keyed costs 0.65 µs a signature against 1.6 for a `createHmac` (docs/benchmarks.md,
 * webhook delivery).
 */
const keyed = new Map<string, Bun.CryptoHasher>();
const keysKept = 64;

function hmacOf(secret: string): Bun.CryptoHasher {
  let hmac = keyed.get(secret);
  if (hmac === undefined) {
    const key = Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, "base64");
    hmac = new Bun.CryptoHasher("sha256", key);
    // A rotation leaves old secrets behind: a bounded cache, emptied when full.
    if (keyed.size >= keysKept) keyed.clear();
    keyed.set(secret, hmac);
  }
  return hmac;
}

/** The body is signed as the bytes sent: a string is taken as UTF-8. */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string | Uint8Array): string {
  const digest = hmacOf(secret).copy().update(`${messageId}.${timestampSeconds}.`).update(body).digest("base64");
  return `v1,${digest}`;
}

/** The `webhook-signature` header for one or more secrets (current first). */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets.map((secret) => sign(secret, messageId, timestampSeconds, body)).join(" ");
}

export type Verification =
  | { ok: true }
  | {
      ok: false;
      reason: "missing_headers" | "bad_timestamp" | "bad_signature" | "timestamp_too_old" | "timestamp_too_new";
      skewSeconds?: number;
    };

/**
 * Checks a delivery as a receiver should (docs/api.md section 6.3, steps 1 to 5), saying why it
 * was rejected: a timestamp outside the tolerance (clock skew) is told apart from
 * a signature that does not match.
 */
export function verifyDelivery(
  secret: string,
  headers: { id: string | null; timestamp: string | null; signature: string | null },
  /** The raw body bytes as received (docs/api.md section 6.3, step 5); a string is taken as UTF-8. */
  body: string | Uint8Array,
  nowSeconds: number,
  toleranceSeconds = 300,
): Verification {
  if (headers.id === null || headers.timestamp === null || headers.signature === null) {
    return { ok: false, reason: "missing_headers" };
  }
  const timestamp = Number(headers.timestamp);
  if (!/^\d+$/.test(headers.timestamp) || !Number.isSafeInteger(timestamp))
    return { ok: false, reason: "bad_timestamp" };
  const skewSeconds = nowSeconds - timestamp;
  if (skewSeconds > toleranceSeconds) return { ok: false, reason: "timestamp_too_old", skewSeconds };
  if (skewSeconds < -toleranceSeconds) return { ok: false, reason: "timestamp_too_new", skewSeconds };
  const expected = Buffer.from(sign(secret, headers.id, timestamp, body).slice(3), "base64");
  for (const candidate of headers.signature.split(" ")) {
    const [version, value] = candidate.split(",", 2);
    if (version !== "v1" || value === undefined) continue;
    const given = Buffer.from(value, "base64");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: "bad_signature" };
}
