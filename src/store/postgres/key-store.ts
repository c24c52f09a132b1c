/**
 * API keys on PostgreSQL, as ../sqlite/keys.ts: a key is shown once, the store keeps only
 * its SHA-256 and a short prefix; every request looks the key up by that hash, so a
 * key created or revoked by any process counts on the next request everywhere.
 */
import { sandboxRateLimitPerMinute, writeScope } from "../../lib/api-keys.ts";
import { generateApiKey, hashApiKey } from "../../lib/crypto.ts";
import { randomUuid } from "../../lib/ids.ts";
import {
  type ApiKeyListing,
  type CreatedApiKey,
  type KeyForRequest,
  type KeyStore,
  type NewApiKey,
  UnknownOrganizationError,
} from "../contract/keys.ts";
import type { Sql } from "./connection.ts";
import { firstOf, rowsOf } from "./rows.ts";

/** As ../sqlite/keys.ts: the prefix shown to tell keys apart. */
const keyPrefixLength = 11;

const splitScopes = (scopes: string): string[] => scopes.split(" ").filter((scope) => scope.length > 0);

export function postgresKeyStore(sql: Sql): KeyStore {
  /** Per process, as on SQLite: last_used_at is written at most once a minute per key by each process. */
  const writtenMinute = new Map<string, number>();

  /** One statement: the organisation is looked up and the key inserted together (no row: unknown organisation). */
  async function create(input: NewApiKey, now: number): Promise<CreatedApiKey> {
    const key = input.key ?? generateApiKey();
    const kind = input.kind ?? "standard";
    const rateLimitPerMinute = input.rateLimitPerMinute ?? (kind === "sandbox" ? sandboxRateLimitPerMinute : null);
    const uuid = randomUuid();
    const prefix = key.slice(0, keyPrefixLength);
    // The sandbox key is read-only (docs/api.md section 5.6), whatever it was asked with.
    const scopes = input.scopes.filter((scope) => kind !== "sandbox" || scope !== writeScope).join(" ");
    const [org] = await rowsOf<{ id: number }>(sql`
      WITH org AS (SELECT id FROM organizations WHERE key = ${input.orgKey}),
           added AS (
             INSERT INTO api_keys (uuid, org_id, name, prefix, hash, scopes, kind, rate_limit_per_minute, created_at, expires_at)
             SELECT ${uuid}, id, ${input.name}, ${prefix}, ${hashApiKey(key)}, ${scopes}, ${kind},
                    ${rateLimitPerMinute}::int, ${now}, ${input.expiresAt}::bigint
               FROM org
             ON CONFLICT (hash) DO NOTHING)
      SELECT id FROM org`);
    if (org === undefined) throw new UnknownOrganizationError(input.orgKey);
    return {
      id: uuid,
      key,
      prefix,
      name: input.name,
      orgKey: input.orgKey,
      scopes: input.scopes,
      createdAt: now,
      expiresAt: input.expiresAt,
      rateLimitPerMinute,
    };
  }

  async function list(orgKey?: string): Promise<ApiKeyListing[]> {
    const org = orgKey ?? null;
    const rows = await rowsOf<Omit<ApiKeyListing, "scopes"> & { scopes: string }>(sql`
      SELECT k.uuid AS id, k.prefix, k.name, o.key AS "orgKey", k.scopes, k.kind,
             k.rate_limit_per_minute AS "rateLimitPerMinute", k.created_at::float8 AS "createdAt",
             k.expires_at::float8 AS "expiresAt", k.revoked_at::float8 AS "revokedAt",
             k.last_used_at::float8 AS "lastUsedAt"
        FROM api_keys k JOIN organizations o ON o.id = k.org_id
       WHERE ${org}::text IS NULL OR o.key = ${org}::text
       ORDER BY k.created_at DESC, k.id DESC`);
    return rows.map((row) => ({ ...row, scopes: splitScopes(row.scopes) }));
  }

  /** One conditional UPDATE: a key two processes revoke at once is counted by one of them. */
  async function revoke(idOrPrefix: string, now: number): Promise<number> {
    const revoked = await rowsOf(sql`
      UPDATE api_keys SET revoked_at = ${now}
       WHERE revoked_at IS NULL AND (uuid = ${idOrPrefix} OR prefix = ${idOrPrefix}) RETURNING id`);
    return revoked.length;
  }

  async function lookup(key: string): Promise<KeyForRequest | null> {
    const row = await firstOf<Omit<KeyForRequest, "scopes"> & { scopes: string }>(sql`
      SELECT k.uuid AS id, k.name, k.scopes, k.kind, k.rate_limit_per_minute AS "rateLimitPerMinute",
             k.created_at::float8 AS "createdAt", k.expires_at::float8 AS "expiresAt",
             k.revoked_at::float8 AS "revokedAt", k.org_id AS "orgId", o.name AS "orgName"
        FROM api_keys k JOIN organizations o ON o.id = k.org_id
       WHERE k.hash = ${hashApiKey(key)}`);
    return row === null ? null : { ...row, scopes: splitScopes(row.scopes) };
  }

  async function recordUse(keyId: string, now: number): Promise<void> {
    const minute = Math.floor(now / 60_000);
    if (writtenMinute.get(keyId) === minute) return;
    writtenMinute.set(keyId, minute);
    try {
      await sql`UPDATE api_keys SET last_used_at = ${now} WHERE uuid = ${keyId}`;
    } catch {
      // Not written this minute: the next request tries again (as on SQLite).
      writtenMinute.delete(keyId);
    }
  }

  return { create, list, revoke, lookup, recordUse };
}
