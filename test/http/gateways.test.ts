/** docs/api.md sections 2 (Gateway, GatewayDetail, ModbusDevice), 4 (GET /devices, GET /devices/{id}) and 7 through HTTP. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stableUuid } from "../../src/lib/ids.ts";
import { call, expectApiHeaders, expectProblem } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site.stop();
});

type Gateway = Record<string, unknown> & { id: string; serial: string; status: string };
type GatewayList = { data: Gateway[]; meta: { total: number; limit: number; offset: number } };

// Ids are name-based (stable-ids.ts): computed here from the natural keys, not read back from the server.
const customerNorth = { id: stableUuid("customer", "acme", "north"), name: "North site", city: "Venlo" };
const customerSouth = { id: stableUuid("customer", "acme", "south"), name: "South site", city: null };
const created = "2026-03-10T12:00:00.000Z";
/** No poller runs in this site: every Modbus device's health is unknown. */
const notPolled = {
  status: "unknown",
  last_answer_at: null,
  last_error: null,
  last_error_at: null,
  registers_set_aside: 0,
  next_probe_at: null,
  counters: {
    requests: 0,
    timeouts: 0,
    exceptions: {},
    crc_errors: 0,
    framing_errors: 0,
    retries: 0,
    mean_response_ms: null,
  },
};

const gatewayFields = (serial: string, name: string, status: string, lastSeen: string | null, customer: unknown) => ({
  id: stableUuid("gateway", serial),
  serial,
  name,
  status,
  firmware_ver: null,
  ip_eth: null,
  ip_wifi: null,
  ip_4g: null,
  signal_4g: null,
  last_seen: lastSeen,
  created_at: created,
  customer,
});

const expected = {
  "ACME-1": gatewayFields("ACME-1", "Greenhouse 1", "online", "2026-03-10T11:59:00.000Z", customerNorth),
  "ACME-2": gatewayFields("ACME-2", "Greenhouse 2", "offline", "2026-03-10T11:00:00.000Z", customerSouth),
  "ACME-3": gatewayFields("ACME-3", "Packing hall", "pending", null, null),
  "ACME-4": gatewayFields("ACME-4", "Boiler room", "error", "2026-03-10T11:59:30.000Z", null),
};
/** last_seen: ACME-4 11:59:30, ACME-1 11:59:00, ACME-2 11:00:00, ACME-3 never. */
const seenOrder = ["ACME-4", "ACME-1", "ACME-2", "ACME-3"] as const;

const list = (query = "", key = site.keys.acme) => call<GatewayList>(site.baseUrl, `/v1/devices${query}`, { key });

describe("GET /v1/devices", () => {
  test("every Gateway field with its exact value, most recently seen first, never seen last", async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expectApiHeaders(response);
    expect(response.body.data).toEqual(seenOrder.map((serial) => expected[serial]));
    expect(response.body.meta).toEqual({ total: 4, limit: 50, offset: 0 });
    // Exactly the spec's fields, no more (Gateway, not GatewayDetail).
    for (const gateway of response.body.data) {
      expect(Object.keys(gateway).sort()).toEqual(Object.keys(expected["ACME-1"]).sort());
    }
  });

  test("a customer is an object {id, name, city} with city null when unknown; no customer is null", async () => {
    const { body } = await list();
    const bySerial = new Map(body.data.map((gateway) => [gateway.serial, gateway]));
    expect(bySerial.get("ACME-1")?.customer).toEqual({ id: customerNorth.id, name: "North site", city: "Venlo" });
    expect(bySerial.get("ACME-2")?.customer).toEqual({ id: customerSouth.id, name: "South site", city: null });
    expect(bySerial.get("ACME-3")?.customer).toBeNull();
    expect(bySerial.get("ACME-4")?.customer).toBeNull();
  });

  test("timestamps are ISO 8601 in UTC", async () => {
    const { body } = await list();
    for (const gateway of body.data) {
      for (const field of ["last_seen", "created_at"] as const) {
        const value = gateway[field];
        if (value === null) continue;
        expect(value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      }
    }
  });

  test("the order follows last_seen when it changes", async () => {
    // Another site, so the shared one keeps its fixed order.
    const other = await startTestSite();
    try {
      await other.store.gateways.setStatus(ids.acmeGateway2, { status: "online", lastSeen: other.clock.now() - 1_000 });
      await other.store.gateways.setStatus(ids.acmeGateway3, { status: "online", lastSeen: other.clock.now() - 2_000 });
      const response = await call<GatewayList>(other.baseUrl, "/v1/devices", { key: other.keys.acme });
      expect(response.body.data.map((gateway) => gateway.serial)).toEqual(["ACME-2", "ACME-3", "ACME-4", "ACME-1"]);
    } finally {
      await other.stop();
    }
  });

  test("firmware, addresses and signal appear in their own fields when set", async () => {
    // Distinct values in every nullable field, so a swapped mapping cannot pass.
    const other = await startTestSite();
    try {
      await other.execute(
        "UPDATE gateways SET firmware_ver = ?, ip_eth = ?, ip_wifi = ?, ip_4g = ?, signal_4g = ? WHERE uuid = ?",
        "2.4.1",
        "192.168.1.10",
        "192.168.2.20",
        "10.64.0.7",
        -71,
        ids.acmeGateway2,
      );
      const expectedGateway = {
        ...expected["ACME-2"],
        firmware_ver: "2.4.1",
        ip_eth: "192.168.1.10",
        ip_wifi: "192.168.2.20",
        ip_4g: "10.64.0.7",
        signal_4g: -71,
      };
      const listed = await call<GatewayList>(other.baseUrl, "/v1/devices?status=offline", { key: other.keys.acme });
      expect(listed.body.data).toEqual([expectedGateway]);
      const one = await call<{ data: GatewayDetail }>(other.baseUrl, `/v1/devices/${ids.acmeGateway2}`, {
        key: other.keys.acme,
      });
      const { claimed_at: _claimed, modbus_devices: _devices, modbus_server: _server, ...gatewayPart } = one.body.data;
      expect(gatewayPart).toEqual(expectedGateway);
    } finally {
      await other.stop();
    }
  });

  test("status filters by each of the four values", async () => {
    const cases: [string, string[]][] = [
      ["online", ["ACME-1"]],
      ["offline", ["ACME-2"]],
      ["pending", ["ACME-3"]],
      ["error", ["ACME-4"]],
    ];
    for (const [status, serials] of cases) {
      const response = await list(`?status=${status}`);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(serials.map((serial) => expected[serial as keyof typeof expected]));
      expect(response.body.meta).toEqual({ total: serials.length, limit: 50, offset: 0 });
    }
  });

  test("status filter with paging: total counts the filtered rows", async () => {
    const response = await list("?status=online&limit=1&offset=1");
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.meta).toEqual({ total: 1, limit: 1, offset: 1 });
  });

  test("an unknown status is 400 invalid_parameter", async () => {
    for (const status of ["ONLINE", "unknown", "active", "", "online,offline"]) {
      const response = await list(`?status=${encodeURIComponent(status)}`);
      expectProblem(response, 400, "invalid_parameter");
      expectApiHeaders(response);
    }
  });

  test("limit defaults to 50 and accepts 1 to 100", async () => {
    expect((await list()).body.meta.limit).toBe(50);
    for (const limit of [1, 2, 3, 4, 5, 50, 99, 100]) {
      const response = await list(`?limit=${limit}`);
      expect(response.status).toBe(200);
      expect(response.body.meta).toEqual({ total: 4, limit, offset: 0 });
      expect(response.body.data.map((gateway) => gateway.serial)).toEqual(seenOrder.slice(0, limit));
    }
  });

  test("limit outside 1..100 or not an integer is 400 invalid_parameter", async () => {
    for (const limit of ["0", "-1", "101", "1000", "1.5", "abc", "", "99999999999999999999", "NaN", "Infinity"]) {
      const response = await list(`?limit=${encodeURIComponent(limit)}`);
      expectProblem(response, 400, "invalid_parameter");
      expect((response.body as { detail?: string }).detail).toStartWith("limit");
    }
  });

  test("offset defaults to 0, skips rows, and past the end gives an empty page with the full total", async () => {
    expect((await list()).body.meta.offset).toBe(0);
    for (const offset of [0, 1, 2, 3, 4, 5, 1000, 2_147_483_647]) {
      const response = await list(`?offset=${offset}`);
      expect(response.status).toBe(200);
      expect(response.body.meta).toEqual({ total: 4, limit: 50, offset });
      expect(response.body.data.map((gateway) => gateway.serial)).toEqual(seenOrder.slice(offset));
    }
  });

  test("offset below 0, not an integer, or huge is 400 invalid_parameter, never 500", async () => {
    for (const offset of [
      "-1",
      "-99999999999999999999",
      "1.5",
      "abc",
      "",
      "99999999999999999999",
      "9007199254740993",
      "1e400",
    ]) {
      const response = await list(`?offset=${encodeURIComponent(offset)}`);
      expectProblem(response, 400, "invalid_parameter");
      expect((response.body as { detail?: string }).detail).toStartWith("offset");
      expectApiHeaders(response);
    }
  });

  test("paging with limit 1 walks every gateway once, in order, with total the full count", async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 4; offset++) {
      const response = await list(`?limit=1&offset=${offset}`);
      expect(response.status).toBe(200);
      expect(response.body.meta).toEqual({ total: 4, limit: 1, offset });
      expect(response.body.data).toHaveLength(1);
      seen.push(response.body.data[0]!.serial);
    }
    expect(seen).toEqual([...seenOrder]);
    const after = await list("?limit=1&offset=4");
    expect(after.body).toEqual({ data: [], meta: { total: 4, limit: 1, offset: 4 } });
  });

  test("paging with limit 3 gives 3 then 1", async () => {
    const first = await list("?limit=3&offset=0");
    const second = await list("?limit=3&offset=3");
    expect(first.body.data.map((gateway) => gateway.serial)).toEqual(["ACME-4", "ACME-1", "ACME-2"]);
    expect(second.body.data.map((gateway) => gateway.serial)).toEqual(["ACME-3"]);
    expect(first.body.meta).toEqual({ total: 4, limit: 3, offset: 0 });
    expect(second.body.meta).toEqual({ total: 4, limit: 3, offset: 3 });
  });

  test("unknown or repeated query parameters are 400", async () => {
    expectProblem(await list("?stauts=online"), 400, "invalid_parameter");
    expectProblem(await list("?limit=1&limit=2"), 400, "invalid_parameter");
  });

  test("only the key's organisation: globex sees GLOBEX-1 alone", async () => {
    const response = await list("", site.keys.globex);
    expect(response.status).toBe(200);
    expect(response.body.data.map((gateway) => gateway.serial)).toEqual(["GLOBEX-1"]);
    expect(response.body.data[0]).toEqual(
      gatewayFields("GLOBEX-1", "Substation", "online", "2026-03-10T12:00:00.000Z", null),
    );
    expect(response.body.meta).toEqual({ total: 1, limit: 50, offset: 0 });
  });
});

type GatewayDetail = Gateway & {
  claimed_at: string | null;
  modbus_devices: Record<string, unknown>[];
  modbus_server: Record<string, unknown> | null;
};
const detail = (id: string, key = site.keys.acme) =>
  call<{ data: GatewayDetail }>(site.baseUrl, `/v1/devices/${id}`, { key });

describe("GET /v1/devices/{id}", () => {
  test("GatewayDetail: every Gateway field plus claimed_at and the Modbus devices in config order", async () => {
    const response = await detail(ids.acmeGateway1);
    expect(response.status).toBe(200);
    expectApiHeaders(response);
    expect(response.body).toEqual({
      data: {
        ...expected["ACME-1"],
        claimed_at: "2026-03-09T12:00:00.000Z",
        modbus_devices: [
          {
            id: stableUuid("modbus-device", "ACME-1", "Climate computer"),
            name: "Climate computer",
            slave_id: 1,
            protocol: "tcp",
            ip_address: "10.0.0.5",
            port: 502,
            poll_interval_ms: 10000,
            template: { id: stableUuid("template", "Siemens", "RDF302"), brand: "Siemens", model: "RDF302" },
            health: notPolled,
          },
          {
            id: stableUuid("modbus-device", "ACME-1", "Energy meter"),
            name: "Energy meter",
            slave_id: 2,
            protocol: "tcp",
            ip_address: "10.0.0.6",
            // No port in the config: the Modbus TCP default.
            port: 502,
            // No poll interval in the config: the default of one minute.
            poll_interval_ms: 60000,
            template: null,
            health: notPolled,
          },
        ],
        // No modbus_server in the config (test/e2e/modbus-server.test.ts shows one running).
        modbus_server: null,
      },
    });
  });

  test("an RTU device has ip_address and port null, and no name is null", async () => {
    const response = await detail(ids.acmeGateway2);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      ...expected["ACME-2"],
      claimed_at: null,
      modbus_devices: [
        {
          id: stableUuid("modbus-device", "ACME-2", ":/7"),
          name: null,
          slave_id: 7,
          protocol: "rtu",
          ip_address: null,
          port: null,
          poll_interval_ms: 60000,
          template: null,
          health: notPolled,
        },
      ],
      modbus_server: null,
    });
  });

  test("a gateway without Modbus devices has an empty list; detail agrees with the list entry", async () => {
    const listed = new Map((await list()).body.data.map((gateway) => [gateway.id, gateway]));
    for (const [serial, id] of [
      ["ACME-3", ids.acmeGateway3],
      ["ACME-4", ids.acmeGateway4],
    ] as const) {
      const response = await detail(id);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({
        ...expected[serial],
        claimed_at: null,
        modbus_devices: [],
        modbus_server: null,
      });
      const {
        claimed_at: _claimed,
        modbus_devices: _devices,
        modbus_server: _server,
        ...gatewayPart
      } = response.body.data;
      expect(gatewayPart).toEqual(listed.get(id)!);
    }
  });

  test("a UUID is case-insensitive: the upper-case form of an id is the same gateway", async () => {
    // RFC 9562: UUIDs are compared case-insensitively on input; the store keeps them in lower case.
    const response = await detail(ids.acmeGateway1.toUpperCase());
    expect(response.status).toBe(200);
    expect(response.body.data.id).toBe(ids.acmeGateway1);
    expect(response.body.data.serial).toBe("ACME-1");
  });

  test("an unknown uuid is 404 not_found", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", stableUuid("gateway", "ACME-5")]) {
      const response = await detail(id);
      expectProblem(response, 404, "not_found");
      expectApiHeaders(response);
    }
  });

  test("a gateway of another organisation is 404 not_found, both ways", async () => {
    expectProblem(await detail(ids.globexGateway), 404, "not_found");
    for (const id of [ids.acmeGateway1, ids.acmeGateway2, ids.acmeGateway3, ids.acmeGateway4]) {
      expectProblem(await detail(id, site.keys.globex), 404, "not_found");
    }
    const own = await detail(ids.globexGateway, site.keys.globex);
    expect(own.status).toBe(200);
    expect(own.body.data.serial).toBe("GLOBEX-1");
  });

  test("a malformed id is 400 invalid_parameter", async () => {
    for (const id of [
      "not-a-uuid",
      "123",
      `${ids.acmeGateway1}0`,
      ids.acmeGateway1.slice(0, -1),
      ids.acmeGateway1.replaceAll("-", ""),
      "ACME-1",
      "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz",
    ]) {
      const response = await detail(encodeURIComponent(id));
      expectProblem(response, 400, "invalid_parameter");
      expectApiHeaders(response);
    }
  });
});
