/**
 * Operations endpoints, outside the versioned API: /healthz (liveness, and
 * whether the store takes writes) and /metrics (Prometheus text format).
 */
import { Elysia } from "elysia";
import type { MetricsRegistry } from "../lib/metrics.ts";
import { version } from "../lib/version.ts";
import type { Store } from "../store/open.ts";

export function opsRoutes(store: Store, registry: MetricsRegistry) {
  const touch = store.sqlite.prepare<never, [string]>(
    "INSERT INTO store_meta (key, value) VALUES ('healthz', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  return new Elysia()
    .get("/healthz", () => {
      try {
        // A real write: a full disk, a read-only mount or a broken file shows here.
        touch.run(new Date().toISOString());
        return Response.json({ status: "ok", store: "writable", version });
      } catch (error) {
        return Response.json(
          { status: "error", store: error instanceof Error ? error.message : String(error), version },
          { status: 503 },
        );
      }
    })
    .get(
      "/metrics",
      async () => new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } }),
    );
}
