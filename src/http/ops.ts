/**
 * Operations endpoints, outside the versioned API: /healthz (liveness, and
 * whether the store takes writes) and /metrics (Prometheus text format).
 */
import { Elysia } from "elysia";
import type { MetricsRegistry } from "../lib/metrics.ts";
import { version } from "../lib/version.ts";
import type { Store } from "../store/index.ts";

/** A part that can say it is unwell (ingest failing to write, for example). */
export type HealthCheck = () => { ok: true } | { ok: false; problem: string };

export function opsRoutes(store: Store, registry: MetricsRegistry, checks: readonly HealthCheck[] = []) {
  return new Elysia()
    .get("/healthz", () => {
      let storeState = "writable";
      try {
        // A real write: a full disk, a read-only mount or a broken file shows here.
        store.checkWritable();
      } catch (error) {
        storeState = error instanceof Error ? error.message : String(error);
      }
      const problems = checks.flatMap((check) => {
        const result = check();
        return result.ok ? [] : [result.problem];
      });
      const ok = storeState === "writable" && problems.length === 0;
      return Response.json({ status: ok ? "ok" : "error", store: storeState, problems, version }, { status: ok ? 200 : 503 });
    })
    .get(
      "/metrics",
      async () => new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } }),
    );
}
