import { createHash, randomBytes } from "node:crypto";

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

/** docs/api.md section 2, Problem.request_id: `req_<hex>`. */
export function newRequestId(): string {
  return `req_${randomHex(12)}`;
}

/** Random (version 4) UUID for rows that have no natural key. */
export function randomUuid(): string {
  return crypto.randomUUID();
}

// Namespace of fieldhub's name-based ids; fixed forever, or every id would change.
const fieldhubNamespace = "5b0c6f7e-2a61-4c1e-9a55-0d3f4e1b7c20";

/**
 * Name-based (version 5) UUID: the same natural key always gives the same id,
 * which keeps API ids stable across restarts and config edits.
 */
export function stableUuid(...nameParts: string[]): string {
  const namespaceBytes = Buffer.from(fieldhubNamespace.replaceAll("-", ""), "hex");
  const hash = createHash("sha1").update(namespaceBytes).update(nameParts.join("\u001f")).digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
