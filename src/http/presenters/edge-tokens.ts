/** The JSON shape of a site's edge token (docs/fleet.md), shared by the admin API and `fieldhub edges list --json`. */
import { isoOrNull } from "../../lib/clock.ts";
import type { EdgeTokenListing } from "../../store/contract/edges.ts";

/** A listed token, never the token itself; `last_used_at` is the central's last contact with the site, to the minute. */
export function presentEdgeToken(edge: EdgeTokenListing) {
  return {
    id: edge.id,
    prefix: edge.prefix,
    name: edge.name,
    organization: edge.orgKey,
    status: edge.revokedAt === null ? "active" : "revoked",
    created_at: isoOrNull(edge.createdAt),
    revoked_at: isoOrNull(edge.revokedAt),
    last_used_at: isoOrNull(edge.lastUsedAt),
  };
}
