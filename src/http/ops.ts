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

/** /healthz writes to the store at most this often; calls in between reuse the answer. */
const storeCheckEveryMs = 3_000;

export function opsRoutes(
  store: Store,
  registry: MetricsRegistry,
  checks: readonly HealthCheck[] = [],
  details: () => Record<string, unknown> = () => ({}),
) {
  let storeState = "writable";
  let checkedAt = Number.NEGATIVE_INFINITY;
  const checkStore = async (): Promise<string> => {
    // Monotonic: a clock step neither skips nor repeats the check.
    if (performance.now() - checkedAt < storeCheckEveryMs) return storeState;
    checkedAt = performance.now();
    try {
      // A real write: a full disk, a held lock, a read-only mount or a broken file shows here.
      await store.checkWritable();
      storeState = "writable";
    } catch (error) {
      storeState = error instanceof Error ? error.message : String(error);
    }
    return storeState;
  };
  return new Elysia()
    .get("/healthz", async () => {
      const storeState = await checkStore();
      const problems = checks.flatMap((check) => {
        const result = check();
        return result.ok ? [] : [result.problem];
      });
      if (storeState !== "writable") problems.unshift(`store not writable: ${storeState}`);
      const ok = problems.length === 0;
      return Response.json(
        { status: ok ? "ok" : "error", store: storeState, problems, version, ...details() },
        { status: ok ? 200 : 503 },
      );
    })
    .get(
      "/metrics",
      async () => new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } }),
    );
}
