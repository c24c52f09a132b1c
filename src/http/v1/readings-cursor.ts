/**
 * Cursors of GET /devices/{id}/readings (docs/api.md section 4.6, rule 2). A cursor pins
 * the window the first page resolved (so "now" does not move under a traversal),
 * says where the previous page stopped, and carries a fingerprint of the request's
 * other parameters. It is signed, so a tampered cursor is refused, not obeyed.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export interface CursorState {
  since: number;
  until: number;
  lastTs: number;
  lastRegisterId: number;
}

const version = 1;
const fingerprintBytes = 8;
const payloadBytes = 1 + fingerprintBytes + 8 + 8 + 8 + 4;
const signatureBytes = 16;

export function parameterFingerprint(parameters: Record<string, string | number | undefined>): Buffer {
  const canonical = Object.keys(parameters)
    .sort()
    .map((name) => `${name}=${parameters[name] ?? ""}`)
    .join("&");
  return createHash("sha256").update(canonical).digest().subarray(0, fingerprintBytes);
}

export function encodeCursor(secret: Buffer, fingerprint: Buffer, state: CursorState): string {
  const payload = Buffer.alloc(payloadBytes);
  payload.writeUInt8(version, 0);
  fingerprint.copy(payload, 1);
  payload.writeDoubleBE(state.since, 9);
  payload.writeDoubleBE(state.until, 17);
  payload.writeDoubleBE(state.lastTs, 25);
  payload.writeUInt32BE(state.lastRegisterId, 33);
  return Buffer.concat([payload, sign(secret, payload)]).toString("base64url");
}

export type CursorReading = { ok: true; state: CursorState } | { ok: false; reason: "malformed" | "other_parameters" };

export function decodeCursor(secret: Buffer, fingerprint: Buffer, cursor: string): CursorReading {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return { ok: false, reason: "malformed" };
  const bytes = Buffer.from(cursor, "base64url");
  // Only the one spelling this service issues: no padding variants or unused bits.
  if (bytes.length !== payloadBytes + signatureBytes || bytes.toString("base64url") !== cursor) {
    return { ok: false, reason: "malformed" };
  }
  const payload = bytes.subarray(0, payloadBytes);
  if (!timingSafeEqual(bytes.subarray(payloadBytes), sign(secret, payload))) return { ok: false, reason: "malformed" };
  if (payload.readUInt8(0) !== version) return { ok: false, reason: "malformed" };
  if (!payload.subarray(1, 1 + fingerprintBytes).equals(fingerprint)) return { ok: false, reason: "other_parameters" };
  return {
    ok: true,
    state: {
      since: payload.readDoubleBE(9),
      until: payload.readDoubleBE(17),
      lastTs: payload.readDoubleBE(25),
      lastRegisterId: payload.readUInt32BE(33),
    },
  };
}

function sign(secret: Buffer, payload: Buffer): Buffer {
  return createHmac("sha256", secret).update(payload).digest().subarray(0, signatureBytes);
}
