/**
 * docs/api.md section 4 (GET /devices/{id}/readings and its rules 1 to 3), section 2
 * (Reading, CursorMeta), section 7 (errors) and section 8 (limits) through HTTP.
 *
 * Every test starts its own site (a fresh store, the clock at 2026-03-10T12:00:00Z)
 * so the readings one test writes never show up in another test's window.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type ApiResponse, call, expectApiHeaders, expectProblem } from "../harness/http.ts";
import { ids, startTestSite, startTime, type TestSite } from "../harness/site.ts";

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

type Reading = {
  register_id: string;
  modbus_device_id: string | null;
  name: string | null;
  unit: string | null;
  value: number | null;
  raw_value: number | null;
  ts: string;
};
type CursorMeta = {
  since: string;
  until: string;
  order: "asc" | "desc";
  limit: number;
  has_more: boolean;
  next_cursor: string | null;
};
type ReadingList = { data: Reading[]; meta: CursorMeta };
type Params = Record<string, string | number | undefined>;
type Order = "asc" | "desc";

// Stored history has whole seconds (store/contract/readings.ts): readings are seeded on whole
// seconds; window bounds in queries are still exact to the millisecond.
const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;
const now = startTime; // the ManualClock's "now" at the start of every test
const iso = (ms: number) => new Date(ms).toISOString();

// Registers of the test site by "serial/device/register" (the harness's naming).
const AIR = "ACME-1/Climate computer/air_temperature"; // scale 0.1, °C
const HUMIDITY = "ACME-1/Climate computer/humidity"; // scale 0.1, %RH
const SETPOINT = "ACME-1/Climate computer/setpoint"; // scale 0.1, °C
const POWER = "ACME-1/Energy meter/power"; // no scale factor, W
const ENERGY = "ACME-1/Energy meter/energy"; // scale 0.01, kWh
const ACME1_REGISTERS = [AIR, HUMIDITY, SETPOINT, POWER, ENERGY];
const FLOW = "ACME-2/7/flow_temperature"; // the only register of ACME-2 (device without a name)
const VOLTAGE = "GLOBEX-1/Meter/voltage"; // the other organisation

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const sites: TestSite[] = [];
async function newSite(): Promise<TestSite> {
  const site = await startTestSite();
  sites.push(site);
  return site;
}
afterEach(async () => {
  for (const site of sites.splice(0)) await site.stop();
});

/** Builds the query with URLSearchParams so "+" in offsets and "," in lists are encoded. */
function readingsPath(gateway: string, params: Params = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
  const text = query.toString();
  return `/v1/devices/${gateway}/readings${text === "" ? "" : `?${text}`}`;
}

function request(site: TestSite, gateway: string, params: Params = {}, key = site.keys.acme) {
  return call<ReadingList>(site.baseUrl, readingsPath(gateway, params), { key });
}

/** A 200 answer with the API headers; returns the body. */
async function fetchPage(site: TestSite, gateway: string, params: Params = {}): Promise<ReadingList> {
  const response = await request(site, gateway, params);
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${response.text}`);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  expectApiHeaders(response);
  return response.body;
}

/** A 400 invalid_parameter whose detail names the parameter at fault. */
function expectInvalid(response: ApiResponse, parameter: string): void {
  expectProblem(response, 400, "invalid_parameter");
  expect(String((response.body as { detail?: string }).detail)).toContain(parameter);
}

/** One stored reading as the test wrote it. */
type Seed = { path: string; ts: number; raw: number | null };

async function record(site: TestSite, seeds: Seed[]): Promise<void> {
  await site.record(seeds.map((seed) => ({ registerId: site.registerId(seed.path), ts: seed.ts, rawValue: seed.raw })));
}

/** The identity of a row, compact enough that a failing comparison is readable. */
const rowKey = (row: { ts: string; register_id: string; raw_value: number | null }) =>
  `${row.ts} ${row.register_id} ${row.raw_value}`;

function seedKeys(site: TestSite, seeds: Seed[]): { ts: string; register_id: string; raw_value: number | null }[] {
  return seeds.map((seed) => ({ ts: iso(seed.ts), register_id: site.registerUuid(seed.path), raw_value: seed.raw }));
}

type TieOrder = (registerA: string, registerB: string) => number;

/**
 * The spec orders by time and leaves the tie-break between registers at the same
 * instant to the service; it only has to be stable. So the tie order is read from
 * the answer itself (which register came first in each group of rows sharing a
 * timestamp), every pair of registers must keep one order in every group and on
 * every page, and the whole list is then expected to follow it.
 */
function tieOrder(rows: { ts: string; register_id: string }[]): TieOrder {
  const groups = new Map<string, string[]>();
  for (const row of rows) groups.set(row.ts, [...(groups.get(row.ts) ?? []), row.register_id]);
  const before = new Set<string>();
  for (const group of groups.values()) {
    for (let i = 0; i < group.length; i++)
      for (let j = i + 1; j < group.length; j++) before.add(`${group[i]}|${group[j]}`);
  }
  const conflicts = [...before].filter((pair) => {
    const [a, b] = pair.split("|");
    return before.has(`${b}|${a}`);
  });
  expect(conflicts).toEqual([]);
  return (a, b) => (a === b ? 0 : before.has(`${a}|${b}`) ? -1 : before.has(`${b}|${a}`) ? 1 : 0);
}

/** No two seeds share an instant: any tie-break will do. */
const noTies: TieOrder = () => 0;

/** The seeds inside [since, until), sorted as the API must return them. */
function expectedOrder(
  site: TestSite,
  seeds: Seed[],
  order: Order,
  window: { since: number; until: number },
  ties: TieOrder,
): string[] {
  const inside = seedKeys(
    site,
    seeds.filter((seed) => seed.ts >= window.since && seed.ts < window.until),
  );
  const direction = order === "asc" ? 1 : -1;
  inside.sort((a, b) => (a.ts !== b.ts ? (a.ts < b.ts ? -direction : direction) : ties(a.register_id, b.register_id)));
  return inside.map(rowKey);
}

type Walk = { pages: ReadingList[]; rows: Reading[] };

/**
 * Follows next_cursor from a first request to the end, checking the page
 * invariants of rule 2 and CursorMeta on every page. `afterPage` runs between
 * pages (to write readings or move the clock while a traversal is under way).
 */
async function walk(
  site: TestSite,
  gateway: string,
  params: Params,
  options: { afterPage?: (pageNumber: number) => void | Promise<void>; maxPages?: number } = {},
): Promise<Walk> {
  const pages: ReadingList[] = [];
  const maxPages = options.maxPages ?? 200;
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(site, gateway, { ...params, cursor });
    pages.push(page);
    const limit = Number(params.limit ?? 100);
    expect(page.meta.limit).toBe(limit);
    expect(page.meta.order).toBe((params.order as Order | undefined) ?? "desc");
    expect(page.data.length).toBeLessThanOrEqual(limit);
    // The window is pinned by the first page: every later page reports the same one.
    expect(page.meta.since).toBe(pages[0]!.meta.since);
    expect(page.meta.until).toBe(pages[0]!.meta.until);
    if (page.meta.has_more) {
      expect(typeof page.meta.next_cursor).toBe("string");
      // A page that says there is more is full; otherwise the client cannot tell a short page from the end.
      expect(page.data.length).toBe(limit);
    } else {
      expect(page.meta.next_cursor).toBeNull();
      break;
    }
    if (pages.length >= maxPages) throw new Error(`still has_more after ${maxPages} pages`);
    await options.afterPage?.(pages.length);
    cursor = page.meta.next_cursor!;
  }
  return { pages, rows: pages.flatMap((page) => page.data) };
}

/** The rows of a walk, with a clear failure for a repeated row before comparing order. */
function walkedKeys(rows: Reading[]): string[] {
  const keys = rows.map(rowKey);
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const key of keys) {
    if (seen.has(key)) repeated.push(key);
    seen.add(key);
  }
  expect(repeated).toEqual([]);
  return keys;
}

/**
 * Walks a history in both orders with `limit` and expects exactly the seeds in
 * the window: nothing skipped, nothing repeated, in time order.
 */
async function expectCompleteWalks(
  site: TestSite,
  gateway: string,
  seeds: Seed[],
  params: Params,
  window: { since: number; until: number },
): Promise<void> {
  const inWindow = seeds.filter((seed) => seed.ts >= window.since && seed.ts < window.until).length;
  expect(inWindow).toBeGreaterThan(0);
  const limit = Number(params.limit ?? 100);
  for (const order of ["desc", "asc"] as const) {
    const { pages, rows } = await walk(site, gateway, { ...params, order });
    expect(pages[0]!.meta.since).toBe(iso(window.since));
    expect(pages[0]!.meta.until).toBe(iso(window.until));
    const keys = walkedKeys(rows);
    expect(keys).toEqual(expectedOrder(site, seeds, order, window, tieOrder(rows)));
    expect(pages.length).toBe(Math.max(1, Math.ceil(inWindow / limit)));
  }
}

// ---------------------------------------------------------------------------
// The window
// ---------------------------------------------------------------------------

describe("the time window", () => {
  test("default: until = now and since = until - 24 h; since inclusive, until exclusive", async () => {
    const site = await newSite();
    await record(site, [
      { path: AIR, ts: now - day - second, raw: 1 }, // just before since: out
      { path: AIR, ts: now - day, raw: 2 }, // exactly since: in
      { path: AIR, ts: now - hour, raw: 3 },
      { path: AIR, ts: now - second, raw: 4 }, // last stored second: in
      { path: AIR, ts: now, raw: 5 }, // exactly until: out
      { path: AIR, ts: now + minute, raw: 6 }, // future: out
    ]);
    const page = await fetchPage(site, ids.acmeGateway1);
    expect(page.meta).toEqual({
      since: "2026-03-09T12:00:00.000Z",
      until: "2026-03-10T12:00:00.000Z",
      order: "desc",
      limit: 100,
      has_more: false,
      next_cursor: null,
    });
    expect(page.data.map((row) => [row.ts, row.raw_value])).toEqual([
      [iso(now - second), 4],
      [iso(now - hour), 3],
      [iso(now - day), 2],
    ]);

    // The default follows the clock: an hour later, the row at the old "now" is in and the oldest is out.
    site.clock.advance(hour);
    const later = await fetchPage(site, ids.acmeGateway1);
    expect(later.meta.since).toBe("2026-03-09T13:00:00.000Z");
    expect(later.meta.until).toBe("2026-03-10T13:00:00.000Z");
    expect(later.data.map((row) => row.raw_value)).toEqual([6, 5, 4, 3]);
  });

  test("explicit since and until are echoed; since inclusive, until exclusive", async () => {
    const site = await newSite();
    const since = Date.UTC(2026, 2, 5, 6, 30, 0);
    const until = Date.UTC(2026, 2, 5, 8, 0, 0);
    await record(site, [
      { path: HUMIDITY, ts: since - second, raw: 10 },
      { path: HUMIDITY, ts: since, raw: 11 },
      { path: HUMIDITY, ts: since + second, raw: 12 },
      { path: HUMIDITY, ts: until - second, raw: 13 },
      { path: HUMIDITY, ts: until, raw: 14 },
    ]);
    const page = await fetchPage(site, ids.acmeGateway1, { since: iso(since), until: iso(until), order: "asc" });
    expect(page.meta.since).toBe("2026-03-05T06:30:00.000Z");
    expect(page.meta.until).toBe("2026-03-05T08:00:00.000Z");
    expect(page.data.map((row) => row.raw_value)).toEqual([11, 12, 13]);
  });

  test("only since: until defaults to now", async () => {
    const site = await newSite();
    await record(site, [
      { path: AIR, ts: now - 3 * day, raw: 1 },
      { path: AIR, ts: now - second, raw: 2 },
      { path: AIR, ts: now, raw: 3 },
    ]);
    const page = await fetchPage(site, ids.acmeGateway1, { since: iso(now - 3 * day) });
    expect(page.meta.since).toBe(iso(now - 3 * day));
    expect(page.meta.until).toBe(iso(now));
    expect(page.data.map((row) => row.raw_value)).toEqual([2, 1]);
  });

  test("only until: since defaults to until - 24 h", async () => {
    const site = await newSite();
    const until = now - 2 * day;
    await record(site, [
      { path: AIR, ts: until - day - second, raw: 1 },
      { path: AIR, ts: until - day, raw: 2 },
      { path: AIR, ts: until - second, raw: 3 },
      { path: AIR, ts: until, raw: 4 },
    ]);
    const page = await fetchPage(site, ids.acmeGateway1, { until: iso(until) });
    expect(page.meta.since).toBe(iso(until - day));
    expect(page.meta.until).toBe(iso(until));
    expect(page.data.map((row) => row.raw_value)).toEqual([3, 2]);
  });

  test("zone offsets are honoured (+02:00 and -05:00 name the same instants in UTC)", async () => {
    const site = await newSite();
    // 13:00+02:00 is 11:00Z; 05:00-05:00 is 10:00Z.
    await record(site, [
      { path: AIR, ts: Date.UTC(2026, 2, 10, 9, 59, 59, 999), raw: 1 },
      { path: AIR, ts: Date.UTC(2026, 2, 10, 10, 0, 0), raw: 2 },
      { path: AIR, ts: Date.UTC(2026, 2, 10, 10, 59, 59, 999), raw: 3 },
      { path: AIR, ts: Date.UTC(2026, 2, 10, 11, 0, 0), raw: 4 },
    ]);
    const page = await fetchPage(site, ids.acmeGateway1, {
      since: "2026-03-10T05:00:00-05:00",
      until: "2026-03-10T13:00:00+02:00",
    });
    expect(page.meta.since).toBe("2026-03-10T10:00:00.000Z");
    expect(page.meta.until).toBe("2026-03-10T11:00:00.000Z");
    expect(page.data.map((row) => row.raw_value)).toEqual([3, 2]);
  });

  test("an empty window: data [], has_more false, next_cursor null", async () => {
    const site = await newSite();
    await record(site, [{ path: AIR, ts: now - 2 * day, raw: 1 }]); // outside the default window
    for (const params of [
      {},
      { order: "asc" },
      { register_id: site.registerUuid(AIR) },
      { since: iso(now - hour), until: iso(now - hour) },
    ]) {
      const page = await fetchPage(site, ids.acmeGateway1, params);
      expect(page.data).toEqual([]);
      expect(page.meta.has_more).toBe(false);
      expect(page.meta.next_cursor).toBeNull();
    }
    // A gateway without registers has no readings at all.
    const empty = await fetchPage(site, ids.acmeGateway3);
    expect(empty.data).toEqual([]);
    expect(empty.meta).toEqual({
      since: "2026-03-09T12:00:00.000Z",
      until: "2026-03-10T12:00:00.000Z",
      order: "desc",
      limit: 100,
      has_more: false,
      next_cursor: null,
    });
  });
});

describe("window rules (rule 1)", () => {
  test("without register_id: exactly 7 days is allowed, 7 days + 1 ms is 400", async () => {
    const site = await newSite();
    await record(site, [
      { path: AIR, ts: now - 7 * day, raw: 1 },
      { path: POWER, ts: now - second, raw: 2 },
    ]);
    const ok = await fetchPage(site, ids.acmeGateway1, { since: iso(now - 7 * day), until: iso(now) });
    expect(ok.meta.since).toBe(iso(now - 7 * day));
    expect(ok.data.map((row) => row.raw_value)).toEqual([2, 1]);
    expectInvalid(await request(site, ids.acmeGateway1, { since: iso(now - 7 * day - 1), until: iso(now) }), "until");
    // A since alone, more than 7 days before the default until (now).
    expectInvalid(await request(site, ids.acmeGateway1, { since: iso(now - 8 * day) }), "since");
    // The same limit away from now.
    const past = Date.UTC(2025, 5, 1);
    expect((await request(site, ids.acmeGateway1, { since: iso(past - 7 * day), until: iso(past) })).status).toBe(200);
    expectInvalid(await request(site, ids.acmeGateway1, { since: iso(past - 7 * day - 1), until: iso(past) }), "since");
  });

  test("with two register ids the limit stays 7 days", async () => {
    const site = await newSite();
    const two = `${site.registerUuid(AIR)},${site.registerUuid(HUMIDITY)}`;
    expect((await request(site, ids.acmeGateway1, { register_id: two, since: iso(now - 7 * day) })).status).toBe(200);
    expectInvalid(await request(site, ids.acmeGateway1, { register_id: two, since: iso(now - 7 * day - 1) }), "since");
    expectInvalid(await request(site, ids.acmeGateway1, { register_id: two, since: iso(now - 30 * day) }), "since");
  });

  test("with exactly one register_id: up to 366 days, 366 days + 1 ms is 400", async () => {
    const site = await newSite();
    const air = site.registerUuid(AIR);
    await record(site, [
      { path: AIR, ts: now - 366 * day - second, raw: 1 },
      { path: AIR, ts: now - 366 * day, raw: 2 },
      { path: AIR, ts: now - 200 * day, raw: 3 },
      { path: AIR, ts: now - second, raw: 4 },
      { path: HUMIDITY, ts: now - 200 * day, raw: 5 }, // another register: never in this answer
    ]);
    const year = await fetchPage(site, ids.acmeGateway1, {
      register_id: air,
      since: iso(now - 366 * day),
      until: iso(now),
    });
    expect(year.meta.since).toBe(iso(now - 366 * day));
    expect(year.meta.until).toBe(iso(now));
    expect(year.data.map((row) => row.raw_value)).toEqual([4, 3, 2]);
    const month = await fetchPage(site, ids.acmeGateway1, { register_id: air, since: iso(now - 30 * day) });
    expect(month.data.map((row) => row.raw_value)).toEqual([4]);
    expectInvalid(
      await request(site, ids.acmeGateway1, { register_id: air, since: iso(now - 366 * day - 1), until: iso(now) }),
      "since",
    );
  });

  test("a gateway with one register: 366 days need that register_id; without it the limit is 7 days", async () => {
    const site = await newSite();
    await record(site, [{ path: FLOW, ts: now - 100 * day, raw: 1 }]);
    // "Exactly one register_id is passed" (rule 1): having one register is not passing one.
    expectInvalid(await request(site, ids.acmeGateway2, { since: iso(now - 8 * day) }), "since");
    const page = await fetchPage(site, ids.acmeGateway2, {
      register_id: site.registerUuid(FLOW),
      since: iso(now - 366 * day),
    });
    expect(page.data.map((row) => row.raw_value)).toEqual([1]);
  });

  test("since later than until is 400; since equal to until is an empty window", async () => {
    const site = await newSite();
    expectInvalid(
      await request(site, ids.acmeGateway1, { since: iso(now - hour), until: iso(now - hour - 1) }),
      "since",
    );
    // A since after the default until (now).
    expectInvalid(await request(site, ids.acmeGateway1, { since: iso(now + hour) }), "since");
    const empty = await fetchPage(site, ids.acmeGateway1, { since: iso(now - hour), until: iso(now - hour) });
    expect(empty.data).toEqual([]);
  });

  test("malformed since or until is 400 naming the parameter", async () => {
    const site = await newSite();
    const malformed = [
      "2026-03-10", // date only
      "2026-03-10T10:00:00", // no zone
      "2026-02-30T00:00:00Z", // no such day
      "2026-13-01T00:00:00Z", // no such month
      "2026-03-10T24:00:00Z", // no such hour
      "2026-03-10T10:00:00+25:00", // no such offset
      "garbage",
      "",
      "1741600000000", // epoch milliseconds are not a date-time
    ];
    for (const name of ["since", "until"]) {
      for (const value of malformed) {
        const response = await request(site, ids.acmeGateway1, { [name]: value });
        expectInvalid(response, name);
      }
    }
  });
});

// ---------------------------------------------------------------------------
// Order and limit
// ---------------------------------------------------------------------------

describe("order", () => {
  test("newest first by default, oldest first with order=asc", async () => {
    const site = await newSite();
    const seeds: Seed[] = [
      { path: AIR, ts: now - 3 * hour, raw: 1 },
      { path: POWER, ts: now - 2 * hour, raw: 2 },
      { path: HUMIDITY, ts: now - 90 * minute, raw: 3 },
      { path: AIR, ts: now - hour, raw: 4 },
      { path: ENERGY, ts: now - second, raw: 5 },
    ];
    await record(site, seeds);
    const desc = await fetchPage(site, ids.acmeGateway1);
    expect(desc.meta.order).toBe("desc");
    expect(desc.data.map((row) => row.raw_value)).toEqual([5, 4, 3, 2, 1]);
    const explicitDesc = await fetchPage(site, ids.acmeGateway1, { order: "desc" });
    expect(explicitDesc.data).toEqual(desc.data);
    const asc = await fetchPage(site, ids.acmeGateway1, { order: "asc" });
    expect(asc.meta.order).toBe("asc");
    expect(asc.data.map((row) => row.raw_value)).toEqual([1, 2, 3, 4, 5]);
    for (const value of ["ASC", "newest", ""])
      expectInvalid(await request(site, ids.acmeGateway1, { order: value }), "order");
  });

  test("rows sharing a timestamp: time first, then one stable tie-break, identical between pages", async () => {
    const site = await newSite();
    // Four registers read at the very same instants, plus a fifth in between.
    const seeds: Seed[] = [];
    for (let i = 0; i < 12; i++) {
      const ts = now - 6 * hour + i * 5 * minute;
      [AIR, HUMIDITY, POWER, ENERGY].forEach((path, k) => {
        seeds.push({ path, ts, raw: i * 10 + k });
      });
      if (i % 3 === 0) seeds.push({ path: SETPOINT, ts: ts + second, raw: 1000 + i });
    }
    await record(site, seeds);
    const window = { since: now - day, until: now };
    for (const order of ["desc", "asc"] as const) {
      const whole = await fetchPage(site, ids.acmeGateway1, { order, limit: 1000 });
      expect(whole.meta.has_more).toBe(false);
      const reference = whole.data.map(rowKey);
      expect(reference).toEqual(expectedOrder(site, seeds, order, window, tieOrder(whole.data)));
      // Page boundaries anywhere inside a group of equal timestamps must not change the order.
      for (const limit of [1, 2, 3, 5, 7]) {
        const { rows } = await walk(site, ids.acmeGateway1, { order, limit });
        expect(walkedKeys(rows)).toEqual(reference);
      }
    }
  });
});

describe("limit", () => {
  test("default 100, 1 and 1000 are allowed and cut the list exactly", async () => {
    const site = await newSite();
    // 5 registers x 210 minutes = 1050 rows at distinct instants (registers a second apart).
    const seeds: Seed[] = [];
    for (let i = 0; i < 210; i++) {
      ACME1_REGISTERS.forEach((path, k) => {
        seeds.push({ path, ts: now - 4 * hour + i * minute + k * 1000, raw: i * 10 + k });
      });
    }
    await record(site, seeds);
    const window = { since: now - day, until: now };
    const newest = expectedOrder(site, seeds, "desc", window, noTies);
    expect(newest.length).toBe(1050);

    const byDefault = await fetchPage(site, ids.acmeGateway1);
    expect(byDefault.meta.limit).toBe(100);
    expect(byDefault.meta.has_more).toBe(true);
    expect(byDefault.data.map(rowKey)).toEqual(newest.slice(0, 100));

    const one = await fetchPage(site, ids.acmeGateway1, { limit: 1 });
    expect(one.meta.limit).toBe(1);
    expect(one.meta.has_more).toBe(true);
    expect(one.data.map(rowKey)).toEqual(newest.slice(0, 1));

    const most = await fetchPage(site, ids.acmeGateway1, { limit: 1000, order: "asc" });
    expect(most.meta.limit).toBe(1000);
    expect(most.meta.has_more).toBe(true);
    expect(most.data.map(rowKey)).toEqual(newest.slice().reverse().slice(0, 1000));
  });

  test("0, 1001, -1, 1.5, abc and empty are 400 invalid_parameter naming limit", async () => {
    const site = await newSite();
    for (const value of ["0", "1001", "-1", "1.5", "abc", "", "100000000000000000000"]) {
      expectInvalid(await request(site, ids.acmeGateway1, { limit: value }), "limit");
    }
  });
});

// ---------------------------------------------------------------------------
// register_id and the gateway
// ---------------------------------------------------------------------------

describe("register_id and gateway", () => {
  /** One reading per register of every gateway, an hour apart, so each row is recognisable. */
  async function seedEveryRegister(site: TestSite): Promise<Seed[]> {
    const seeds = [...ACME1_REGISTERS, FLOW, VOLTAGE].map((path, k) => ({
      path,
      ts: now - (k + 1) * hour,
      raw: k + 1,
    }));
    await record(site, seeds);
    return seeds;
  }

  test("absent: every register of this gateway and nothing of other gateways", async () => {
    const site = await newSite();
    await seedEveryRegister(site);
    const page = await fetchPage(site, ids.acmeGateway1, { order: "asc" });
    // ACME-1's five registers (raw 1..5), oldest first; not ACME-2's (6) or Globex's (7).
    expect(page.data.map((row) => [row.name, row.raw_value])).toEqual([
      ["energy", 5],
      ["power", 4],
      ["setpoint", 3],
      ["humidity", 2],
      ["air_temperature", 1],
    ]);
    const other = await fetchPage(site, ids.acmeGateway2);
    expect(other.data.map((row) => [row.register_id, row.raw_value])).toEqual([[site.registerUuid(FLOW), 6]]);
  });

  test("one id: only that register", async () => {
    const site = await newSite();
    await seedEveryRegister(site);
    await record(site, [{ path: POWER, ts: now - 10 * minute, raw: 40 }]);
    const page = await fetchPage(site, ids.acmeGateway1, { register_id: site.registerUuid(POWER) });
    expect(page.data.map((row) => [row.register_id, row.raw_value])).toEqual([
      [site.registerUuid(POWER), 40],
      [site.registerUuid(POWER), 4],
    ]);
  });

  test("several ids, with spaces and duplicates: exactly those registers, each row once", async () => {
    const site = await newSite();
    await seedEveryRegister(site);
    const air = site.registerUuid(AIR);
    const energy = site.registerUuid(ENERGY);
    const setpoint = site.registerUuid(SETPOINT);
    for (const list of [
      `${air},${energy}`,
      `${energy},${air}`,
      ` ${air} , ${energy} `,
      `${air},${energy},${air}`,
      `${air},${setpoint},${energy},${setpoint}`,
    ]) {
      const page = await fetchPage(site, ids.acmeGateway1, { register_id: list });
      const expected = list.includes(setpoint)
        ? [
            [air, 1],
            [setpoint, 3],
            [energy, 5],
          ]
        : [
            [air, 1],
            [energy, 5],
          ];
      expect(page.data.map((row) => [row.register_id, row.raw_value])).toEqual(expected);
    }
  });

  test("a malformed register id is 400 invalid_parameter naming register_id", async () => {
    const site = await newSite();
    const air = site.registerUuid(AIR);
    for (const list of [
      "nope",
      `${air},nope`,
      `${air},`,
      ",",
      "",
      `${air};${site.registerUuid(POWER)}`,
      air.slice(0, -1),
    ]) {
      expectInvalid(await request(site, ids.acmeGateway1, { register_id: list }), "register_id");
    }
  });

  test("a register of another gateway or another organisation is 404 not_found", async () => {
    const site = await newSite();
    await seedEveryRegister(site);
    const air = site.registerUuid(AIR);
    for (const list of [
      site.registerUuid(FLOW), // same organisation, other gateway
      site.registerUuid(VOLTAGE), // other organisation
      `${air},${site.registerUuid(FLOW)}`, // one good id does not save a bad one
      "00000000-0000-4000-8000-000000000000", // well-formed, unknown
    ]) {
      const response = await request(site, ids.acmeGateway1, { register_id: list });
      expectProblem(response, 404, "not_found");
      expectApiHeaders(response);
    }
  });

  test("a gateway of the other organisation is 404 not_found, both ways; a malformed gateway id is 400", async () => {
    const site = await newSite();
    await seedEveryRegister(site);
    expectProblem(await request(site, ids.globexGateway), 404, "not_found");
    expectProblem(await request(site, ids.acmeGateway1, {}, site.keys.globex), 404, "not_found");
    expectProblem(await request(site, "00000000-0000-4000-8000-000000000000"), 404, "not_found");
    // The owner sees its gateway's reading, so the 404 above is about ownership, not emptiness.
    const own = await call<ReadingList>(site.baseUrl, readingsPath(ids.globexGateway), { key: site.keys.globex });
    expect(own.status).toBe(200);
    expect(own.body.data.map((row) => row.raw_value)).toEqual([7]);
    for (const bad of ["not-a-uuid", "12345", `${ids.acmeGateway1}x`]) {
      expectInvalid(await request(site, bad), "id:");
    }
  });
});

// ---------------------------------------------------------------------------
// Values and fields
// ---------------------------------------------------------------------------

describe("Reading fields", () => {
  test("value = raw_value x scale_factor; no scale factor: value = raw_value; every field filled", async () => {
    const site = await newSite();
    const registers = await call<{ data: { id: string; modbus_device_id: string; name: string }[] }>(
      site.baseUrl,
      `/v1/devices/${ids.acmeGateway1}/registers`,
      { key: site.keys.acme },
    );
    expect(registers.status).toBe(200);
    const deviceOf = new Map(registers.body.data.map((register) => [register.id, register.modbus_device_id]));
    const climate = deviceOf.get(site.registerUuid(AIR));
    const meter = deviceOf.get(site.registerUuid(POWER));
    if (climate === undefined || meter === undefined) throw new Error("registers endpoint lacks a register");
    expect(climate).toMatch(uuidPattern);
    expect(meter).toMatch(uuidPattern);
    expect(climate).not.toBe(meter);

    await record(site, [
      { path: AIR, ts: now - 8 * minute, raw: 215 },
      { path: AIR, ts: now - 7 * minute, raw: 3 },
      { path: AIR, ts: now - 6 * minute, raw: -50 },
      { path: HUMIDITY, ts: now - 5 * minute, raw: 655 },
      { path: POWER, ts: now - 4 * minute, raw: 1234.5 },
      { path: ENERGY, ts: now - 3 * minute, raw: 12345 },
      { path: ENERGY, ts: now - 2 * minute, raw: 7 },
      { path: SETPOINT, ts: now - 1 * minute, raw: null },
    ]);
    const page = await fetchPage(site, ids.acmeGateway1, { order: "asc" });
    const reading = (path: string, unit: string, modbusDevice: string, ts: number) => ({
      register_id: site.registerUuid(path),
      modbus_device_id: modbusDevice,
      name: path.split("/")[2] ?? null,
      unit,
      ts: iso(ts),
      // Recorded without a period's aggregate: the added fields are null (docs/api.md section 4.6).
      ...noAggregate,
    });
    expect(page.data).toEqual([
      { ...reading(AIR, "°C", climate, now - 8 * minute), value: 21.5, raw_value: 215 },
      // 3 x 0.1 in binary floating point is 0.30000000000000004; the API says 0.3.
      { ...reading(AIR, "°C", climate, now - 7 * minute), value: 0.3, raw_value: 3 },
      { ...reading(AIR, "°C", climate, now - 6 * minute), value: -5, raw_value: -50 },
      { ...reading(HUMIDITY, "%RH", climate, now - 5 * minute), value: 65.5, raw_value: 655 },
      { ...reading(POWER, "W", meter, now - 4 * minute), value: 1234.5, raw_value: 1234.5 },
      { ...reading(ENERGY, "kWh", meter, now - 3 * minute), value: 123.45, raw_value: 12345 },
      { ...reading(ENERGY, "kWh", meter, now - 2 * minute), value: 0.07, raw_value: 7 },
      { ...reading(SETPOINT, "°C", climate, now - 1 * minute), value: null, raw_value: null },
    ]);
    for (const row of page.data) {
      expect(row.register_id).toMatch(uuidPattern);
      expect(Object.keys(row).sort()).toEqual([
        "max",
        "mean",
        "min",
        "modbus_device_id",
        "name",
        "raw_max",
        "raw_mean",
        "raw_min",
        "raw_value",
        "register_id",
        "samples",
        "ts",
        "unit",
        "value",
      ]);
    }
  });

  test("a reading's period aggregate: min, max and mean in engineering units, samples, raw_min, raw_max, raw_mean", async () => {
    const site = await newSite();
    await site.record([
      {
        registerId: site.registerId(AIR),
        ts: now - 8 * minute,
        rawValue: 452,
        aggregate: { rawMin: 452, rawMax: 600, rawMean: 489, samples: 12 },
      },
    ]);
    const page = await fetchPage(site, ids.acmeGateway1, { order: "asc" });
    expect(page.data).toEqual([
      expect.objectContaining({
        value: 45.2,
        raw_value: 452,
        min: 45.2,
        max: 60,
        mean: 48.9,
        samples: 12,
        raw_min: 452,
        raw_max: 600,
        raw_mean: 489,
      }),
    ]);
  });
});

const noAggregate = { min: null, max: null, mean: null, samples: null, raw_min: null, raw_max: null, raw_mean: null };

// ---------------------------------------------------------------------------
// Cursor pagination (rule 2)
// ---------------------------------------------------------------------------

describe("cursor pagination walks every row once", () => {
  test("5 registers x 700 timestamps, many shared, limit 97, desc and asc", async () => {
    const site = await newSite();
    const seeds: Seed[] = [];
    for (let i = 0; i < 700; i++) {
      const base = now - 12 * hour + i * minute;
      ACME1_REGISTERS.forEach((path, k) => {
        // Energy skips a stretch, so some slabs have fewer registers than others.
        if (path === ENERGY && i >= 200 && i < 320) return;
        // Every fourth minute all registers share the instant; otherwise they are seconds apart.
        const ts = i % 4 === 0 ? base : base + k * 7_000;
        seeds.push({ path, ts, raw: i * 10 + k });
      });
    }
    // Rows outside the default window on both sides must not leak in.
    await record(site, [...seeds, { path: AIR, ts: now - day - second, raw: -1 }, { path: POWER, ts: now, raw: -2 }]);
    await expectCompleteWalks(site, ids.acmeGateway1, seeds, { limit: 97 }, { since: now - day, until: now });
  });

  test("the same history with the default limit (100) and with a register subset", async () => {
    const site = await newSite();
    const seeds: Seed[] = [];
    for (let i = 0; i < 300; i++) {
      const base = now - 6 * hour + i * minute;
      ACME1_REGISTERS.forEach((path, k) => {
        seeds.push({ path, ts: i % 2 === 0 ? base : base + k * second, raw: i * 10 + k });
      });
    }
    await record(site, seeds);
    const window = { since: now - day, until: now };
    await expectCompleteWalks(site, ids.acmeGateway1, seeds, {}, window);
    const subset = [AIR, POWER, ENERGY];
    await expectCompleteWalks(
      site,
      ids.acmeGateway1,
      seeds.filter((seed) => subset.includes(seed.path)),
      { register_id: subset.map((path) => site.registerUuid(path)).join(","), limit: 61 },
      window,
    );
  });

  test("a single register, limit 97, desc and asc", async () => {
    const site = await newSite();
    const seeds: Seed[] = [];
    for (let i = 0; i < 700; i++) seeds.push({ path: HUMIDITY, ts: now - 20 * hour + i * minute, raw: i });
    // Other registers' rows at the same instants must not appear in a single-register walk.
    for (let i = 0; i < 700; i += 3) seeds.push({ path: AIR, ts: now - 20 * hour + i * minute, raw: 10_000 + i });
    await record(site, seeds);
    const humidity = seeds.filter((seed) => seed.path === HUMIDITY);
    await expectCompleteWalks(
      site,
      ids.acmeGateway1,
      humidity,
      { register_id: site.registerUuid(HUMIDITY), limit: 97 },
      { since: now - day, until: now },
    );
  });

  test("a gateway with a single register, without register_id", async () => {
    const site = await newSite();
    const seeds: Seed[] = [];
    for (let i = 0; i < 250; i++) seeds.push({ path: FLOW, ts: now - 5 * hour + i * minute, raw: i });
    await record(site, seeds);
    await expectCompleteWalks(site, ids.acmeGateway2, seeds, { limit: 97 }, { since: now - day, until: now });
  });

  test("sparse history over 7 days with long gaps, all registers, small limits", async () => {
    const site = await newSite();
    const since = now - 7 * day;
    const seeds: Seed[] = [
      { path: AIR, ts: since, raw: 1 }, // the window's first instant
      { path: POWER, ts: since, raw: 2 },
      { path: ENERGY, ts: since + second, raw: 3 },
      { path: AIR, ts: since + 3 * hour, raw: 4 },
      { path: HUMIDITY, ts: since + 2 * day, raw: 5 },
      { path: POWER, ts: since + 2 * day, raw: 6 },
      { path: ENERGY, ts: since + 2 * day, raw: 7 },
      { path: SETPOINT, ts: since + 2 * day + second, raw: 8 },
      { path: AIR, ts: since + 5 * day + 7 * hour, raw: 9 },
      { path: HUMIDITY, ts: since + 6 * day + 23 * hour + 59 * minute, raw: 10 },
      { path: ENERGY, ts: now - second, raw: 11 }, // the window's last stored second
    ];
    await record(site, [...seeds, { path: AIR, ts: since - second, raw: -1 }, { path: AIR, ts: now, raw: -2 }]);
    for (const limit of [1, 2, 3, 4, 10]) {
      await expectCompleteWalks(site, ids.acmeGateway1, seeds, { since: iso(since), limit }, { since, until: now });
    }
  });

  test("sparse single-register history over 366 days", async () => {
    const site = await newSite();
    const since = now - 366 * day;
    const seeds: Seed[] = [];
    for (let i = 0; i < 13; i++) seeds.push({ path: ENERGY, ts: since + i * 28 * day + i * hour, raw: i });
    seeds.push({ path: ENERGY, ts: now - second, raw: 99 });
    await record(site, seeds);
    for (const limit of [1, 2, 5]) {
      await expectCompleteWalks(
        site,
        ids.acmeGateway1,
        seeds,
        { register_id: site.registerUuid(ENERGY), since: iso(since), limit },
        { since, until: now },
      );
    }
  });

  test("history denser than one per minute (one per second), several registers and one", async () => {
    const site = await newSite();
    const seeds: Seed[] = [];
    const start = now - 2 * hour;
    for (let s = 0; s < 600; s++) {
      [AIR, HUMIDITY, POWER].forEach((path, k) => {
        // Even steps shared by all three, odd steps a second apart.
        seeds.push({ path, ts: start + s * 3 * second + (s % 2 === 0 ? 0 : k * second), raw: s * 10 + k });
      });
    }
    // Bursts of a reading every second (the finest stored time) on two registers:
    // consecutive instants leave no room for an off-by-one at a page boundary.
    for (let j = 0; j < 300; j++) seeds.push({ path: ENERGY, ts: start + 40 * minute + j * second, raw: 100_000 + j });
    for (let j = 0; j < 300; j++)
      seeds.push({ path: SETPOINT, ts: start + 50 * minute + j * second, raw: 200_000 + j });
    await record(site, seeds);
    const window = { since: now - day, until: now };
    await expectCompleteWalks(site, ids.acmeGateway1, seeds, { limit: 97 }, window);
    await expectCompleteWalks(site, ids.acmeGateway1, seeds, { limit: 1000 }, window);
    for (const path of [ENERGY, SETPOINT]) {
      await expectCompleteWalks(
        site,
        ids.acmeGateway1,
        seeds.filter((seed) => seed.path === path),
        { register_id: site.registerUuid(path), limit: 97 },
        window,
      );
    }
  });

  test("a history that fills its pages exactly ends without an empty extra page", async () => {
    const site = await newSite();
    const seeds: Seed[] = [];
    for (let i = 0; i < 97; i++) {
      seeds.push({ path: AIR, ts: now - 3 * hour + i * minute, raw: i });
      seeds.push({ path: POWER, ts: now - 3 * hour + i * minute, raw: 1000 + i });
    }
    await record(site, seeds);
    for (const order of ["desc", "asc"] as const) {
      const { pages } = await walk(site, ids.acmeGateway1, { order, limit: 97 });
      expect(pages.map((page) => [page.data.length, page.meta.has_more])).toEqual([
        [97, true],
        [97, false],
      ]);
      const single = await walk(site, ids.acmeGateway1, { order, limit: 97, register_id: site.registerUuid(AIR) });
      expect(single.pages.map((page) => [page.data.length, page.meta.has_more])).toEqual([[97, false]]);
    }
  });
});

describe("cursor pagination while readings arrive", () => {
  /** 3 registers, one reading a minute each for the last 400 minutes before now. */
  async function seedRecent(site: TestSite): Promise<Seed[]> {
    const seeds: Seed[] = [];
    for (let i = 1; i <= 400; i++) {
      [AIR, HUMIDITY, POWER].forEach((path, k) => {
        seeds.push({ path, ts: now - i * minute + (i % 5 === 0 ? 0 : k * second), raw: i * 10 + k });
      });
    }
    await record(site, seeds);
    return seeds;
  }

  /** Readings a live gateway would write after the traversal started: at "now", just after it, later on. */
  async function arrive(site: TestSite, from: number, raw: number): Promise<void> {
    await record(
      site,
      [AIR, HUMIDITY, POWER, ENERGY].flatMap((path, k) => [
        { path, ts: from, raw: raw + k },
        { path, ts: from + second, raw: raw + 10 + k },
        { path, ts: from + 30_000, raw: raw + 20 + k },
      ]),
    );
  }

  for (const order of ["desc", "asc"] as const) {
    test(`default until (${order}): rows written at and after "now" during the walk are not returned, none skipped or repeated`, async () => {
      const site = await newSite();
      const seeds = await seedRecent(site);
      const { pages, rows } = await walk(
        site,
        ids.acmeGateway1,
        { order, limit: 97 },
        {
          afterPage: async (pageNumber) => {
            // After page 1: readings at exactly the pinned until (the old now) and later.
            if (pageNumber === 1) await arrive(site, now, 50_000);
            // Later: time moves on and more readings come in, at the new "now" too.
            site.clock.advance(2 * minute);
            await arrive(site, site.clock.now(), 60_000 + pageNumber * 100);
          },
        },
      );
      expect(pages.length).toBe(Math.ceil(1200 / 97));
      // The pinned window is the one of the first request, on every page.
      for (const page of pages) {
        expect(page.meta.since).toBe("2026-03-09T12:00:00.000Z");
        expect(page.meta.until).toBe("2026-03-10T12:00:00.000Z");
      }
      expect(walkedKeys(rows)).toEqual(
        expectedOrder(site, seeds, order, { since: now - day, until: now }, tieOrder(rows)),
      );

      // The new readings are real: a fresh request (window now ending later) does see them.
      const fresh = await fetchPage(site, ids.acmeGateway1, { limit: 1000 });
      expect(fresh.data.some((row) => row.raw_value === 50_000)).toBe(true);
      expect(fresh.data.some((row) => row.raw_value === 50_020)).toBe(true);
    });
  }

  test("explicit until in the future (asc): every row that existed is returned once, in order", async () => {
    const site = await newSite();
    const seeds = await seedRecent(site);
    const since = now - 300 * minute;
    const arrived = new Set<number>();
    const { rows } = await walk(
      site,
      ids.acmeGateway1,
      { order: "asc", since: iso(since), until: iso(now + hour), limit: 97 },
      {
        afterPage: async (pageNumber) => {
          // Readings written inside the requested window while the walk is under way.
          site.clock.advance(minute);
          const raw = 90_000 + pageNumber * 100;
          await arrive(site, site.clock.now(), raw);
          for (let k = 0; k < 24; k++) arrived.add(raw + k);
        },
      },
    );
    walkedKeys(rows); // nothing repeated
    // Rows that arrived later may or may not be included (the spec leaves it open); rows that existed must all come, in order.
    const existing = rows.filter((row) => !arrived.has(row.raw_value ?? -1));
    expect(existing.map(rowKey)).toEqual(expectedOrder(site, seeds, "asc", { since, until: now }, tieOrder(existing)));
  });

  test("explicit until in the past (asc, mirroring): rows written at and after until during the walk are not returned", async () => {
    const site = await newSite();
    const seeds = await seedRecent(site);
    const until = now - 100 * minute;
    const since = now - 300 * minute;
    const { pages, rows } = await walk(
      site,
      ids.acmeGateway1,
      { order: "asc", since: iso(since), until: iso(until), limit: 97 },
      {
        afterPage: async (pageNumber) => {
          if (pageNumber === 1) await arrive(site, until, 70_000);
          site.clock.advance(minute);
          await arrive(site, site.clock.now(), 80_000 + pageNumber * 100);
        },
      },
    );
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) {
      expect(page.meta.since).toBe(iso(since));
      expect(page.meta.until).toBe(iso(until));
    }
    expect(walkedKeys(rows)).toEqual(expectedOrder(site, seeds, "asc", { since, until }, tieOrder(rows)));
  });
});

// ---------------------------------------------------------------------------
// Cursor misuse
// ---------------------------------------------------------------------------

describe("cursor misuse", () => {
  const base64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  /** A site with enough rows for several pages, and the parameters and cursor of a first page. */
  async function firstPage() {
    const site = await newSite();
    const seeds: Seed[] = [];
    for (let i = 0; i < 40; i++) {
      [AIR, HUMIDITY, POWER].forEach((path, k) => {
        seeds.push({ path, ts: now - 3 * hour + i * minute, raw: i * 10 + k });
      });
    }
    await record(site, seeds);
    const params = {
      register_id: `${site.registerUuid(AIR)},${site.registerUuid(HUMIDITY)}`,
      since: iso(now - 5 * hour),
      until: iso(now - hour),
      order: "asc",
      limit: 5,
    };
    const page = await fetchPage(site, ids.acmeGateway1, params);
    expect(page.meta.has_more).toBe(true);
    const cursor = page.meta.next_cursor!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    // The control: the same parameters with the cursor are accepted and go on exactly where page 1 stopped.
    const second = await fetchPage(site, ids.acmeGateway1, { ...params, cursor });
    const both = await fetchPage(site, ids.acmeGateway1, { ...params, limit: 10 });
    expect([...page.data, ...second.data]).toEqual(both.data);
    return { site, params, cursor };
  }

  test("a tampered cursor is 400 invalid_parameter", async () => {
    const { site, params, cursor } = await firstPage();
    const tampered: string[] = [];
    // Every single-character change. The replacement differs in the character's top bit: the last
    // character of a 53-byte cursor also carries two padding bits that base64url decoding ignores,
    // and a change confined to those decodes to the very same cursor (accepted, harmlessly).
    for (let i = 0; i < cursor.length; i++) {
      const flipped = base64url[base64url.indexOf(cursor[i]!) ^ 0b100000]!;
      tampered.push(cursor.slice(0, i) + flipped + cursor.slice(i + 1));
    }
    tampered.push(
      cursor.slice(0, -1), // truncated by one
      cursor.slice(0, Math.floor(cursor.length / 2)), // truncated by half
      `${cursor}A`, // one character too many
      `${cursor}AAAA`, // three bytes too many
      Buffer.from(crypto.getRandomValues(new Uint8Array(53))).toString("base64url"), // right length, random
      Buffer.from("hello cursor").toString("base64url"),
      `${cursor.slice(0, 10)}!${cursor.slice(11)}`, // not base64 at all
      `${cursor.slice(0, 10)}+/${cursor.slice(12)}`, // standard base64, not base64url
      `${cursor}=`, // padded
      `${cursor.slice(0, 10)} ${cursor.slice(11)}`,
      "A".repeat(256), // as long as allowed
      "A".repeat(257), // longer than allowed
      cursor.repeat(40), // very long
    );
    for (const bad of tampered) {
      expectInvalid(await request(site, ids.acmeGateway1, { ...params, cursor: bad }), "cursor");
    }
  });

  test("a valid cursor with any other parameter changed is 400 invalid_parameter", async () => {
    const { site, params, cursor } = await firstPage();
    const air = site.registerUuid(AIR);
    const humidity = site.registerUuid(HUMIDITY);
    const changed: Params[] = [
      { ...params, register_id: air },
      { ...params, register_id: `${air},${site.registerUuid(POWER)}` },
      { ...params, register_id: undefined },
      { ...params, register_id: `${humidity},${air}` },
      { ...params, order: "desc" },
      { ...params, order: undefined },
      { ...params, limit: 6 },
      { ...params, limit: undefined },
      { ...params, since: iso(now - 5 * hour - 1) },
      { ...params, since: undefined },
      { ...params, until: iso(now - hour + 1) },
      { ...params, until: undefined },
    ];
    for (const other of changed) {
      expectInvalid(await request(site, ids.acmeGateway1, { ...other, cursor }), "cursor");
    }
  });

  test("a cursor from one gateway is 400 on another (also of the other organisation)", async () => {
    const site = await newSite();
    const seeds: Seed[] = [];
    for (let i = 0; i < 10; i++) {
      seeds.push({ path: AIR, ts: now - hour + i * minute, raw: i });
      seeds.push({ path: FLOW, ts: now - hour + i * minute, raw: 100 + i });
      seeds.push({ path: VOLTAGE, ts: now - hour + i * minute, raw: 200 + i });
    }
    await record(site, seeds);
    const page = await fetchPage(site, ids.acmeGateway1, { limit: 3 });
    const cursor = page.meta.next_cursor!;
    expect(cursor).toBeString();
    expectInvalid(await request(site, ids.acmeGateway2, { limit: 3, cursor }), "cursor");
    expectInvalid(await request(site, ids.globexGateway, { limit: 3, cursor }, site.keys.globex), "cursor");
    // And back on its own gateway it still works.
    const next = await fetchPage(site, ids.acmeGateway1, { limit: 3, cursor });
    expect(next.data.map((row) => row.raw_value)).toEqual([6, 5, 4]);
  });
});

// ---------------------------------------------------------------------------
// Query parameters in general
// ---------------------------------------------------------------------------

describe("query parameters", () => {
  test("an unknown parameter is 400 invalid_parameter naming it", async () => {
    const site = await newSite();
    for (const name of ["offset", "registers", "device_id", "Limit"]) {
      expectInvalid(await request(site, ids.acmeGateway1, { [name]: "1" }), name);
    }
  });

  test("a repeated parameter is 400 invalid_parameter naming it", async () => {
    const site = await newSite();
    const air = site.registerUuid(AIR);
    for (const query of [
      "limit=1&limit=2",
      "limit=5&limit=5",
      "order=asc&order=desc",
      `register_id=${air}&register_id=${site.registerUuid(POWER)}`,
      `since=${iso(now - hour)}&since=${iso(now - 2 * hour)}`,
    ]) {
      const name = query.split("=")[0]!;
      const response = await call(site.baseUrl, `/v1/devices/${ids.acmeGateway1}/readings?${query}`, {
        key: site.keys.acme,
      });
      expectInvalid(response, name);
    }
  });
});
