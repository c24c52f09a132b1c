/** Retention (docs/api.md section 8): history older than the cutoff is pruned in batches; newer history stays. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { call } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
beforeEach(async () => {
  site = await startTestSite();
});
afterEach(async () => {
  await site.stop();
});

const day = 86_400_000;
const air = "ACME-1/Climate computer/air_temperature";
const flow = "ACME-2/7/flow_temperature";

async function timestamps(gatewayId: string, path: string, since: number, until: number): Promise<number[]> {
  const response = await call<{ data: { ts: string }[] }>(
    site.baseUrl,
    `/v1/devices/${gatewayId}/readings?register_id=${site.registerUuid(path)}&order=asc&limit=1000&since=${new Date(since).toISOString()}&until=${new Date(until).toISOString()}`,
    { key: site.keys.acme },
  );
  return response.body.data.map((reading) => Date.parse(reading.ts));
}

test("readings older than the cutoff are deleted, in batches, for every register; the rest stay", async () => {
  const now = site.clock.now();
  const cutoff = now - 300 * day;
  // One reading a day for 330 days on two registers of two gateways.
  const batch = [];
  for (let index = 0; index < 330; index++) {
    const ts = now - index * day;
    batch.push({ registerId: site.registerId(air), ts, rawValue: index });
    batch.push({ registerId: site.registerId(flow), ts, rawValue: index });
  }
  await site.record(batch);

  const result = await site.store.readings.prune(cutoff, { batchRows: 7, pauseMs: 0 });
  // Readings at now - 300 days and later stay (300 + 1 of them); 29 older per register go.
  expect(result.deleted).toBe(2 * 29);
  expect(result.registers).toBe(2);
  expect(result.batches).toBe(2 * 5); // 29 rows in batches of 7: 7, 7, 7, 7, then the last 1

  for (const [gateway, path] of [
    [ids.acmeGateway1, air],
    [ids.acmeGateway2, flow],
  ] as const) {
    // The window ends at now (exclusive): the kept readings from now - 300 days to now - 1 day.
    const kept = await timestamps(gateway, path, now - 365 * day, now);
    expect(kept.length).toBe(300);
    expect(Math.min(...kept)).toBe(now - 300 * day);
  }
  // Running it again finds nothing to do.
  expect((await site.store.readings.prune(cutoff)).deleted).toBe(0);
});

test("an aborted prune stops between batches, leaving whole batches done", async () => {
  const now = site.clock.now();
  await site.record(
    Array.from({ length: 50 }, (_, index) => ({
      registerId: site.registerId(air),
      ts: now - (400 + index) * day,
      rawValue: index,
    })),
  );
  const abort = new AbortController();
  const pruning = site.store.readings.prune(now - 365 * day, {
    batchRows: 10,
    pauseMs: 5,
    signal: abort.signal,
  });
  await Bun.sleep(7);
  abort.abort();
  const result = await pruning;
  expect(result.deleted % 10).toBe(0);
  expect(result.deleted).toBeLessThan(50);
  const window = { since: now - 450 * day, until: now - 399 * day, order: "asc" as const, limit: 1000, after: null };
  const left = (await site.store.readings.page({ registerIds: [site.registerId(air)], ...window })).rows.length;
  expect(left).toBe(50 - result.deleted);
});
