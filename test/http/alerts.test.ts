/** docs/api.md sections 2 (Alert), 4 (GET /alerts), 5.3 (one organisation per key) and introspection's open_alerts. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, expectApiHeaders, expectProblem } from "../harness/http.ts";
import { ids, startTestSite, startTime, type TestSite } from "../harness/site.ts";

type Alert = {
  id: string;
  device_id: string | null;
  rule_id: string | null;
  severity: string;
  message: string;
  status: string;
  value: number | null;
  created_at: string;
  last_triggered_at: string | null;
  returned_at: string | null;
  ack_at: string | null;
  ack_note: string | null;
  resolved_at: string | null;
  resolve_note: string | null;
  entry_count: number;
};
type AlertList = { data: Alert[]; meta: { total: number; limit: number; offset: number } };

const minute = 60_000;
const at = (minutesBeforeStart: number) => startTime - minutesBeforeStart * minute;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

interface Fixture {
  uuid: string;
  org: "acme" | "globex";
  gatewaySerial: string | null;
  ruleId: string | null;
  severity: "critical" | "warning" | "info";
  message: string;
  status: "active" | "returned" | "acknowledged" | "resolved";
  value: number | null;
  createdAt: number;
  lastTriggeredAt: number;
  returnedAt: number | null;
  ackAt: number | null;
  ackNote: string | null;
  resolvedAt: number | null;
  resolveNote: string | null;
  entryCount: number;
}

const base = {
  returnedAt: null,
  ackAt: null,
  ackNote: null,
  resolvedAt: null,
  resolveNote: null,
  entryCount: 1,
};

/**
 * Acme alerts, one per line; last_triggered_at order (newest first) is
 * A5, A3, A1, A6, A2, A4. A3 was created before A1 but triggered after it, so
 * sorting by created_at would give another order.
 */
const fixtures: Fixture[] = [
  {
    ...base,
    uuid: "a1000000-0000-4000-8000-000000000001",
    org: "acme",
    gatewaySerial: "ACME-1",
    ruleId: "f1000000-0000-4000-8000-000000000001",
    severity: "critical",
    message: "air_temperature above 30 °C",
    status: "active",
    value: 31.5,
    createdAt: at(60),
    lastTriggeredAt: at(10),
    entryCount: 3,
  },
  {
    ...base,
    uuid: "a1000000-0000-4000-8000-000000000002",
    org: "acme",
    gatewaySerial: "ACME-2",
    ruleId: "f1000000-0000-4000-8000-000000000002",
    severity: "warning",
    message: "Greenhouse 2 offline",
    status: "returned",
    value: null,
    createdAt: at(120),
    lastTriggeredAt: at(90),
    returnedAt: at(75),
  },
  {
    ...base,
    uuid: "a1000000-0000-4000-8000-000000000003",
    org: "acme",
    gatewaySerial: "ACME-1",
    ruleId: "f1000000-0000-4000-8000-000000000003",
    severity: "info",
    message: "humidity below 40 %RH",
    status: "acknowledged",
    value: 38.2,
    createdAt: at(180),
    lastTriggeredAt: at(5),
    ackAt: at(4),
    ackNote: "vent closed",
    entryCount: 7,
  },
  {
    ...base,
    uuid: "a1000000-0000-4000-8000-000000000004",
    org: "acme",
    gatewaySerial: null,
    ruleId: null,
    severity: "warning",
    message: "organisation-wide notice",
    status: "resolved",
    value: null,
    createdAt: at(240),
    lastTriggeredAt: at(235),
    resolvedAt: at(180),
    resolveNote: "done",
  },
  {
    ...base,
    uuid: "a1000000-0000-4000-8000-000000000005",
    org: "acme",
    gatewaySerial: "ACME-4",
    ruleId: "f1000000-0000-4000-8000-000000000005",
    severity: "critical",
    message: "Boiler room error",
    status: "resolved",
    value: 0,
    createdAt: at(30),
    lastTriggeredAt: at(2),
    returnedAt: at(1.5),
    ackAt: at(1.25),
    ackNote: "seen",
    resolvedAt: at(1),
    resolveNote: "reset the controller",
    entryCount: 2,
  },
  {
    ...base,
    uuid: "a1000000-0000-4000-8000-000000000006",
    org: "acme",
    gatewaySerial: "ACME-1",
    ruleId: "f1000000-0000-4000-8000-000000000006",
    severity: "warning",
    message: "energy above 1000 kWh",
    status: "active",
    value: -12.25,
    createdAt: at(50),
    lastTriggeredAt: at(50),
  },
  // Globex: triggered most recently of all, so a leak would head every acme list.
  {
    ...base,
    uuid: "b2000000-0000-4000-8000-000000000001",
    org: "globex",
    gatewaySerial: "GLOBEX-1",
    ruleId: "f2000000-0000-4000-8000-000000000001",
    severity: "critical",
    message: "voltage above 250 V",
    status: "active",
    value: 252,
    createdAt: at(1),
    lastTriggeredAt: at(0.5),
  },
  {
    ...base,
    uuid: "b2000000-0000-4000-8000-000000000002",
    org: "globex",
    gatewaySerial: "GLOBEX-1",
    ruleId: "f2000000-0000-4000-8000-000000000002",
    severity: "warning",
    message: "voltage below 210 V",
    status: "returned",
    value: 209,
    createdAt: at(3),
    lastTriggeredAt: at(3),
    returnedAt: at(2.5),
  },
  {
    ...base,
    uuid: "b2000000-0000-4000-8000-000000000003",
    org: "globex",
    gatewaySerial: "GLOBEX-1",
    ruleId: null,
    severity: "info",
    message: "Substation resolved",
    status: "resolved",
    value: null,
    createdAt: at(20),
    lastTriggeredAt: at(20),
    resolvedAt: at(15),
    resolveNote: "ok",
  },
];

const gatewayUuid: Record<string, string> = {
  "ACME-1": ids.acmeGateway1,
  "ACME-2": ids.acmeGateway2,
  "ACME-3": ids.acmeGateway3,
  "ACME-4": ids.acmeGateway4,
  "GLOBEX-1": ids.globexGateway,
};

const expectedAlert = (fixture: Fixture): Alert => ({
  id: fixture.uuid,
  device_id: fixture.gatewaySerial === null ? null : (gatewayUuid[fixture.gatewaySerial] ?? "?"),
  rule_id: fixture.ruleId,
  severity: fixture.severity,
  message: fixture.message,
  status: fixture.status,
  value: fixture.value,
  created_at: iso(fixture.createdAt)!,
  last_triggered_at: iso(fixture.lastTriggeredAt),
  returned_at: iso(fixture.returnedAt),
  ack_at: iso(fixture.ackAt),
  ack_note: fixture.ackNote,
  resolved_at: iso(fixture.resolvedAt),
  resolve_note: fixture.resolveNote,
  entry_count: fixture.entryCount,
});

/** An org's alerts as the API should list them: most recently triggered first, then filtered. */
const expectedList = (org: "acme" | "globex", keep: (fixture: Fixture) => boolean = () => true) =>
  fixtures
    .filter((fixture) => fixture.org === org && keep(fixture))
    .sort((a, b) => b.lastTriggeredAt - a.lastTriggeredAt)
    .map(expectedAlert);

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
  // Inserted in an order that is neither the triggered nor the created order.
  for (const index of [3, 0, 6, 5, 1, 8, 4, 2, 7]) {
    const { org, gatewaySerial, ...alert } = fixtures[index]!;
    await site.addAlert({ org, gatewaySerial, ...alert });
  }
});
afterAll(async () => {
  await site.stop();
});

const alerts = (query = "", key = site.keys.acme) => call<AlertList>(site.baseUrl, `/v1/alerts${query}`, { key });

describe("GET /v1/alerts: fields and order", () => {
  test("every Alert field with its exact value, most recently triggered first", async () => {
    const response = await alerts();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expectApiHeaders(response);
    const want = expectedList("acme");
    expect(want.map((alert) => alert.id.slice(-1))).toEqual(["5", "3", "1", "6", "2", "4"]);
    expect(response.body).toEqual({ data: want, meta: { total: 6, limit: 50, offset: 0 } });
    for (const alert of response.body.data) {
      expect(Object.keys(alert).sort()).toEqual(Object.keys(want[0]!).sort());
    }
  });

  test("last_triggered_at is non-increasing down the list", async () => {
    const { body } = await alerts();
    const times = body.data.map((alert) => Date.parse(alert.last_triggered_at ?? ""));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  test("an alert that fires again moves to the top", async () => {
    const other = await startTestSite();
    try {
      for (const fixture of fixtures.filter((f) => f.org === "acme")) {
        const { org, gatewaySerial, ...alert } = fixture;
        await other.addAlert({ org, gatewaySerial, ...alert });
      }
      // A2 fires again now: same alert, later last_triggered_at, higher entry_count.
      await other.execute(
        "UPDATE alerts SET last_triggered_at = ?, entry_count = entry_count + 1 WHERE uuid = ?",
        startTime,
        fixtures[1]!.uuid,
      );
      const response = await call<AlertList>(other.baseUrl, "/v1/alerts", { key: other.keys.acme });
      expect(response.body.data.map((alert) => alert.id.slice(-1))).toEqual(["2", "5", "3", "1", "6", "4"]);
      expect(response.body.data[0]).toEqual({
        ...expectedAlert(fixtures[1]!),
        last_triggered_at: iso(startTime),
        entry_count: 2,
      });
    } finally {
      await other.stop();
    }
  });
});

describe("filters", () => {
  test("status: each value", async () => {
    for (const status of ["active", "returned", "acknowledged", "resolved"] as const) {
      const response = await alerts(`?status=${status}`);
      expect(response.status).toBe(200);
      const want = expectedList("acme", (fixture) => fixture.status === status);
      expect(want.length).toBeGreaterThan(0);
      expect(response.body).toEqual({ data: want, meta: { total: want.length, limit: 50, offset: 0 } });
    }
  });

  test("severity: each value", async () => {
    for (const severity of ["critical", "warning", "info"] as const) {
      const response = await alerts(`?severity=${severity}`);
      expect(response.status).toBe(200);
      const want = expectedList("acme", (fixture) => fixture.severity === severity);
      expect(want.length).toBeGreaterThan(0);
      expect(response.body).toEqual({ data: want, meta: { total: want.length, limit: 50, offset: 0 } });
    }
  });

  test("device_id: each gateway of the organisation, including ones without alerts", async () => {
    for (const serial of ["ACME-1", "ACME-2", "ACME-3", "ACME-4"]) {
      const response = await alerts(`?device_id=${gatewayUuid[serial]}`);
      expect(response.status).toBe(200);
      const want = expectedList("acme", (fixture) => fixture.gatewaySerial === serial);
      expect(response.body).toEqual({ data: want, meta: { total: want.length, limit: 50, offset: 0 } });
    }
    expect((await alerts(`?device_id=${ids.acmeGateway1}`)).body.data.map((a) => a.id.slice(-1))).toEqual([
      "3",
      "1",
      "6",
    ]);
    expect((await alerts(`?device_id=${ids.acmeGateway3}`)).body).toEqual({
      data: [],
      meta: { total: 0, limit: 50, offset: 0 },
    });
  });

  test("combined filters all apply", async () => {
    const cases: [string, (fixture: Fixture) => boolean][] = [
      ["status=active&severity=critical", (f) => f.status === "active" && f.severity === "critical"],
      ["status=active&severity=warning", (f) => f.status === "active" && f.severity === "warning"],
      ["status=resolved&severity=warning", (f) => f.status === "resolved" && f.severity === "warning"],
      ["status=resolved&severity=info", (f) => f.status === "resolved" && f.severity === "info"],
      [`status=active&device_id=${ids.acmeGateway1}`, (f) => f.status === "active" && f.gatewaySerial === "ACME-1"],
      [
        `severity=warning&device_id=${ids.acmeGateway1}`,
        (f) => f.severity === "warning" && f.gatewaySerial === "ACME-1",
      ],
      [
        `status=active&severity=critical&device_id=${ids.acmeGateway1}`,
        (f) => f.status === "active" && f.severity === "critical" && f.gatewaySerial === "ACME-1",
      ],
      [
        `status=resolved&severity=critical&device_id=${ids.acmeGateway1}`,
        (f) => f.status === "resolved" && f.severity === "critical" && f.gatewaySerial === "ACME-1",
      ],
    ];
    for (const [query, keep] of cases) {
      const response = await alerts(`?${query}`);
      expect(response.status).toBe(200);
      const want = expectedList("acme", keep);
      expect(response.body).toEqual({ data: want, meta: { total: want.length, limit: 50, offset: 0 } });
    }
    // Spot checks, so the expectation helper cannot hide a mistake.
    expect((await alerts("?status=active&severity=warning")).body.data.map((a) => a.id.slice(-1))).toEqual(["6"]);
    expect((await alerts("?status=resolved&severity=info")).body.data).toEqual([]);
  });

  test("an unknown status or severity is 400 invalid_parameter", async () => {
    for (const query of [
      "status=open",
      "status=ACTIVE",
      "status=",
      "severity=error",
      "severity=Critical",
      "severity=",
      "status=active,resolved",
    ]) {
      const response = await alerts(`?${query}`);
      expectProblem(response, 400, "invalid_parameter");
      expectApiHeaders(response);
    }
  });

  test("a device_id of another organisation's gateway is 404 not_found, both ways", async () => {
    const response = await alerts(`?device_id=${ids.globexGateway}`);
    expectProblem(response, 404, "not_found");
    expectApiHeaders(response);
    for (const id of [ids.acmeGateway1, ids.acmeGateway2, ids.acmeGateway3, ids.acmeGateway4]) {
      expectProblem(await alerts(`?device_id=${id}`, site.keys.globex), 404, "not_found");
    }
  });

  test("an unknown device_id is 404 not_found", async () => {
    expectProblem(await alerts("?device_id=00000000-0000-4000-8000-000000000000"), 404, "not_found");
  });

  test("device_id is case-insensitive: the upper-case form filters the same gateway", async () => {
    const upper = await alerts(`?device_id=${ids.acmeGateway1.toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect(upper.body).toEqual((await alerts(`?device_id=${ids.acmeGateway1}`)).body);
  });

  test("a malformed device_id is 400 invalid_parameter", async () => {
    for (const value of ["xyz", "", "ACME-1", ids.acmeGateway1.slice(0, -1), `${ids.acmeGateway1}0`]) {
      const response = await alerts(`?device_id=${encodeURIComponent(value)}`);
      expectProblem(response, 400, "invalid_parameter");
      expectApiHeaders(response);
    }
  });

  test("unknown or repeated parameters are 400", async () => {
    expectProblem(await alerts(`?gateway_id=${ids.acmeGateway1}`), 400, "invalid_parameter");
    expectProblem(await alerts("?status=active&status=resolved"), 400, "invalid_parameter");
  });
});

describe("paging", () => {
  test("limit 1 walks every alert once in order; total is always the full count", async () => {
    const want = expectedList("acme");
    const seen: Alert[] = [];
    for (let offset = 0; offset < want.length; offset++) {
      const response = await alerts(`?limit=1&offset=${offset}`);
      expect(response.status).toBe(200);
      expect(response.body.meta).toEqual({ total: 6, limit: 1, offset });
      expect(response.body.data).toHaveLength(1);
      seen.push(response.body.data[0]!);
    }
    expect(seen).toEqual(want);
    expect((await alerts("?limit=1&offset=6")).body).toEqual({ data: [], meta: { total: 6, limit: 1, offset: 6 } });
  });

  test("limit and offset with a filter: total counts the filtered rows", async () => {
    const want = expectedList("acme", (fixture) => fixture.gatewaySerial === "ACME-1");
    const first = await alerts(`?device_id=${ids.acmeGateway1}&limit=2`);
    const second = await alerts(`?device_id=${ids.acmeGateway1}&limit=2&offset=2`);
    expect(first.body).toEqual({ data: want.slice(0, 2), meta: { total: 3, limit: 2, offset: 0 } });
    expect(second.body).toEqual({ data: want.slice(2), meta: { total: 3, limit: 2, offset: 2 } });
  });

  test("limit 1..100 accepted, anything else 400; offset >= 0, huge is 400 not 500", async () => {
    for (const limit of [1, 6, 7, 100]) {
      const response = await alerts(`?limit=${limit}`);
      expect(response.status).toBe(200);
      expect(response.body.meta).toEqual({ total: 6, limit, offset: 0 });
      expect(response.body.data).toHaveLength(Math.min(limit, 6));
    }
    for (const limit of ["0", "-1", "101", "1.5", "abc", "", "99999999999999999999"]) {
      expectProblem(await alerts(`?limit=${encodeURIComponent(limit)}`), 400, "invalid_parameter");
    }
    for (const offset of ["-1", "1.5", "abc", "", "99999999999999999999", "9007199254740993"]) {
      const response = await alerts(`?offset=${encodeURIComponent(offset)}`);
      expectProblem(response, 400, "invalid_parameter");
      expectApiHeaders(response);
    }
    const far = await alerts("?offset=2147483647");
    expect(far.body).toEqual({ data: [], meta: { total: 6, limit: 50, offset: 2147483647 } });
  });

  test("limit defaults to 50 and caps at 100 with many alerts", async () => {
    const other = await startTestSite();
    try {
      for (let i = 0; i < 120; i++) {
        await other.addAlert({
          org: "acme",
          gatewaySerial: i % 2 === 0 ? "ACME-1" : "ACME-2",
          uuid: `c3000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
          severity: "info",
          message: `alert ${i}`,
          status: "active",
          createdAt: startTime - 200 * minute,
          // Alert i triggered i minutes ago: newest first means i ascending.
          lastTriggeredAt: startTime - i * minute,
        });
      }
      const page = (query: string) => call<AlertList>(other.baseUrl, `/v1/alerts${query}`, { key: other.keys.acme });
      const byDefault = await page("");
      expect(byDefault.body.meta).toEqual({ total: 120, limit: 50, offset: 0 });
      expect(byDefault.body.data.map((alert) => alert.message)).toEqual(
        Array.from({ length: 50 }, (_, i) => `alert ${i}`),
      );
      const max = await page("?limit=100&offset=50");
      expect(max.body.meta).toEqual({ total: 120, limit: 100, offset: 50 });
      expect(max.body.data.map((alert) => alert.message)).toEqual(
        Array.from({ length: 70 }, (_, i) => `alert ${i + 50}`),
      );
      expect((await page(`?device_id=${ids.acmeGateway2}&limit=100`)).body.meta).toEqual({
        total: 60,
        limit: 100,
        offset: 0,
      });
      expectProblem(await page("?limit=101"), 400, "invalid_parameter");
    } finally {
      await other.stop();
    }
  });
});

describe("organisations", () => {
  test("globex sees its own alerts only, in order", async () => {
    const response = await alerts("", site.keys.globex);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: expectedList("globex"), meta: { total: 3, limit: 50, offset: 0 } });
    expect(response.body.data.map((alert) => alert.id)).toEqual([
      "b2000000-0000-4000-8000-000000000001",
      "b2000000-0000-4000-8000-000000000002",
      "b2000000-0000-4000-8000-000000000003",
    ]);
  });

  test("no filter, page or combination shows the other organisation's alerts", async () => {
    const queries = [
      "",
      "?status=active",
      "?status=returned",
      "?status=acknowledged",
      "?status=resolved",
      "?severity=critical",
      "?severity=warning",
      "?severity=info",
      "?limit=100",
      "?limit=1&offset=0",
      "?status=active&severity=critical",
    ];
    const acmeIds = new Set(fixtures.filter((f) => f.org === "acme").map((f) => f.uuid));
    const globexIds = new Set(fixtures.filter((f) => f.org === "globex").map((f) => f.uuid));
    for (const query of queries) {
      const fromAcme = await alerts(query);
      const fromGlobex = await alerts(query, site.keys.globex);
      expect(fromAcme.status).toBe(200);
      expect(fromGlobex.status).toBe(200);
      for (const alert of fromAcme.body.data) expect(acmeIds.has(alert.id)).toBe(true);
      for (const alert of fromGlobex.body.data) expect(globexIds.has(alert.id)).toBe(true);
      for (const alert of fromAcme.body.data) expect(alert.device_id).not.toBe(ids.globexGateway);
      for (const alert of fromGlobex.body.data) expect(alert.device_id).toBe(ids.globexGateway);
    }
    // Totals are the organisation's own counts.
    expect((await alerts("?status=active")).body.meta.total).toBe(2);
    expect((await alerts("?status=active", site.keys.globex)).body.meta.total).toBe(1);
    expect((await alerts("?severity=critical")).body.meta.total).toBe(2);
    expect((await alerts("?severity=critical", site.keys.globex)).body.meta.total).toBe(1);
  });

  test("introspect stats.open_alerts counts the key's organisation's non-resolved alerts", async () => {
    type Introspection = { data: { stats: { gateways: number; devices: number; open_alerts: number } } };
    const acme = await call<Introspection>(site.baseUrl, "/v1/introspect", { key: site.keys.acme });
    const globex = await call<Introspection>(site.baseUrl, "/v1/introspect", { key: site.keys.globex });
    // Acme: active A1, A6; returned A2; acknowledged A3 (A4, A5 resolved).
    expect(acme.body.data.stats).toEqual({ gateways: 4, devices: 4, open_alerts: 4 });
    // Globex: active and returned; one resolved.
    expect(globex.body.data.stats).toEqual({ gateways: 1, devices: 1, open_alerts: 2 });
    // Any key of the organisation, whatever its scopes.
    const noScopes = await call<Introspection>(site.baseUrl, "/v1/introspect", { key: site.keys.acmeNoScopes });
    expect(noScopes.body.data.stats.open_alerts).toBe(4);
  });

  test("open_alerts follows a change of status", async () => {
    const other = await startTestSite();
    try {
      const introspect = async (key: string) =>
        (await call<{ data: { stats: { open_alerts: number } } }>(other.baseUrl, "/v1/introspect", { key })).body.data
          .stats.open_alerts;
      expect(await introspect(other.keys.acme)).toBe(0);
      await other.addAlert({
        org: "acme",
        gatewaySerial: "ACME-1",
        uuid: "d4000000-0000-4000-8000-000000000001",
        severity: "critical",
        message: "x",
        status: "active",
        createdAt: startTime,
        lastTriggeredAt: startTime,
      });
      expect(await introspect(other.keys.acme)).toBe(1);
      expect(await introspect(other.keys.globex)).toBe(0);
      for (const [status, open] of [
        ["returned", 1],
        ["acknowledged", 1],
        ["resolved", 0],
      ] as const) {
        await other.execute(
          "UPDATE alerts SET status = ? WHERE uuid = ?",
          status,
          "d4000000-0000-4000-8000-000000000001",
        );
        expect(await introspect(other.keys.acme)).toBe(open);
      }
    } finally {
      await other.stop();
    }
  });
});
