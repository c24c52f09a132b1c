/**
 * The link to the MQTT broker in the admin API (docs/admin.md, "MQTT"; docs/mqtt.md,
 * "Watching the link"): state, since when, the last error, what was published and
 * what waits, the broker's URL without credentials, as /healthz presents them. Any
 * signed-in user may read it; a box without `mqtt` says so rather than failing.
 */
import { Elysia } from "elysia";
import { type AdminContext, adminPrefix } from "./context.ts";

export function adminMqttRoutes(context: AdminContext) {
  const view = context.mqttView ?? (async () => ({ configured: false as const }));
  return new Elysia({ name: "admin-mqtt" }).get(`${adminPrefix}/mqtt`, async ({ set }) => {
    // The page polls it: always the state now.
    set.headers["cache-control"] = "no-store";
    return await view();
  });
}
