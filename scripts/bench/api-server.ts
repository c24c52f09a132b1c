/**
 * The API as `serve` runs it, in the benchmark's own process, on a loopback port,
 * with a key of organisation "bench" whose rate limit never gets in the way.
 */
import { createHttpApp } from "../../src/http/app.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import type { Store } from "../../src/store/index.ts";

export async function startBenchApi(store: Store) {
  const key = (
    await store.keys.create(
      {
        orgKey: "bench",
        name: "bench",
        scopes: ["devices:read", "registers:read"],
        expiresAt: null,
        rateLimitPerMinute: 1_000_000_000,
      },
      Date.now(),
    )
  ).key;
  const app = await createHttpApp({
    store,
    clock: systemClock,
    logger: silentLogger(),
    publicUrl: null,
    defaultLimitPerMinute: 100,
  });
  app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
  return { app, key, base: `http://127.0.0.1:${app.server?.port}` };
}
