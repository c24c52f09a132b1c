/**
 * The disk full: writes fail with SQLITE_FULL (here by capping the store's size
 * with max_page_count, which fails writes exactly as a full disk does). fieldhub
 * keeps serving reads, reports the condition on /healthz, keeps the readings it
 * could not write, and writes them when space returns.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHttpApp } from "../../src/http/app.ts";
import { createIngest } from "../../src/ingest/ingest.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { call } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  sqliteOf(site.store).exec("PRAGMA max_page_count = 1073741823");
  await site.stop();
});

const air = "ACME-1/Climate computer/air_temperature";

test("a full store: reads go on, /healthz says so, nothing is lost, writing resumes when space returns", async () => {
  const ingest = await createIngest({
    store: site.store,
    clock: site.clock,
    logger: silentLogger(),
    storageIntervalMs: new Map([[site.registerUuid(air), 1000]]),
    flushIntervalMs: 3_600_000,
  });
  // The server as serve wires it: /healthz also asks whether ingest can write.
  const app = await createHttpApp({
    store: site.store,
    clock: site.clock,
    logger: silentLogger(),
    publicUrl: null,
    defaultLimitPerMinute: 1000,
    healthChecks: [
      () =>
        ingest.stats().writeError === null
          ? { ok: true }
          : { ok: false, problem: `ingest cannot write: ${ingest.stats().writeError}` },
    ],
  });
  app.listen({ hostname: "127.0.0.1", port: 0 });
  const opsUrl = `http://127.0.0.1:${app.server?.port}`;
  const start = site.clock.now() - 3_600_000;
  const batch = (from: number, count: number) =>
    Array.from({ length: count }, (_, index) => ({
      registerId: site.registerUuid(air),
      ts: start + (from + index) * 1000,
      raw: from + index,
    }));

  // Fill the store to its cap: no page is left for new rows.
  sqliteOf(site.store).exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const pages = sqliteOf(site.store).query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count ?? 0;
  sqliteOf(site.store).exec(`PRAGMA max_page_count = ${pages}`);
  ingest.accept(batch(0, 3000));
  expect(await ingest.flush()).toBe(0); // the write failed...
  expect(ingest.stats()).toMatchObject({ committed: 0, queued: 3000, dropped: 0 }); // ...and nothing was let go

  const health = await fetch(`${opsUrl}/healthz`);
  expect(health.status).toBe(503);
  expect(((await health.json()) as { problems: string[] }).problems.join(" ")).toContain("full");

  // Reads still answer.
  const devices = await call(site.baseUrl, "/v1/devices", { key: site.keys.acme });
  expect(devices.status).toBe(200);

  // More readings arrive while full; then space returns.
  ingest.accept(batch(3000, 1000));
  sqliteOf(site.store).exec("PRAGMA max_page_count = 1073741823");
  expect(await ingest.flush()).toBe(4000);
  expect((await fetch(`${opsUrl}/healthz`)).status).toBe(200);
  const stored = (
    await site.store.readings.page({
      registerIds: [site.registerId(air)],
      since: 0,
      until: 2 ** 50,
      order: "asc",
      limit: 10_000,
      after: null,
    })
  ).rows.length;
  expect(stored).toBe(4000);
  const latest = await call<{ data: { id: string; latest_raw_value: number }[] }>(
    site.baseUrl,
    `/v1/devices/${ids.acmeGateway1}/registers`,
    {
      key: site.keys.acme,
    },
  );
  expect(latest.body.data.find((register) => register.id === site.registerUuid(air))?.latest_raw_value).toBe(3999);
  await ingest.stop();
  await app.stop(true);
});
