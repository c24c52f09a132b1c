/** The API keys domain of the store contract (docs/api.md section 5): only a key's hash and prefix are kept. */
import type { ApiScope } from "../../lib/api-keys.ts";

export const apiKeyKinds = ["standard", "sandbox"] as const;
export type ApiKeyKind = (typeof apiKeyKinds)[number];

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

export interface KeyStore {
  /** Stores a new key (generated unless given) for an organisation; throws UnknownOrganizationError. */
  create(input: NewApiKey, now: number): Promise<CreatedApiKey>;
  /** Keys newest first, of one organisation or all. */
  list(orgKey?: string): Promise<ApiKeyListing[]>;
  /** Revokes by key id or by prefix; returns how many keys were revoked now. */
  revoke(idOrPrefix: string, now: number): Promise<number>;
  /**
   * The per-request lookup of a key as presented, read from the store every time
   * so a key created or revoked from the CLI (another process) counts on the very
   * next request.
   */
  lookup(key: string): Promise<KeyForRequest | null>;
  /**
   * Records that a key was used. The API path must not write on every request, so
   * the store is told at most once a minute per key: `last_used_at` is exact to the
   * minute. A store busy with another process's write is skipped (the next minute
   * writes it).
   */
  recordUse(keyId: string, now: number): Promise<void>;
}
