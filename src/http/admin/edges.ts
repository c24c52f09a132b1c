/**
 * A central's sites in the admin API (docs/admin.md, "Sites"; docs/fleet.md, "Edge
 * tokens"): every edge token with its organisation, prefix, status, creation and
 * the site's last session check. Read only: tokens are made and revoked with
 * `fieldhub edges`, on the machine. Any signed-in user may read it.
 */
import { Elysia, t } from "elysia";
import { presentEdgeToken } from "../presenters/edge-tokens.ts";
import { type AdminContext, adminPrefix } from "./context.ts";

export function adminEdgeRoutes(context: AdminContext) {
  const { store } = context;
  return new Elysia({ name: "admin-edges" }).get(
    `${adminPrefix}/edges`,
    async ({ query }) => ({ data: (await store.edges.list(query.organization)).map(presentEdgeToken) }),
    { query: t.Object({ organization: t.Optional(t.String({ maxLength: 200 })) }) },
  );
}
