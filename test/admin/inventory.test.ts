/**
 * What the admin page shows of the equipment (docs/admin.md): gateways of every
 * organisation, one gateway's devices with their registers' latest values, one
 * register's history for the chart; and each API key's last use.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stableUuid } from "../../src/lib/ids.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";
import { type AdminClient, addAdmin, adminCall, login } from "./helpers.ts";

const minute = 60_000;
let site: TestSite;
let owner: AdminClient;

beforeAll(async () => {
  site = await startTestSite();
  await addAdmin(site, "ops", "ops password 1", "admin");
  owner = await login(site, "ops", "ops password 1");
});
afterAll(async () => {
  await site.stop();
});

describe("GET /admin/api/gateways", () => {
  test("every organisation's gateways, most recently seen first, never seen last, with their device count", async () => {
    const response = await adminCall(site, "GET", "/gateways", { client: owner });
    expect(response.status).toBe(200);
    const rows = response.body.data as { id: string; organization: string; status: string; modbus_devices: number }[];
    expect(rows.map((row) => [row.id, row.organization, row.status, row.modbus_devices])).toEqual([
      [ids.globexGateway, "globex", "online", 1],
      [ids.acmeGateway4, "acme", "error", 0],
      [ids.acmeGateway1, "acme", "online", 2],
      [ids.acmeGateway2, "acme", "offline", 1],
      [ids.acmeGateway3, "acme", "pending", 0],
    ]);
  });

  test("filters by organisation and by status; a bad status is 400", async () => {
    const acme = await adminCall(site, "GET", "/gateways?organization=acme&status=online", { client: owner });
    expect(acme.body.data.map((row: { id: string }) => row.id)).toEqual([ids.acmeGateway1]);
    const bad = await adminCall(site, "GET", "/gateways?status=sleeping", { client: owner });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_parameter");
  });

  test("no session: 401", async () => {
    const response = await adminCall(site, "GET", "/gateways");
    expect(response.status).toBe(401);
    expect(response.body.code).toBe("unauthorized");
  });
});

describe("GET /admin/api/gateways/:id", () => {
  test("devices with their registers' latest values, as fresh as the last reading", async () => {
    const air = site.registerId("ACME-1/Climate computer/air_temperature");
    await site.record([{ registerId: air, ts: site.clock.now() - minute, rawValue: 215 }]);
    await site.record([{ registerId: air, ts: site.clock.now(), rawValue: 217 }]);
    const response = await adminCall(site, "GET", `/gateways/${ids.acmeGateway1}`, { client: owner });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.body.organization).toBe("acme");
    expect(response.body.gateway.serial).toBe("ACME-1");
    const devices = response.body.modbus_devices as {
      name: string;
      registers: { name: string; latest_value: number | null; latest_raw_value: number | null }[];
    }[];
    expect(devices.map((device) => device.name)).toEqual(["Climate computer", "Energy meter"]);
    const register = devices[0]?.registers.find((candidate) => candidate.name === "air_temperature");
    expect(register).toMatchObject({ latest_value: 21.7, latest_raw_value: 217 });
    expect(devices[1]?.registers.map((candidate) => candidate.name).sort()).toEqual(["energy", "power"]);
  });

  test("an unknown gateway is 404, a malformed id 400", async () => {
    const unknown = await adminCall(site, "GET", "/gateways/6f1c7c7e-8d0b-4a55-9a8e-000000000000", { client: owner });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");
    const malformed = await adminCall(site, "GET", "/gateways/not-a-uuid", { client: owner });
    expect(malformed.status).toBe(400);
  });
});

describe("GET /admin/api/gateways/:id/history", () => {
  test("a register's stored values in the last hours, oldest first, as seconds and engineering values, with each period's min and max", async () => {
    const humidity = site.registerId("ACME-1/Climate computer/humidity");
    const now = site.clock.now();
    await site.record([
      { registerId: humidity, ts: now - 3 * 3_600_000, rawValue: 700 },
      {
        registerId: humidity,
        ts: now - 50 * minute,
        rawValue: 712,
        aggregate: { rawMin: 690, rawMax: 740, rawMean: 713.5, samples: 12 },
      },
      { registerId: humidity, ts: now - 10 * minute, rawValue: null },
      { registerId: humidity, ts: now - 5 * minute, rawValue: 705 },
    ]);
    const registerId = site.registerUuid("ACME-1/Climate computer/humidity");
    const response = await adminCall(
      site,
      "GET",
      `/gateways/${ids.acmeGateway1}/history?register_id=${registerId}&hours=1`,
      {
        client: owner,
      },
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      register_id: registerId,
      name: "humidity",
      unit: "%RH",
      hours: 1,
      t: [(now - 50 * minute) / 1000, (now - 10 * minute) / 1000, (now - 5 * minute) / 1000],
      v: [71.2, null, 70.5],
      // The band the chart draws: only the reading stored with its period's aggregate has one.
      min: [69, null, null],
      max: [74, null, null],
    });
    const day = await adminCall(site, "GET", `/gateways/${ids.acmeGateway1}/history?register_id=${registerId}`, {
      client: owner,
    });
    expect(day.body.hours).toBe(24);
    expect(day.body.t.length).toBe(4);
  });

  test("another gateway's register is 404; bad hours are 400", async () => {
    const foreign = site.registerUuid("GLOBEX-1/Meter/voltage");
    const response = await adminCall(site, "GET", `/gateways/${ids.acmeGateway1}/history?register_id=${foreign}`, {
      client: owner,
    });
    expect(response.status).toBe(404);
    const registerId = site.registerUuid("ACME-1/Climate computer/humidity");
    for (const hours of ["0", "169", "1.5", "x"]) {
      const bad = await adminCall(
        site,
        "GET",
        `/gateways/${ids.acmeGateway1}/history?register_id=${registerId}&hours=${hours}`,
        {
          client: owner,
        },
      );
      expect({ hours, status: bad.status }).toEqual({ hours, status: 400 });
    }
  });
});

describe("GET /admin/api/choices", () => {
  test("organisations, key scopes and event types for the page's forms", async () => {
    const response = await adminCall(site, "GET", "/choices", { client: owner });
    expect(response.body.organizations).toEqual([
      { key: "acme", name: "Acme Greenhouses" },
      { key: "globex", name: "Globex Utilities" },
    ]);
    expect(response.body.scopes).toEqual(["devices:read", "registers:read", "alerts:read", "registers:write"]);
    expect(response.body.event_types).toContain("register.written");
    expect(response.body.event_types).toContain("alert.triggered");
  });
});

describe("last_used_at of an API key", () => {
  test("null until a request authenticates with the key, then that minute, written once a minute", async () => {
    const created = await adminCall(site, "POST", "/keys", {
      client: owner,
      body: { organization: "acme", name: "usage", scopes: ["devices:read"] },
    });
    const listed = async () =>
      (
        (await adminCall(site, "GET", "/keys", { client: owner })).body.data as {
          id: string;
          last_used_at: string | null;
        }[]
      ).find((key) => key.id === created.body.id);
    expect((await listed())?.last_used_at).toBeNull();

    // A key that is not this one leaves it unused.
    await fetch(`${site.baseUrl}/v1/devices`, { headers: { authorization: `Bearer ${created.body.key}x` } });
    expect((await listed())?.last_used_at).toBeNull();

    const usedAt = site.clock.now();
    const ok = await fetch(`${site.baseUrl}/v1/devices`, { headers: { authorization: `Bearer ${created.body.key}` } });
    expect(ok.status).toBe(200);
    expect((await listed())?.last_used_at).toBe(new Date(usedAt).toISOString());

    // Within the same minute nothing is written again; the next minute is.
    site.clock.advance(30_000);
    await fetch(`${site.baseUrl}/v1/devices`, { headers: { authorization: `Bearer ${created.body.key}` } });
    expect((await listed())?.last_used_at).toBe(new Date(usedAt).toISOString());
    site.clock.advance(60_000);
    await fetch(`${site.baseUrl}/v1/devices`, { headers: { authorization: `Bearer ${created.body.key}` } });
    expect((await listed())?.last_used_at).toBe(new Date(site.clock.now()).toISOString());
  });
});

describe("register writes from the admin page", () => {
  const setpoint = stableUuid("register", "ACME-1", "Climate computer", "setpoint");

  test("the gateway view gives a writable register's bounds and the organisation's writes_enabled", async () => {
    const response = await adminCall(site, "GET", `/gateways/${ids.acmeGateway1}`, { client: owner });
    expect(response.body.writes_enabled).toBe(true);
    const registers = response.body.modbus_devices.flatMap((device: { registers: unknown[] }) => device.registers);
    expect(registers.find((register: { id: string }) => register.id === setpoint)).toMatchObject({
      is_writable: true,
      write_min: 5,
      write_max: 30,
    });
  });

  test("a viewer may not set a register: 403 forbidden, nothing in the audit", async () => {
    await addAdmin(site, "looker", "looker password", "viewer");
    const viewer = await login(site, "looker", "looker password");
    const response = await adminCall(site, "PUT", `/gateways/${ids.acmeGateway1}/registers/${setpoint}`, {
      client: viewer,
      body: { value: 20 },
    });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe("forbidden");
    const audit = await adminCall(site, "GET", "/writes", { client: owner });
    expect(audit.body.data).toEqual([]);
  });

  test("a write through the Modbus TCP server that covers no register is listed by its device and request", async () => {
    const org = await site.store.organizations.findByKey("acme");
    const gatewayId = await site.store.gateways.locate(org?.id ?? -1, ids.acmeGateway1);
    const device = stableUuid("modbus-device", "ACME-1", "Climate computer");
    const modbusDeviceId = await site.store.gateways.findModbusDeviceId(gatewayId ?? -1, device);
    if (org === null || modbusDeviceId === null) throw new Error("no climate computer in the store");
    const at = site.clock.now();
    await site.store.writes.recordDeviceWrite({
      orgId: org.id,
      modbusDeviceId,
      actor: "modbus:10.0.0.7",
      request: { functionCode: 16, address: 900, values: [1, 2] },
      result: "written",
      detail: "through the Modbus TCP server: function code 16 at 900 (2)",
      requestedAt: at,
      finishedAt: at + 3,
    });
    const audit = await adminCall(site, "GET", "/writes?organization=acme", { client: owner });
    expect(audit.body.data[0]).toMatchObject({
      gateway_serial: "ACME-1",
      modbus_device_id: device,
      modbus_device_name: "Climate computer",
      register_id: null,
      register_name: null,
      actor: "modbus:10.0.0.7",
      value_asked: null,
      request: { function_code: 16, address: 900, count: 2, values: [1, 2] },
      result: "written",
    });
  });

  test("an owner's write on a server that polls no equipment is 409 conflict, nothing written", async () => {
    const response = await adminCall(site, "PUT", `/gateways/${ids.acmeGateway1}/registers/${setpoint}`, {
      client: owner,
      body: { value: 20 },
    });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe("conflict");
    const notWritable = await adminCall(
      site,
      "PUT",
      `/gateways/${ids.acmeGateway1}/registers/${stableUuid("register", "ACME-1", "Climate computer", "humidity")}`,
      {
        client: owner,
        body: { value: 20 },
      },
    );
    expect(notWritable.status).toBe(400);
    expect(notWritable.body.detail).toContain("not writable");
  });
});
