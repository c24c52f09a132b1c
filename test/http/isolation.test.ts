/**
 * docs/api.md section 5.3: each key belongs to one organisation; all data returned is that
 * organisation's, and a resource of another organisation is 404 not_found. Every
 * endpoint and every filter, both ways (acme <-> globex).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stableUuid } from "../../src/lib/ids.ts";
import { type ApiResponse, call, expectApiHeaders, expectProblem } from "../harness/http.ts";
import { ids, startTestSite, startTime, type TestSite } from "../harness/site.ts";

let site: TestSite;

const acmeGateways = [ids.acmeGateway1, ids.acmeGateway2, ids.acmeGateway3, ids.acmeGateway4];
const acmeModbusDevices = [
  stableUuid("modbus-device", "ACME-1", "Climate computer"),
  stableUuid("modbus-device", "ACME-1", "Energy meter"),
  stableUuid("modbus-device", "ACME-2", ":/7"),
];
const globexModbusDevice = stableUuid("modbus-device", "GLOBEX-1", "Meter");
const acmeRegisterPaths = [
  "ACME-1/Climate computer/air_temperature",
  "ACME-1/Climate computer/humidity",
  "ACME-1/Climate computer/setpoint",
  "ACME-1/Energy meter/power",
  "ACME-1/Energy meter/energy",
  "ACME-2/7/flow_temperature",
];
const globexRegisterPath = "GLOBEX-1/Meter/voltage";

const alertIds = {
  acme: [
    "a1000000-0000-4000-8000-000000000001",
    "a1000000-0000-4000-8000-000000000002",
    "a1000000-0000-4000-8000-000000000003",
  ],
  globex: ["b2000000-0000-4000-8000-000000000001", "b2000000-0000-4000-8000-000000000002"],
};

beforeAll(async () => {
  site = await startTestSite();
  const now = site.clock.now();
  // Readings in both organisations within the default 24 h window.
  await site.record(
    acmeRegisterPaths.flatMap((path, index) => [
      { registerId: site.registerId(path), ts: now - 600_000, rawValue: 100 + index },
      { registerId: site.registerId(path), ts: now - 300_000, rawValue: 200 + index },
    ]),
  );
  await site.record([
    { registerId: site.registerId(globexRegisterPath), ts: now - 600_000, rawValue: 230 },
    { registerId: site.registerId(globexRegisterPath), ts: now - 300_000, rawValue: 231 },
    // The globex reading is the newest of all, so a leak would lead a desc page.
    { registerId: site.registerId(globexRegisterPath), ts: now - 1_000, rawValue: 232 },
  ]);
  // Alerts in both organisations with every status and severity between them.
  const alert = async (
    uuid: string,
    org: string,
    gatewaySerial: string | null,
    severity: "critical" | "warning" | "info",
    status: "active" | "returned" | "acknowledged" | "resolved",
    minutesAgo: number,
  ) =>
    await site.addAlert({
      org,
      gatewaySerial,
      uuid,
      severity,
      message: `${org} ${severity} ${status}`,
      status,
      createdAt: startTime - minutesAgo * 60_000,
      lastTriggeredAt: startTime - minutesAgo * 60_000,
    });
  await alert(alertIds.acme[0]!, "acme", "ACME-1", "critical", "active", 30);
  await alert(alertIds.acme[1]!, "acme", "ACME-2", "warning", "acknowledged", 20);
  await alert(alertIds.acme[2]!, "acme", null, "info", "resolved", 10);
  await alert(alertIds.globex[0]!, "globex", "GLOBEX-1", "critical", "active", 1);
  await alert(alertIds.globex[1]!, "globex", "GLOBEX-1", "info", "returned", 2);
});
afterAll(async () => {
  await site.stop();
});

type Org = "acme" | "globex";
const keyOf = (org: Org) => (org === "acme" ? site.keys.acme : site.keys.globex);
const acmeOrg: Org = "acme";
const globexOrg: Org = "globex";
const get = <T = any>(org: Org, path: string) => call<T>(site.baseUrl, path, { key: keyOf(org) });

/** A 404 for another organisation's resource must look like one for a resource that does not exist. */
async function expectSameAsUnknown(org: Org, path: string, foreignId: string): Promise<void> {
  const foreign = await get(org, path);
  expectProblem(foreign, 404, "not_found");
  expectApiHeaders(foreign);
  const unknownId = "00000000-0000-4000-8000-000000000000";
  const unknown = await get(org, path.replaceAll(foreignId, unknownId));
  expectProblem(unknown, 404, "not_found");
  const strip = (response: ApiResponse) => {
    const { request_id: _id, detail, ...rest } = response.body as Record<string, unknown>;
    return {
      ...rest,
      detail: typeof detail === "string" ? detail.replaceAll(foreignId, "<id>").replaceAll(unknownId, "<id>") : detail,
    };
  };
  expect(strip(foreign)).toEqual(strip(unknown));
}

describe("GET /v1/introspect", () => {
  test("organisation and stats are the key's own", async () => {
    const acme = await get(acmeOrg, "/v1/introspect");
    const globex = await get(globexOrg, "/v1/introspect");
    expect(acme.body.data.organization).toEqual({ name: "Acme Greenhouses" });
    expect(globex.body.data.organization).toEqual({ name: "Globex Utilities" });
    expect(acme.body.data.stats).toEqual({ gateways: 4, devices: 4, open_alerts: 2 });
    expect(globex.body.data.stats).toEqual({ gateways: 1, devices: 1, open_alerts: 2 });
  });
});
describe("GET /v1/devices", () => {
  test("every status filter, and no filter, lists only own gateways with own totals", async () => {
    const cases: [string, string[], string[]][] = [
      ["", ["ACME-4", "ACME-1", "ACME-2", "ACME-3"], ["GLOBEX-1"]],
      ["?status=online", ["ACME-1"], ["GLOBEX-1"]],
      ["?status=offline", ["ACME-2"], []],
      ["?status=pending", ["ACME-3"], []],
      ["?status=error", ["ACME-4"], []],
      ["?limit=100", ["ACME-4", "ACME-1", "ACME-2", "ACME-3"], ["GLOBEX-1"]],
      ["?limit=1&offset=0", ["ACME-4"], ["GLOBEX-1"]],
      ["?limit=1&offset=1", ["ACME-1"], []],
      ["?status=online&limit=1&offset=0", ["ACME-1"], ["GLOBEX-1"]],
    ];
    const totals: Record<string, [number, number]> = {
      "": [4, 1],
      "?status=online": [1, 1],
      "?status=offline": [1, 0],
      "?status=pending": [1, 0],
      "?status=error": [1, 0],
      "?limit=100": [4, 1],
      "?limit=1&offset=0": [4, 1],
      "?limit=1&offset=1": [4, 1],
      "?status=online&limit=1&offset=0": [1, 1],
    };
    for (const [query, acmeSerials, globexSerials] of cases) {
      const acme = await get(acmeOrg, `/v1/devices${query}`);
      const globex = await get(globexOrg, `/v1/devices${query}`);
      expect(acme.status).toBe(200);
      expect(globex.status).toBe(200);
      expect(acme.body.data.map((g: { serial: string }) => g.serial)).toEqual(acmeSerials);
      expect(globex.body.data.map((g: { serial: string }) => g.serial)).toEqual(globexSerials);
      expect([acme.body.meta.total, globex.body.meta.total]).toEqual(totals[query]!);
    }
  });

  test("customers are never another organisation's", async () => {
    const globex = await get(globexOrg, "/v1/devices");
    for (const gateway of globex.body.data) expect(gateway.customer).toBeNull();
  });
});

describe("GET /v1/devices/{id}", () => {
  test("another organisation's gateway is 404, exactly like an unknown one", async () => {
    for (const id of acmeGateways) await expectSameAsUnknown(globexOrg, `/v1/devices/${id}`, id);
    await expectSameAsUnknown(acmeOrg, `/v1/devices/${ids.globexGateway}`, ids.globexGateway);
  });

  test("own gateways answer, with only their own Modbus devices", async () => {
    const globex = await get(globexOrg, `/v1/devices/${ids.globexGateway}`);
    expect(globex.status).toBe(200);
    expect(globex.body.data.modbus_devices.map((d: { id: string }) => d.id)).toEqual([globexModbusDevice]);
    const acmeIds: string[] = [];
    for (const id of acmeGateways) {
      const response = await get(acmeOrg, `/v1/devices/${id}`);
      expect(response.status).toBe(200);
      acmeIds.push(...response.body.data.modbus_devices.map((d: { id: string }) => d.id));
    }
    expect(acmeIds).toEqual(acmeModbusDevices);
  });
});

describe("GET /v1/devices/{id}/registers", () => {
  test("another organisation's gateway is 404, exactly like an unknown one", async () => {
    for (const id of acmeGateways) await expectSameAsUnknown(globexOrg, `/v1/devices/${id}/registers`, id);
    await expectSameAsUnknown(acmeOrg, `/v1/devices/${ids.globexGateway}/registers`, ids.globexGateway);
  });

  test("modbus_device_id of another organisation is 404 on an own gateway, both ways", async () => {
    for (const device of acmeModbusDevices) {
      await expectSameAsUnknown(
        globexOrg,
        `/v1/devices/${ids.globexGateway}/registers?modbus_device_id=${device}`,
        device,
      );
    }
    for (const gateway of [ids.acmeGateway1, ids.acmeGateway2]) {
      await expectSameAsUnknown(
        acmeOrg,
        `/v1/devices/${gateway}/registers?modbus_device_id=${globexModbusDevice}`,
        globexModbusDevice,
      );
    }
  });

  test("own registers only, with own latest values", async () => {
    const globex = await get(globexOrg, `/v1/devices/${ids.globexGateway}/registers`);
    expect(globex.body.data.map((r: { id: string }) => r.id)).toEqual([site.registerUuid(globexRegisterPath)]);
    expect(globex.body.data[0].latest_raw_value).toBe(232);
    const filtered = await get(
      globexOrg,
      `/v1/devices/${ids.globexGateway}/registers?modbus_device_id=${globexModbusDevice}`,
    );
    expect(filtered.body.data.map((r: { id: string }) => r.id)).toEqual([site.registerUuid(globexRegisterPath)]);
    const acmeIds: string[] = [];
    for (const id of acmeGateways) {
      const response = await get(acmeOrg, `/v1/devices/${id}/registers`);
      expect(response.status).toBe(200);
      acmeIds.push(...response.body.data.map((r: { id: string }) => r.id));
    }
    expect(acmeIds).toEqual(acmeRegisterPaths.map((path) => site.registerUuid(path)));
  });
});

describe("GET /v1/devices/{id}/readings", () => {
  test("another organisation's gateway is 404, exactly like an unknown one", async () => {
    for (const id of acmeGateways) await expectSameAsUnknown(globexOrg, `/v1/devices/${id}/readings`, id);
    await expectSameAsUnknown(acmeOrg, `/v1/devices/${ids.globexGateway}/readings`, ids.globexGateway);
  });

  test("register_id of another organisation is 404 on an own gateway, alone or in a list", async () => {
    const globexRegister = site.registerUuid(globexRegisterPath);
    const acmeRegister = site.registerUuid(acmeRegisterPaths[0]!);
    for (const registerId of [
      globexRegister,
      `${acmeRegister},${globexRegister}`,
      `${globexRegister},${acmeRegister}`,
    ]) {
      expectProblem(
        await get(acmeOrg, `/v1/devices/${ids.acmeGateway1}/readings?register_id=${registerId}`),
        404,
        "not_found",
      );
    }
    for (const path of acmeRegisterPaths) {
      const registerId = site.registerUuid(path);
      await expectSameAsUnknown(
        globexOrg,
        `/v1/devices/${ids.globexGateway}/readings?register_id=${registerId}`,
        registerId,
      );
    }
  });

  test("own readings only, whatever the order, window or paging", async () => {
    const globexRegister = site.registerUuid(globexRegisterPath);
    const acmeRegisters = new Set(acmeRegisterPaths.map((path) => site.registerUuid(path)));
    const queries = [
      "",
      "?order=asc",
      "?order=desc",
      "?limit=1",
      "?since=2026-03-03T12:00:00Z&until=2026-03-10T12:00:00Z",
    ];
    for (const query of queries) {
      const globex = await get(globexOrg, `/v1/devices/${ids.globexGateway}/readings${query}`);
      expect(globex.status).toBe(200);
      for (const row of globex.body.data) expect(row.register_id).toBe(globexRegister);
      for (const gateway of [ids.acmeGateway1, ids.acmeGateway2]) {
        const acme = await get(acmeOrg, `/v1/devices/${gateway}/readings${query}`);
        expect(acme.status).toBe(200);
        expect(acme.body.data.length).toBeGreaterThan(0);
        for (const row of acme.body.data) {
          expect(acmeRegisters.has(row.register_id)).toBe(true);
          expect(row.register_id).not.toBe(globexRegister);
        }
      }
    }
    const all = await get(globexOrg, `/v1/devices/${ids.globexGateway}/readings`);
    expect(all.body.data.map((row: { raw_value: number }) => row.raw_value)).toEqual([232, 231, 230]);
    const acme1 = await get(acmeOrg, `/v1/devices/${ids.acmeGateway1}/readings`);
    // 5 registers x 2 readings; the globex reading at now - 1 s is not among them.
    expect(acme1.body.data).toHaveLength(10);
    expect(acme1.body.data[0].ts).toBe(new Date(startTime - 300_000).toISOString());
  });

  test("a cursor of another organisation's traversal is not a way in", async () => {
    const globexPage = await get(globexOrg, `/v1/devices/${ids.globexGateway}/readings?limit=1`);
    expect(globexPage.body.meta.has_more).toBe(true);
    const cursor = globexPage.body.meta.next_cursor as string;
    // Same parameters but an acme gateway: refused, never globex rows.
    const response = await get(acmeOrg, `/v1/devices/${ids.acmeGateway1}/readings?limit=1&cursor=${cursor}`);
    expect(response.status).toBe(400);
    expectProblem(response, 400, "invalid_parameter");
    // And the globex gateway with an acme key stays 404 even with a valid globex cursor.
    expectProblem(
      await get(acmeOrg, `/v1/devices/${ids.globexGateway}/readings?limit=1&cursor=${cursor}`),
      404,
      "not_found",
    );
  });
});

describe("GET /v1/alerts", () => {
  test("every filter lists only own alerts with own totals", async () => {
    const queries = [
      "",
      "?status=active",
      "?status=returned",
      "?status=acknowledged",
      "?status=resolved",
      "?severity=critical",
      "?severity=warning",
      "?severity=info",
      "?status=active&severity=critical",
      "?limit=1",
      "?limit=1&offset=1",
      "?limit=100&offset=0",
    ];
    const expected: Record<string, [string[], string[]]> = {
      "": [
        [alertIds.acme[2]!, alertIds.acme[1]!, alertIds.acme[0]!],
        [alertIds.globex[0]!, alertIds.globex[1]!],
      ],
      "?status=active": [[alertIds.acme[0]!], [alertIds.globex[0]!]],
      "?status=returned": [[], [alertIds.globex[1]!]],
      "?status=acknowledged": [[alertIds.acme[1]!], []],
      "?status=resolved": [[alertIds.acme[2]!], []],
      "?severity=critical": [[alertIds.acme[0]!], [alertIds.globex[0]!]],
      "?severity=warning": [[alertIds.acme[1]!], []],
      "?severity=info": [[alertIds.acme[2]!], [alertIds.globex[1]!]],
      "?status=active&severity=critical": [[alertIds.acme[0]!], [alertIds.globex[0]!]],
      "?limit=1": [[alertIds.acme[2]!], [alertIds.globex[0]!]],
      "?limit=1&offset=1": [[alertIds.acme[1]!], [alertIds.globex[1]!]],
      "?limit=100&offset=0": [
        [alertIds.acme[2]!, alertIds.acme[1]!, alertIds.acme[0]!],
        [alertIds.globex[0]!, alertIds.globex[1]!],
      ],
    };
    const totals = (query: string): [number, number] =>
      query.startsWith("?limit") ? [3, 2] : [expected[query]![0].length, expected[query]![1].length];
    for (const query of queries) {
      const acme = await get(acmeOrg, `/v1/alerts${query}`);
      const globex = await get(globexOrg, `/v1/alerts${query}`);
      expect(acme.status).toBe(200);
      expect(globex.status).toBe(200);
      expect([
        acme.body.data.map((a: { id: string }) => a.id),
        globex.body.data.map((a: { id: string }) => a.id),
      ]).toEqual(expected[query]!);
      expect([acme.body.meta.total, globex.body.meta.total]).toEqual(totals(query));
    }
  });

  test("device_id of another organisation's gateway is 404, exactly like an unknown one", async () => {
    for (const id of acmeGateways) await expectSameAsUnknown(globexOrg, `/v1/alerts?device_id=${id}`, id);
    await expectSameAsUnknown(acmeOrg, `/v1/alerts?device_id=${ids.globexGateway}`, ids.globexGateway);
    for (const query of ["status=active", "severity=critical", "status=active&severity=critical&limit=1"]) {
      expectProblem(await get(acmeOrg, `/v1/alerts?${query}&device_id=${ids.globexGateway}`), 404, "not_found");
      expectProblem(await get(globexOrg, `/v1/alerts?${query}&device_id=${ids.acmeGateway1}`), 404, "not_found");
    }
  });

  test("device_id of an own gateway lists that gateway's alerts only", async () => {
    const globex = await get(globexOrg, `/v1/alerts?device_id=${ids.globexGateway}`);
    expect(globex.body.data.map((a: { id: string }) => a.id)).toEqual([alertIds.globex[0], alertIds.globex[1]]);
    const acme = await get(acmeOrg, `/v1/alerts?device_id=${ids.acmeGateway1}`);
    expect(acme.body.data.map((a: { id: string }) => a.id)).toEqual([alertIds.acme[0]]);
  });
});

describe("keys with fewer scopes", () => {
  test("a single-scope key of one organisation sees only that organisation too", async () => {
    const globexDevices = await site.createKey("globex", ["devices:read"]);
    const globexRegisters = await site.createKey("globex", ["registers:read"]);
    const globexAlerts = await site.createKey("globex", ["alerts:read"]);
    const devices = await call(site.baseUrl, "/v1/devices", { key: globexDevices });
    expect((devices.body as { data: { serial: string }[] }).data.map((g) => g.serial)).toEqual(["GLOBEX-1"]);
    expectProblem(
      await call(site.baseUrl, `/v1/devices/${ids.acmeGateway1}`, { key: globexDevices }),
      404,
      "not_found",
    );
    expectProblem(
      await call(site.baseUrl, `/v1/devices/${ids.acmeGateway1}/registers`, { key: globexRegisters }),
      404,
      "not_found",
    );
    expectProblem(
      await call(site.baseUrl, `/v1/devices/${ids.acmeGateway1}/readings`, { key: globexRegisters }),
      404,
      "not_found",
    );
    const alerts = await call(site.baseUrl, "/v1/alerts", { key: globexAlerts });
    expect((alerts.body as { data: { id: string }[] }).data.map((a) => a.id)).toEqual(alertIds.globex);
    const introspect = await call(site.baseUrl, "/v1/introspect", { key: globexAlerts });
    expect((introspect.body as { data: { stats: unknown } }).data.stats).toEqual({
      gateways: 1,
      devices: 1,
      open_alerts: 2,
    });
  });
});
