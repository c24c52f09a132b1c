/**
 * The central's door for site boxes (docs/fleet.md, "Sites"): `GET /edge/v1/session`
 * tells a site whether its edge token is accepted, and for which organisation and
 * site name. Sites call out to it; it is outside /v1 and its API keys.
 */
import { Elysia } from "elysia";
import { CodedError } from "../../lib/errors.ts";
import type { Store } from "../../store/index.ts";

const bearerPattern = /^Bearer (fhe_[0-9a-f]{64})$/;

export function edgeRoutes(store: Store) {
  return new Elysia().get("/edge/v1/session", async ({ request }) => {
    const authorization = request.headers.get("authorization");
    if (authorization === null)
      throw new CodedError("missing_api_key", "Send the site's edge token: Authorization: Bearer fhe_...");
    const token = bearerPattern.exec(authorization)?.[1];
    // Checked by shape first: a malformed token costs no store lookup.
    const edge = token === undefined ? null : await store.edges.lookup(token);
    if (edge === null) throw new CodedError("invalid_api_key", "No such edge token.");
    if (edge.revokedAt !== null) {
      throw new CodedError("api_key_revoked", `The edge token of site "${edge.name}" was revoked.`);
    }
    return Response.json({ organization: edge.orgKey, site: edge.name, token_id: edge.id });
  });
}
