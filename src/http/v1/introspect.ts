import { Elysia, t } from "elysia";
import { isoFromMs, isoOrNull } from "../../lib/clock.ts";
import { commonErrors } from "./common.ts";
import { principalOf, type V1Deps } from "./deps.ts";
import { Introspection } from "./models.ts";

/** GET /introspect: any valid key; its own name, scopes, organisation and stats. */
export function introspectRoutes(deps: V1Deps) {
  return new Elysia().get(
    "/v1/introspect",
    async ({ request }) => {
      const key = principalOf(deps, request);
      const gateways = await deps.gateways.count(key.orgId);
      const openAlerts = await deps.alerts.countOpen(key.orgId);
      return deps.json(request, {
        data: {
          key: {
            name: key.name,
            scopes: key.scopes,
            created_at: isoFromMs(key.createdAt),
            expires_at: isoOrNull(key.expiresAt),
          },
          organization: { name: key.orgName },
          stats: { gateways, devices: gateways, open_alerts: openAlerts },
        },
      });
    },
    {
      response: { 200: t.Object({ data: Introspection }), ...commonErrors },
      detail: {
        operationId: "introspect",
        summary: "Key, organisation and stats",
        description: "Any valid key. Returns the key's name and scopes, its organisation and counts.",
        tags: ["Introspection"],
      },
    },
  );
}
