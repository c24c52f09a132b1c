/**
 * Edge tokens (docs/fleet.md, "Sites"): a site box presents one to a central to
 * forward what it polls. A token is bound to one organisation and shown once when
 * created; the store keeps only its SHA-256 (256 random bits, so a fast hash is
 * enough) and a short prefix, like API keys.
 */
import { and, desc, eq, isNull, or } from "drizzle-orm";
import { generateEdgeToken, sha256Hex } from "../../lib/crypto.ts";
import { randomUuid } from "../../lib/ids.ts";
import { type EdgeForRequest, EdgeNameTakenError, type EdgeStore, edgeTokenPrefixLength } from "../contract/edges.ts";
import { UnknownOrganizationError } from "../contract/keys.ts";
import { minuteThrottle } from "../shared/minute-throttle.ts";
import type { SqliteConnection } from "./connection.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { edgeTokens, organizations } from "./schema.ts";

export function sqliteEdgeStore({ sqlite, db }: SqliteConnection): EdgeStore {
  const byHash = sqlite.prepare<EdgeForRequest, [string]>(
    `SELECT e.uuid AS id, e.name AS name, e.org_id AS orgId, e.revoked_at AS revokedAt,
            (SELECT o.key FROM organizations o WHERE o.id = e.org_id) AS orgKey
       FROM edge_tokens e
      WHERE e.hash = ?`,
  );
  const touch = sqlite.prepare<unknown, [number, string, number]>(
    "UPDATE edge_tokens SET last_used_at = ? WHERE uuid = ? AND (last_used_at IS NULL OR last_used_at < ?)",
  );
  const throttle = minuteThrottle();
  const listing = () =>
    db
      .select({
        id: edgeTokens.uuid,
        prefix: edgeTokens.prefix,
        name: edgeTokens.name,
        orgKey: organizations.key,
        createdAt: edgeTokens.createdAt,
        revokedAt: edgeTokens.revokedAt,
        lastUsedAt: edgeTokens.lastUsedAt,
      })
      .from(edgeTokens)
      .innerJoin(organizations, eq(organizations.id, edgeTokens.orgId))
      .orderBy(desc(edgeTokens.createdAt), desc(edgeTokens.id));

  return resolvedOperations<EdgeStore>({
    create(orgKey, name, now) {
      // One transaction, taking the write lock first (a read that turns into a write
      // cannot wait for another process's lock): the name check and the insert
      // cannot be split by another process.
      return db.transaction(
        (tx) => {
          const org = tx
            .select({ id: organizations.id })
            .from(organizations)
            .where(and(eq(organizations.key, orgKey), isNull(organizations.removedAt)))
            .get();
          if (org === undefined) throw new UnknownOrganizationError(orgKey);
          const taken = tx
            .select({ id: edgeTokens.id })
            .from(edgeTokens)
            .where(and(eq(edgeTokens.orgId, org.id), eq(edgeTokens.name, name), isNull(edgeTokens.revokedAt)))
            .get();
          if (taken !== undefined) throw new EdgeNameTakenError(orgKey, name);
          const token = generateEdgeToken();
          const row = {
            uuid: randomUuid(),
            orgId: org.id,
            name,
            prefix: token.slice(0, edgeTokenPrefixLength),
            hash: sha256Hex(token),
            createdAt: now,
          };
          tx.insert(edgeTokens).values(row).run();
          return { id: row.uuid, token, prefix: row.prefix, name, orgKey, createdAt: now };
        },
        { behavior: "immediate" },
      );
    },
    list(orgKey) {
      return orgKey === undefined ? listing().all() : listing().where(eq(organizations.key, orgKey)).all();
    },
    revoke(idOrPrefix, now) {
      return db
        .update(edgeTokens)
        .set({ revokedAt: now })
        .where(
          and(isNull(edgeTokens.revokedAt), or(eq(edgeTokens.uuid, idOrPrefix), eq(edgeTokens.prefix, idOrPrefix))),
        )
        .returning({ id: edgeTokens.id })
        .all().length;
    },
    lookup(token) {
      return byHash.get(sha256Hex(token));
    },
    recordUse(tokenId, now) {
      if (!throttle.due(tokenId, now)) return;
      try {
        touch.run(now, tokenId, now);
      } catch {
        throttle.forget(tokenId);
      }
    },
  });
}
