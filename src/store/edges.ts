/**
 * Edge tokens (docs/fleet.md, "Sites"): a site box presents one to a central to
 * forward what it polls. A token is bound to one organisation and shown once when
 * created; the store keeps only its SHA-256 (256 random bits, so a fast hash is
 * enough) and a short prefix, like API keys.
 */
import { and, desc, eq, isNull, or } from "drizzle-orm";
import { generateEdgeToken, sha256Hex } from "../lib/crypto.ts";
import { randomUuid } from "../lib/ids.ts";
import type { SqliteConnection } from "./connection.ts";
import { UnknownOrganizationError } from "./keys.ts";
import type { Synchronous } from "./resolved-operations.ts";
import { edgeTokens, organizations } from "./schema.ts";

/** `fhe_` and the first 8 hex digits: enough to tell a few thousand sites apart at a glance. */
export const edgeTokenPrefixLength = 12;

export interface CreatedEdgeToken {
  id: string;
  token: string;
  prefix: string;
  name: string;
  orgKey: string;
  createdAt: number;
}

export interface EdgeTokenListing {
  id: string;
  prefix: string;
  name: string;
  orgKey: string;
  createdAt: number;
  revokedAt: number | null;
  /** When the site's session check last passed with the token, to the minute; null: never. */
  lastUsedAt: number | null;
}

/** Another token of the organisation that is not revoked already has this site name. */
export class EdgeNameTakenError extends Error {
  constructor(
    readonly orgKey: string,
    readonly siteName: string,
  ) {
    super(`organisation "${orgKey}" already has an edge token named "${siteName}"`);
  }
}

/** What the central knows of a site presenting its token. */
export interface EdgeForRequest {
  id: string;
  name: string;
  orgId: number;
  orgKey: string;
  revokedAt: number | null;
}

export interface EdgeStore {
  /** A new token for a site of an organisation; throws UnknownOrganizationError or EdgeNameTakenError. */
  create(orgKey: string, name: string, now: number): Promise<CreatedEdgeToken>;
  /** Tokens newest first, of one organisation or all; never the tokens themselves. */
  list(orgKey?: string): Promise<EdgeTokenListing[]>;
  /** Revokes by token id or prefix at once; returns how many tokens were revoked now. */
  revoke(idOrPrefix: string, now: number): Promise<number>;
  /** The token's site, looked up by hash on every call, so a revoke from the CLI counts at once; null when unknown. */
  lookup(token: string): Promise<EdgeForRequest | null>;
  /**
   * Notes a session check that passed with the token (its id), as the central's last
   * contact with the site; written at most once a minute per token and process, never
   * moved back. A store that takes no writes just now loses the note, not the check.
   */
  recordUse(tokenId: string, now: number): Promise<void>;
}

/** The minute a token's last use was written in, per token: the session check costs no write within it. */
export function minuteThrottle() {
  const writtenMinute = new Map<string, number>();
  return {
    /** Whether this use needs a write; call `forget` if the write failed, so the next use tries again. */
    due(tokenId: string, now: number): boolean {
      const minute = Math.floor(now / 60_000);
      if (writtenMinute.get(tokenId) === minute) return false;
      writtenMinute.set(tokenId, minute);
      return true;
    },
    forget(tokenId: string): void {
      writtenMinute.delete(tokenId);
    },
  };
}

export function sqliteEdgeStore({ sqlite, db }: SqliteConnection): Synchronous<EdgeStore> {
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

  return {
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
  };
}
