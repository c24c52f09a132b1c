/**
 * API keys (docs/api.md section 5). A key is shown once when created; the store keeps
 * only its SHA-256 (keys are 160 random bits, so a fast hash is enough) and a
 * short prefix to tell keys apart.
 */
import { desc, eq } from "drizzle-orm";
import { sandboxRateLimitPerMinute, writeScope } from "../../lib/api-keys.ts";
import { generateApiKey, hashApiKey } from "../../lib/crypto.ts";
import { randomUuid } from "../../lib/ids.ts";
import { type ApiKeyListing, type KeyForRequest, type KeyStore, UnknownOrganizationError } from "../contract/keys.ts";
import type { SqliteConnection } from "./connection.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { apiKeys, organizations } from "./schema.ts";

const keyPrefixLength = 11;

function splitScopes(scopes: string): string[] {
  return scopes.split(" ").filter((scope) => scope.length > 0);
}

export function sqliteKeyStore({ sqlite, db }: SqliteConnection): KeyStore {
  // Built per call: a drizzle builder's where() changes the builder itself.
  const listing = () =>
    db
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
  function list(orgKey?: string): ApiKeyListing[] {
    const rows = orgKey === undefined ? listing().all() : listing().where(eq(organizations.key, orgKey)).all();
    return rows.map((row) => ({ ...row, scopes: splitScopes(row.scopes) }));
  }
  // The row as stored: scopes are one space-separated string.
  const byHash = sqlite.prepare<Omit<KeyForRequest, "scopes"> & { scopes: string }, [string]>(
    // Scalar subquery rather than a join: SQLite answers this single-row lookup
    // several times faster that way, and it runs on every request.
    `SELECT k.uuid AS id, k.name AS name, k.scopes AS scopes, k.kind AS kind,
            k.rate_limit_per_minute AS rateLimitPerMinute, k.created_at AS createdAt,
            k.expires_at AS expiresAt, k.revoked_at AS revokedAt, k.org_id AS orgId,
            (SELECT o.name FROM organizations o WHERE o.id = k.org_id) AS orgName
       FROM api_keys k
      WHERE k.hash = ?`,
  );
  const touch = sqlite.prepare<never, [number, string]>("UPDATE api_keys SET last_used_at = ?1 WHERE uuid = ?2");
  const writtenMinute = new Map<string, number>();

  return resolvedOperations<KeyStore>({
    create(input, now) {
      const org = db
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
        // The sandbox key is read-only (docs/api.md section 5.6), whatever it was asked with.
        scopes: input.scopes.filter((scope) => kind !== "sandbox" || scope !== writeScope).join(" "),
        kind,
        rateLimitPerMinute,
        createdAt: now,
        expiresAt: input.expiresAt,
      };
      db.insert(apiKeys).values(row).onConflictDoNothing({ target: apiKeys.hash }).run();
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
    },
    list,
    revoke(idOrPrefix, now) {
      const keys = list().filter(
        (key) => key.revokedAt === null && (key.id === idOrPrefix || key.prefix === idOrPrefix),
      );
      for (const key of keys) {
        db.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.uuid, key.id)).run();
      }
      return keys.length;
    },
    lookup(key) {
      const row = byHash.get(hashApiKey(key));
      return row === null ? null : { ...row, scopes: splitScopes(row.scopes) };
    },
    recordUse(keyId, now) {
      const minute = Math.floor(now / 60_000);
      if (writtenMinute.get(keyId) === minute) return;
      writtenMinute.set(keyId, minute);
      try {
        touch.run(now, keyId);
      } catch {
        writtenMinute.delete(keyId);
      }
    },
  });
}
