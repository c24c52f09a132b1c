/**
 * `GET /edge/v1/session` (docs/fleet.md, "Sites"): tells a site whether its edge
 * token is accepted, and for which organisation and site name. Sites call out to
 * the central's /edge door; it is outside /v1 and its API keys. An accepted check
 * is noted as the token's last use: the central's last contact with the site,
 * which its admin page lists (docs/admin.md, "Sites").
 */
import { Elysia } from "elysia";
import type { Clock } from "../../lib/clock.ts";
import { edgeMessages } from "../../lib/edge-protocol/messages.ts";
import type { Store } from "../../store/index.ts";
import { authenticateSite } from "./auth.ts";
import { edgeReply } from "./reply.ts";

export function edgeSessionRoutes(store: Store, clock: Clock) {
  const message = edgeMessages.session;
  return new Elysia().get(message.path, async ({ request }) => {
    const site = await authenticateSite(store, request);
    await store.edges.recordUse(site.id, clock.now());
    return edgeReply(message, { organization: site.orgKey, site: site.name, token_id: site.id });
  });
}
