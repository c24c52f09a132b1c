/** Who is calling the central's /edge door: the site whose edge token is presented (docs/fleet.md). */
import { CodedError } from "../../lib/errors.ts";
import type { EdgeForRequest } from "../../store/contract/edges.ts";
import type { Store } from "../../store/index.ts";

const bearerPattern = /^Bearer (fhe_[0-9a-f]{64})$/;

/** The site of the request's edge token; throws the section-7 problem when there is none, or it was revoked. */
export async function authenticateSite(store: Store, request: Request): Promise<EdgeForRequest> {
  const authorization = request.headers.get("authorization");
  if (authorization === null) {
    throw new CodedError("missing_api_key", "Send the site's edge token: Authorization: Bearer fhe_...");
  }
  const token = bearerPattern.exec(authorization)?.[1];
  // Checked by shape first: a malformed token costs no store lookup.
  const edge = token === undefined ? null : await store.edges.lookup(token);
  if (edge === null) throw new CodedError("invalid_api_key", "No such edge token.");
  if (edge.revokedAt !== null) {
    throw new CodedError("api_key_revoked", `The edge token of site "${edge.name}" was revoked.`);
  }
  return edge;
}
