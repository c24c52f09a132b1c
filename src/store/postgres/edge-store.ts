/**
 * Sites' edge tokens on PostgreSQL (docs/fleet.md, "Edge tokens"), as ../sqlite/edges.ts:
 * a token bound to one organisation, stored as its SHA-256; a site name unique
 * among an organisation's live tokens (a partial unique index decides a race
 * between two central processes: the loser hears EdgeNameTakenError).
 */
import { generateEdgeToken, sha256Hex } from "../../lib/crypto.ts";
import { randomUuid } from "../../lib/ids.ts";
import {
  type CreatedEdgeToken,
  type EdgeForRequest,
  EdgeNameTakenError,
  type EdgeStore,
  type EdgeTokenListing,
  edgeTokenPrefixLength,
} from "../contract/edges.ts";
import { UnknownOrganizationError } from "../contract/keys.ts";
import { minuteThrottle } from "../shared/minute-throttle.ts";
import type { Sql } from "./connection.ts";
import { firstOf, rowsOf } from "./rows.ts";

/** SQLSTATE of a unique violation. */
const uniqueViolation = "23505";

const listing = `SELECT e.uuid AS id, e.prefix, e.name, o.key AS "orgKey", e.created_at::float8 AS "createdAt", e.revoked_at::float8 AS "revokedAt",
                        e.last_used_at::float8 AS "lastUsedAt"
                   FROM edge_tokens e JOIN organizations o ON o.id = e.org_id`;

export function postgresEdgeStore(sql: Sql): EdgeStore {
  const throttle = minuteThrottle();

  async function create(orgKey: string, name: string, now: number): Promise<CreatedEdgeToken> {
    const org = await firstOf<{ id: number }>(
      sql`SELECT id FROM organizations WHERE key = ${orgKey} AND removed_at IS NULL`,
    );
    if (org === null) throw new UnknownOrganizationError(orgKey);
    const token = generateEdgeToken();
    const uuid = randomUuid();
    const prefix = token.slice(0, edgeTokenPrefixLength);
    try {
      await sql`
        INSERT INTO edge_tokens (uuid, org_id, name, prefix, hash, created_at)
        VALUES (${uuid}, ${org.id}, ${name}, ${prefix}, ${sha256Hex(token)}, ${now})`;
    } catch (error) {
      if ((error as { errno?: unknown }).errno === uniqueViolation) throw new EdgeNameTakenError(orgKey, name);
      throw error;
    }
    return { id: uuid, token, prefix, name, orgKey, createdAt: now };
  }

  function list(orgKey?: string): Promise<EdgeTokenListing[]> {
    const order = sql.unsafe("ORDER BY e.created_at DESC, e.id DESC");
    return orgKey === undefined
      ? rowsOf(sql`${sql.unsafe(listing)} ${order}`)
      : rowsOf(sql`${sql.unsafe(listing)} WHERE o.key = ${orgKey} ${order}`);
  }

  async function revoke(idOrPrefix: string, now: number): Promise<number> {
    const rows = await rowsOf(sql`
      UPDATE edge_tokens SET revoked_at = ${now}
       WHERE revoked_at IS NULL AND (uuid = ${idOrPrefix} OR prefix = ${idOrPrefix})
      RETURNING id`);
    return rows.length;
  }

  function lookup(token: string): Promise<EdgeForRequest | null> {
    return firstOf(sql`
      SELECT e.uuid AS id, e.name, e.org_id AS "orgId", e.revoked_at::float8 AS "revokedAt",
             (SELECT o.key FROM organizations o WHERE o.id = e.org_id) AS "orgKey"
        FROM edge_tokens e WHERE e.hash = ${sha256Hex(token)}`);
  }

  async function recordUse(tokenId: string, now: number): Promise<void> {
    if (!throttle.due(tokenId, now)) return;
    try {
      // Never back: another central process may have noted a later check.
      await sql`
        UPDATE edge_tokens SET last_used_at = ${now}
         WHERE uuid = ${tokenId} AND (last_used_at IS NULL OR last_used_at < ${now})`;
    } catch {
      throttle.forget(tokenId);
    }
  }

  return { create, list, revoke, lookup, recordUse };
}
