/** The JSON shapes of API keys, shared by the admin API and the CLI's `--json` output. */
import { isoOrNull } from "../../lib/clock.ts";
import type { ApiKeyListing, CreatedApiKey } from "../../store/contract/keys.ts";

/** A listed key (`fieldhub keys list --json`, GET /admin/api/keys). */
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
