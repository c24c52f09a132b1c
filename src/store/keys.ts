/**
 * API keys (spec section 5). A key is shown once when created; the store keeps
 * only its SHA-256 (keys are 160 random bits, so a fast hash is enough) and a
 * short prefix to tell keys apart.
 */
import { createHash, randomBytes } from "node:crypto";
import { desc, eq } from "drizzle-orm";
import { isoOrNull } from "../lib/clock.ts";
import { randomUuid } from "../lib/ids.ts";
import type { Store } from "./open.ts";
import { type ApiKeyKind, apiKeys, organizations } from "./schema.ts";

export const apiScopes = ["devices:read", "registers:read", "alerts:read"] as const;
export type ApiScope = (typeof apiScopes)[number];

export const sandboxRateLimitPerMinute = 60;
const keyPrefixLength = 11;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function generateApiKey(): string {
  return `fh_${randomBytes(20).toString("hex")}`;
}

export interface NewApiKey {
  orgKey: string;
  name: string;
  scopes: ApiScope[];
  expiresAt: number | null;
  /** Omitted: the server default (60 per client address for a sandbox key). */
  rateLimitPerMinute?: number;
  kind?: ApiKeyKind;
  /** A fixed key value (the demo's sandbox key); otherwise one is generated. */
  key?: string;
}

export interface CreatedApiKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
  orgKey: string;
  scopes: ApiScope[];
  createdAt: number;
  expiresAt: number | null;
  rateLimitPerMinute: number | null;
}

export class UnknownOrganizationError extends Error {
  constructor(readonly orgKey: string) {
    super(`no organisation with key "${orgKey}"`);
  }
}

export function createApiKey(store: Store, input: NewApiKey, now: number): CreatedApiKey {
  const org = store.db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.key, input.orgKey))
    .get();
  if (org === undefined) throw new UnknownOrganizationError(input.orgKey);
  const key = input.key ?? generateApiKey();
  const kind = input.kind ?? "standard";
  const rateLimitPerMinute = input.rateLimitPerMinute ?? (kind === "sandbox" ? sandboxRateLimitPerMinute : null);
  const row = {
    uuid: randomUuid(),
    orgId: org.id,
    name: input.name,
    prefix: key.slice(0, keyPrefixLength),
    hash: hashApiKey(key),
    scopes: input.scopes.join(" "),
    kind,
    rateLimitPerMinute,
    createdAt: now,
    expiresAt: input.expiresAt,
  };
  store.db.insert(apiKeys).values(row).onConflictDoNothing({ target: apiKeys.hash }).run();
  return {
    id: row.uuid,
    key,
    prefix: row.prefix,
    name: row.name,
    orgKey: input.orgKey,
    scopes: input.scopes,
    createdAt: now,
    expiresAt: input.expiresAt,
    rateLimitPerMinute,
  };
}

export interface ApiKeyListing {
  id: string;
  prefix: string;
  name: string;
  orgKey: string;
  scopes: string[];
  kind: ApiKeyKind;
  rateLimitPerMinute: number | null;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

export function listApiKeys(store: Store, orgKey?: string): ApiKeyListing[] {
  const query = store.db
    .select({
      id: apiKeys.uuid,
      prefix: apiKeys.prefix,
      name: apiKeys.name,
      orgKey: organizations.key,
      scopes: apiKeys.scopes,
      kind: apiKeys.kind,
      rateLimitPerMinute: apiKeys.rateLimitPerMinute,
      createdAt: apiKeys.createdAt,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.orgId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  const rows = orgKey === undefined ? query.all() : query.where(eq(organizations.key, orgKey)).all();
  return rows.map((row) => ({ ...row, scopes: splitScopes(row.scopes) }));
}

export type ApiKeyStatus = "active" | "revoked" | "expired";

/** A key's state at `now`, as the API gate judges it (revocation before expiry). */
export function apiKeyStatus(key: { revokedAt: number | null; expiresAt: number | null }, now: number): ApiKeyStatus {
  if (key.revokedAt !== null && key.revokedAt <= now) return "revoked";
  if (key.expiresAt !== null && key.expiresAt <= now) return "expired";
  return "active";
}

/** The JSON shape of a listed key, shared by `fieldhub keys list --json` and the admin API. */
export function presentApiKey(key: ApiKeyListing) {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    organization: key.orgKey,
    scopes: key.scopes,
    kind: key.kind,
    rate_limit_per_minute: key.rateLimitPerMinute,
    created_at: isoOrNull(key.createdAt),
    expires_at: isoOrNull(key.expiresAt),
    revoked_at: isoOrNull(key.revokedAt),
    last_used_at: isoOrNull(key.lastUsedAt),
  };
}

/** A key just created, with the key itself (shown this once): the fields the CLI and the admin API both give. */
export function presentCreatedApiKey(created: CreatedApiKey) {
  return {
    key: created.key,
    id: created.id,
    prefix: created.prefix,
    name: created.name,
    organization: created.orgKey,
    scopes: created.scopes,
    created_at: isoOrNull(created.createdAt),
    expires_at: isoOrNull(created.expiresAt),
  };
}

/** Revokes by key id or by prefix; returns how many keys were revoked now. */
export function revokeApiKey(store: Store, idOrPrefix: string, now: number): number {
  const keys = listApiKeys(store).filter(
    (key) => key.revokedAt === null && (key.id === idOrPrefix || key.prefix === idOrPrefix),
  );
  for (const key of keys) {
    store.db.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.uuid, key.id)).run();
  }
  return keys.length;
}

export interface KeyForRequest {
  id: string;
  name: string;
  scopes: string[];
  kind: ApiKeyKind;
  rateLimitPerMinute: number | null;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  orgId: number;
  orgName: string;
}

/**
 * The per-request key lookup: one prepared statement by hash, read from the store
 * every time so a key created or revoked from the CLI (another process) counts on
 * the very next request.
 */
export function keyLookup(store: Store): (key: string) => KeyForRequest | null {
  // The row as stored: scopes are one space-separated string.
  const statement = store.sqlite.prepare<Omit<KeyForRequest, "scopes"> & { scopes: string }, [string]>(
    // Scalar subquery rather than a join: SQLite answers this single-row lookup
    // several times faster that way, and it runs on every request.
    `SELECT k.uuid AS id, k.name AS name, k.scopes AS scopes, k.kind AS kind,
            k.rate_limit_per_minute AS rateLimitPerMinute, k.created_at AS createdAt,
            k.expires_at AS expiresAt, k.revoked_at AS revokedAt, k.org_id AS orgId,
            (SELECT o.name FROM organizations o WHERE o.id = k.org_id) AS orgName
       FROM api_keys k
      WHERE k.hash = ?`,
  );
  return (key) => {
    const row = statement.get(hashApiKey(key));
    return row === null ? null : { ...row, scopes: splitScopes(row.scopes) };
  };
}

/**
 * Records that a key was used. The API path must not write on every request, so
 * the store is told at most once a minute per key: `last_used_at` is exact to the
 * minute. A store busy with another process's write is skipped (the next minute
 * writes it).
 */
export function keyUseRecorder(store: Store): (keyId: string, now: number) => void {
  const update = store.sqlite.prepare<never, [number, string]>("UPDATE api_keys SET last_used_at = ?1 WHERE uuid = ?2");
  const writtenMinute = new Map<string, number>();
  return (keyId, now) => {
    const minute = Math.floor(now / 60_000);
    if (writtenMinute.get(keyId) === minute) return;
    writtenMinute.set(keyId, minute);
    try {
      update.run(now, keyId);
    } catch {
      writtenMinute.delete(keyId);
    }
  };
}

function splitScopes(scopes: string): string[] {
  return scopes.split(" ").filter((scope) => scope.length > 0);
}
