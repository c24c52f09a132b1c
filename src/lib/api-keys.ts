/** The API key model (docs/api.md section 5): scopes, kinds and when a key counts as active. */

export const apiScopes = ["devices:read", "registers:read", "alerts:read", "registers:write"] as const;
export type ApiScope = (typeof apiScopes)[number];

/** Writing registers; a sandbox key never carries it (docs/api.md section 5.6: read-only). */
export const writeScope: ApiScope = "registers:write";

/** A sandbox key's default limit, per client address. */
export const sandboxRateLimitPerMinute = 60;

export type ApiKeyStatus = "active" | "revoked" | "expired";

/**
 * A key's state at `now`, as the API gate judges it (revocation before expiry).
 * Revocation is a state: a revoked key stays revoked whatever the clock says,
 * even one revoked while the clock was ahead. Expiry is a wall-clock comparison:
 * a clock stepped ahead expires a key early, one stepped back late
 * (docs/reliability.md, "Clock steps").
 */
export function apiKeyStatus(key: { revokedAt: number | null; expiresAt: number | null }, now: number): ApiKeyStatus {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && key.expiresAt <= now) return "expired";
  return "active";
}
