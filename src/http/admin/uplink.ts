/**
 * A site's link to its central in the admin API (docs/admin.md, "Central";
 * docs/fleet.md, "Forwarding"): state, reason, the central's URL (never the
 * token), progress and lag, as /healthz presents them. Any signed-in user may
 * read it; a box without an uplink says so rather than failing.
 */
import { Elysia } from "elysia";
import { type AdminContext, adminPrefix } from "./context.ts";

export function adminUplinkRoutes(context: AdminContext) {
  const view = context.uplinkView ?? (() => ({ configured: false as const }));
  return new Elysia({ name: "admin-uplink" }).get(`${adminPrefix}/uplink`, ({ set }) => {
    // The page polls it: always the state now.
    set.headers["cache-control"] = "no-store";
    return view();
  });
}
