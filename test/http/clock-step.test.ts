/**
 * The clock steps forward and back under a running server (NTP, a wrong RTC set
 * right): cursors keep their pinned window and still never skip or repeat a row;
 * new windows follow the new time; rate-limit headers stay within their ranges.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { call } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
const air = "ACME-1/Climate computer/air_temperature";
const humidity = "ACME-1/Climate computer/humidity";
beforeAll(async () => {
  site = await startTestSite();
  const now = site.clock.now();
  const rows = [];
  for (let minute = 1; minute <= 600; minute++) {
    rows.push({ registerId: site.registerId(air), ts: now - minute * 60_000, rawValue: minute });
    rows.push({ registerId: site.registerId(humidity), ts: now - minute * 60_000, rawValue: 1000 + minute });
  }
  await site.record(rows);
});
afterAll(async () => {
  await site.stop();
});

type Page = {
  data: { register_id: string; ts: string }[];
  meta: { since: string; until: string; has_more: boolean; next_cursor: string | null };
};

async function walk(order: "asc" | "desc", stepAfterFirstPage: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pinned: { since: string; until: string } | null = null;
  for (let page = 0; page < 100; page++) {
    const query: string = `/v1/devices/${ids.acmeGateway1}/readings?order=${order}&limit=97${cursor === null ? "" : `&cursor=${cursor}`}`;
    const response = await call<Page>(site.baseUrl, query, { key: site.keys.acme });
    expect(response.status).toBe(200);
    seen.push(...response.body.data.map((reading) => `${reading.register_id}@${reading.ts}`));
    pinned ??= { since: response.body.meta.since, until: response.body.meta.until };
    expect({ since: response.body.meta.since, until: response.body.meta.until }).toEqual(pinned);
    if (page === 0) site.clock.advance(stepAfterFirstPage);
    if (!response.body.meta.has_more) break;
    cursor = response.body.meta.next_cursor;
  }
  return seen;
}

test("a traversal that spans a step back or forward returns every row once", async () => {
  for (const [order, step] of [
    ["desc", -3_600_000],
    ["asc", -3_600_000],
    ["desc", 86_400_000],
    ["asc", 7 * 86_400_000],
  ] as const) {
    const before = site.clock.now();
    const seen = await walk(order, step);
    expect(new Set(seen).size).toBe(seen.length);
    // 600 minutes of two registers, all inside the default 24 h window pinned at the first page.
    expect(seen).toHaveLength(1200);
    site.clock.set(before);
  }
});

test("after a step, a new request's default window follows the new time", async () => {
  const now = site.clock.now();
  site.clock.set(now - 5 * 3_600_000);
  const response = await call<Page>(site.baseUrl, `/v1/devices/${ids.acmeGateway1}/readings?limit=1`, {
    key: site.keys.acme,
  });
  expect(response.body.meta.until).toBe(new Date(now - 5 * 3_600_000).toISOString());
  site.clock.set(now);
});

test("rate-limit headers stay in range when the clock steps back and forward", async () => {
  const key = await site.createKey("acme", ["devices:read"], { rateLimitPerMinute: 5 });
  for (const step of [0, -90_000, 45_000, 3_600_000, -7_200_000]) {
    site.clock.advance(step);
    for (let index = 0; index < 7; index++) {
      const response = await call(site.baseUrl, "/v1/devices?limit=1", { key });
      const remaining = Number(response.headers.get("x-ratelimit-remaining"));
      const reset = Number(response.headers.get("x-ratelimit-reset"));
      expect(remaining).toBeGreaterThanOrEqual(0);
      expect(remaining).toBeLessThanOrEqual(4);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
      expect(response.status).toBe(index < 5 ? 200 : 429);
    }
  }
});
