/**
 * The edge tokens domain of the store contract (docs/fleet.md, "Sites"): a site
 * presents a token to a central; the store keeps only its hash and a prefix.
 */

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
