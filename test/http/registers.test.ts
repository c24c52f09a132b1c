/** docs/api.md sections 1 (value semantics), 2 (Register, Register list envelope) and 4 (GET /devices/{id}/registers). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stableUuid } from "../../src/lib/ids.ts";
import { call, expectApiHeaders, expectProblem } from "../harness/http.ts";
import { ids, startTestSite, type TestSite, testSiteYaml } from "../harness/site.ts";

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site.stop();
});

type Register = {
  id: string;
  modbus_device_id: string;
  modbus_device_name: string | null;
  name: string;
  address: number;
  function_code: number | null;
  data_type: string;
  unit: string | null;
  scale_factor: number | null;
  is_writable: boolean;
  description: string | null;
  latest_value: number | null;
  latest_raw_value: number | null;
  latest_ts: string | null;
  latest_text: string | null;
  latest_status: "ok" | "stale" | "unavailable";
  set_aside: { reason: string; since: string; retry_at: string } | null;
};
type RegisterList = { data: Register[] };

const climate = stableUuid("modbus-device", "ACME-1", "Climate computer");
const meter = stableUuid("modbus-device", "ACME-1", "Energy meter");
const acme2Device = stableUuid("modbus-device", "ACME-2", ":/7");
const globexMeter = stableUuid("modbus-device", "GLOBEX-1", "Meter");

// No poller runs in this site: nothing is set aside, no device is unreachable, and no register here is a string.
// A register never read has no current value: stale.
const noReading = {
  latest_value: null,
  latest_raw_value: null,
  latest_ts: null,
  latest_text: null,
  latest_status: "stale" as const,
  set_aside: null,
};
const register = (
  serial: string,
  device: string,
  deviceId: string,
  fields: Omit<
    Register,
    | "id"
    | "modbus_device_id"
    | "modbus_device_name"
    | "latest_value"
    | "latest_raw_value"
    | "latest_ts"
    | "latest_text"
    | "latest_status"
    | "set_aside"
  >,
  deviceName: string | null = device,
): Register => ({
  id: stableUuid("register", serial, device, fields.name),
  modbus_device_id: deviceId,
  modbus_device_name: deviceName,
  ...fields,
  ...noReading,
});

/** ACME-1's registers as configured in the test site, in config order. */
const acme1 = {
  air_temperature: register("ACME-1", "Climate computer", climate, {
    name: "air_temperature",
    address: 0,
    function_code: 4,
    data_type: "int16",
    unit: "°C",
    scale_factor: 0.1,
    is_writable: false,
    description: "Air temperature",
  }),
  humidity: register("ACME-1", "Climate computer", climate, {
    name: "humidity",
    address: 1,
    function_code: 4,
    data_type: "uint16",
    unit: "%RH",
    scale_factor: 0.1,
    is_writable: false,
    description: null,
  }),
  setpoint: register("ACME-1", "Climate computer", climate, {
    name: "setpoint",
    address: 100,
    function_code: 3,
    data_type: "int16",
    unit: "°C",
    scale_factor: 0.1,
    is_writable: true,
    description: null,
  }),
  power: register("ACME-1", "Energy meter", meter, {
    name: "power",
    address: 52,
    function_code: 4,
    data_type: "float32",
    unit: "W",
    scale_factor: null,
    is_writable: false,
    description: null,
  }),
  energy: register("ACME-1", "Energy meter", meter, {
    name: "energy",
    address: 72,
    function_code: 4,
    data_type: "int32",
    unit: "kWh",
    scale_factor: 0.01,
    is_writable: false,
    description: null,
  }),
};
const acme1Order = ["air_temperature", "humidity", "setpoint", "power", "energy"] as const;

const flowTemperature = register(
  "ACME-2",
  ":/7",
  acme2Device,
  {
    name: "flow_temperature",
    address: 1,
    // Not in the config: the config default, 3 (holding register).
    function_code: 3,
    data_type: "int16",
    unit: "°C",
    scale_factor: 0.1,
    is_writable: false,
    description: null,
  },
  null,
);

const registersOf = (gatewayId: string, query = "", key = site.keys.acme) =>
  call<RegisterList>(site.baseUrl, `/v1/devices/${gatewayId}/registers${query}`, { key });

const iso = (ms: number) => new Date(ms).toISOString();

describe("GET /v1/devices/{id}/registers: fields", () => {
  // Runs first: no readings recorded yet in this file's site.
  test("{data:[Register]} with no meta, every field exact, latest_* null before any reading", async () => {
    const response = await registersOf(ids.acmeGateway1);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expectApiHeaders(response);
    expect(Object.keys(response.body)).toEqual(["data"]);
    expect(response.body).toEqual({ data: acme1Order.map((name) => acme1[name]) });
  });

  test("an unnamed RTU device: modbus_device_name null, default function code", async () => {
    const response = await registersOf(ids.acmeGateway2);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [flowTemperature] });
  });

  test("a gateway without Modbus devices has an empty list, still without meta", async () => {
    for (const id of [ids.acmeGateway3, ids.acmeGateway4]) {
      const response = await registersOf(id);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: [] });
    }
  });

  test("is_writable is true only for the register configured writable", async () => {
    const { body } = await registersOf(ids.acmeGateway1);
    expect(body.data.filter((row) => row.is_writable).map((row) => row.name)).toEqual(["setpoint"]);
    for (const row of body.data) expect(typeof row.is_writable).toBe("boolean");
  });
});

describe("latest values", () => {
  test("latest_value = latest_raw_value x scale_factor, latest_ts the reading's time", async () => {
    const now = site.clock.now();
    await site.record([
      { registerId: site.registerId("ACME-1/Climate computer/air_temperature"), ts: now - 120_000, rawValue: 200 },
      { registerId: site.registerId("ACME-1/Climate computer/air_temperature"), ts: now - 60_000, rawValue: 215 },
      { registerId: site.registerId("ACME-1/Climate computer/humidity"), ts: now - 60_000, rawValue: 0 },
      { registerId: site.registerId("ACME-1/Energy meter/power"), ts: now - 30_000, rawValue: 1234.5 },
      { registerId: site.registerId("ACME-1/Energy meter/energy"), ts: now - 30_000, rawValue: 123456 },
    ]);
    const { status, body } = await registersOf(ids.acmeGateway1);
    expect(status).toBe(200);
    expect(body.data).toEqual([
      // The climate computer is polled every 10 s: a value a minute old is stale.
      { ...acme1.air_temperature, latest_value: 21.5, latest_raw_value: 215, latest_ts: iso(now - 60_000) },
      // A raw value of 0 is a value, not "no reading".
      { ...acme1.humidity, latest_value: 0, latest_raw_value: 0, latest_ts: iso(now - 60_000) },
      acme1.setpoint,
      // No scale factor: value = raw value. The meter is polled every minute (the default): 30 s old is current.
      {
        ...acme1.power,
        latest_value: 1234.5,
        latest_raw_value: 1234.5,
        latest_ts: iso(now - 30_000),
        latest_status: "ok",
      },
      {
        ...acme1.energy,
        latest_value: 1234.56,
        latest_raw_value: 123456,
        latest_ts: iso(now - 30_000),
        latest_status: "ok",
      },
    ]);
    for (const row of body.data) {
      if (row.latest_raw_value === null) continue;
      expect(row.latest_value!).toBeCloseTo(row.latest_raw_value * (row.scale_factor ?? 1), 9);
    }
  });

  test("latest is the newest timestamp, not the reading written last", async () => {
    const now = site.clock.now();
    const air = site.registerId("ACME-1/Climate computer/air_temperature");
    // Written after the newer one, but older: must not become the latest.
    await site.record([{ registerId: air, ts: now - 600_000, rawValue: 100 }]);
    let row = (await registersOf(ids.acmeGateway1)).body.data.find((r) => r.name === "air_temperature")!;
    expect(row).toEqual({
      ...acme1.air_temperature,
      latest_value: 21.5,
      latest_raw_value: 215,
      latest_ts: iso(now - 60_000),
    });

    // Out of order within one batch too.
    await site.record([
      { registerId: air, ts: now - 10_000, rawValue: -35 },
      { registerId: air, ts: now - 20_000, rawValue: 999 },
    ]);
    row = (await registersOf(ids.acmeGateway1)).body.data.find((r) => r.name === "air_temperature")!;
    expect(row).toEqual({
      ...acme1.air_temperature,
      latest_value: -3.5,
      latest_raw_value: -35,
      latest_ts: iso(now - 10_000),
      latest_status: "ok",
    });

    // A newer reading moves it forward.
    site.clock.advance(60_000);
    await site.record([{ registerId: air, ts: site.clock.now(), rawValue: 3 }]);
    row = (await registersOf(ids.acmeGateway1)).body.data.find((r) => r.name === "air_temperature")!;
    // 3 x 0.1 reads 0.3, not 0.30000000000000004.
    expect(row).toEqual({
      ...acme1.air_temperature,
      latest_value: 0.3,
      latest_raw_value: 3,
      latest_ts: iso(site.clock.now()),
      latest_status: "ok",
    });
  });

  test("a reading of one register changes no other register, and no other gateway", async () => {
    const before2 = (await registersOf(ids.acmeGateway2)).body;
    expect(before2).toEqual({ data: [flowTemperature] });
    const now = site.clock.now();
    await site.record([{ registerId: site.registerId("ACME-2/7/flow_temperature"), ts: now - 5_000, rawValue: 452 }]);
    expect((await registersOf(ids.acmeGateway2)).body).toEqual({
      data: [
        {
          ...flowTemperature,
          latest_value: 45.2,
          latest_raw_value: 452,
          latest_ts: iso(now - 5_000),
          latest_status: "ok",
        },
      ],
    });
    const setpoint = (await registersOf(ids.acmeGateway1)).body.data.find((r) => r.name === "setpoint");
    expect(setpoint).toEqual(acme1.setpoint);
  });

  test("the latest value agrees with the newest reading in the history, also when a timestamp is sent twice", async () => {
    const now = site.clock.now();
    const setpointPath = "ACME-1/Climate computer/setpoint";
    const setpointId = site.registerUuid(setpointPath);
    // The same register and timestamp reported twice with different values (a gateway resending).
    await site.record([{ registerId: site.registerId(setpointPath), ts: now - 1_000, rawValue: 180 }]);
    await site.record([{ registerId: site.registerId(setpointPath), ts: now - 1_000, rawValue: 999 }]);

    const history = await call<{ data: { raw_value: number | null; value: number | null; ts: string }[] }>(
      site.baseUrl,
      `/v1/devices/${ids.acmeGateway1}/readings?register_id=${setpointId}`,
      { key: site.keys.acme },
    );
    expect(history.status).toBe(200);
    expect(history.body.data).toHaveLength(1);
    const newest = history.body.data[0]!;
    const row = (await registersOf(ids.acmeGateway1)).body.data.find((r) => r.name === "setpoint")!;
    expect(row.latest_ts).toBe(newest.ts);
    expect(row.latest_raw_value).toBe(newest.raw_value);
    expect(row.latest_value).toBe(newest.value);
  });
});

describe("latest_status", () => {
  test("ok while read within two poll intervals of its device, stale after; the device's interval, not another's", async () => {
    const air = site.registerId("ACME-1/Climate computer/air_temperature");
    const power = site.registerId("ACME-1/Energy meter/power");
    const readAt = site.clock.now();
    await site.record([
      { registerId: air, ts: readAt, rawValue: 200 },
      { registerId: power, ts: readAt, rawValue: 10 },
    ]);
    const statuses = async () =>
      Object.fromEntries(
        (await registersOf(ids.acmeGateway1)).body.data.map((register) => [register.name, register.latest_status]),
      );
    expect(await statuses()).toMatchObject({ air_temperature: "ok", power: "ok", humidity: "stale" });
    // The climate computer is polled every 10 s: current up to 20 s.
    site.clock.advance(20_000);
    expect(await statuses()).toMatchObject({ air_temperature: "ok", power: "ok" });
    site.clock.advance(1);
    expect(await statuses()).toMatchObject({ air_temperature: "stale", power: "ok" });
    // The meter, every minute: current up to 2 minutes.
    site.clock.advance(120_000 - 20_001);
    expect((await statuses()).power).toBe("ok");
    site.clock.advance(1);
    expect((await statuses()).power).toBe("stale");
  });
});

describe("latest_status of a register in its own poll group", () => {
  let ownGroup: TestSite;
  beforeAll(async () => {
    // The climate computer polled every second, its air temperature every 10 s.
    ownGroup = await startTestSite({
      yaml: testSiteYaml
        .replace("poll_interval_ms: 10000", "poll_interval_ms: 1000")
        .replace("description: Air temperature }", "description: Air temperature, poll_interval_ms: 10000 }"),
    });
  });
  afterAll(async () => {
    await ownGroup.stop();
  });

  test("judged by its poll group's interval, not its device's", async () => {
    const readAt = ownGroup.clock.now();
    await ownGroup.record(
      ["air_temperature", "humidity"].map((name) => ({
        registerId: ownGroup.registerId(`ACME-1/Climate computer/${name}`),
        ts: readAt,
        rawValue: 200,
      })),
    );
    const statuses = async () => {
      const path = `/v1/devices/${ids.acmeGateway1}/registers`;
      const { body } = await call<RegisterList>(ownGroup.baseUrl, path, { key: ownGroup.keys.acme });
      return Object.fromEntries(body.data.map((register) => [register.name, register.latest_status]));
    };
    ownGroup.clock.advance(3_000);
    expect(await statuses()).toMatchObject({ air_temperature: "ok", humidity: "stale" });
    ownGroup.clock.advance(17_001);
    expect((await statuses()).air_temperature).toBe("stale");
  });
});

describe("modbus_device_id filter", () => {
  test("only the registers of that Modbus device, in config order", async () => {
    const climateRows = await registersOf(ids.acmeGateway1, `?modbus_device_id=${climate}`);
    expect(climateRows.status).toBe(200);
    expect(Object.keys(climateRows.body)).toEqual(["data"]);
    expect(climateRows.body.data.map((row) => row.name)).toEqual(["air_temperature", "humidity", "setpoint"]);
    for (const row of climateRows.body.data) {
      expect(row.modbus_device_id).toBe(climate);
      expect(row.modbus_device_name).toBe("Climate computer");
    }
    const meterRows = await registersOf(ids.acmeGateway1, `?modbus_device_id=${meter}`);
    expect(meterRows.body.data.map((row) => row.name)).toEqual(["power", "energy"]);
    for (const row of meterRows.body.data) expect(row.modbus_device_id).toBe(meter);

    // The filtered rows are the same objects as in the full list.
    const all = (await registersOf(ids.acmeGateway1)).body.data;
    expect([...climateRows.body.data, ...meterRows.body.data]).toEqual(all);

    const rtu = await registersOf(ids.acmeGateway2, `?modbus_device_id=${acme2Device}`);
    expect(rtu.body.data.map((row) => row.id)).toEqual([flowTemperature.id]);
  });

  test("the Modbus device of another gateway is 404 not_found", async () => {
    for (const [gateway, device] of [
      [ids.acmeGateway1, acme2Device],
      [ids.acmeGateway2, climate],
      [ids.acmeGateway2, meter],
      [ids.acmeGateway3, climate],
    ] as const) {
      const response = await registersOf(gateway, `?modbus_device_id=${device}`);
      expectProblem(response, 404, "not_found");
      expectApiHeaders(response);
    }
  });

  test("the Modbus device of another organisation's gateway is 404 not_found", async () => {
    expectProblem(await registersOf(ids.acmeGateway1, `?modbus_device_id=${globexMeter}`), 404, "not_found");
    expectProblem(
      await registersOf(ids.globexGateway, `?modbus_device_id=${climate}`, site.keys.globex),
      404,
      "not_found",
    );
  });

  test("an unknown Modbus device id is 404 not_found", async () => {
    expectProblem(
      await registersOf(ids.acmeGateway1, "?modbus_device_id=00000000-0000-4000-8000-000000000000"),
      404,
      "not_found",
    );
  });

  test("a malformed modbus_device_id is 400 invalid_parameter", async () => {
    for (const value of ["xyz", "", "1", `${climate}0`, climate.slice(1), "Climate computer"]) {
      const response = await registersOf(ids.acmeGateway1, `?modbus_device_id=${encodeURIComponent(value)}`);
      expectProblem(response, 400, "invalid_parameter");
      expectApiHeaders(response);
    }
  });

  test("the 400 detail names the parameter the client sent (modbus_device_id)", async () => {
    const response = await registersOf(ids.acmeGateway1, "?modbus_device_id=xyz");
    expectProblem(response, 400, "invalid_parameter");
    expect((response.body as { detail?: string }).detail).toStartWith("modbus_device_id:");
  });

  test("an unknown query parameter is 400 rather than ignored", async () => {
    expectProblem(await registersOf(ids.acmeGateway1, `?device_id=${climate}`), 400, "invalid_parameter");
  });
});

describe("which gateway", () => {
  test("an unknown gateway is 404 not_found", async () => {
    expectProblem(await registersOf("00000000-0000-4000-8000-000000000000"), 404, "not_found");
    expectProblem(await registersOf(stableUuid("gateway", "ACME-9")), 404, "not_found");
  });

  test("another organisation's gateway is 404 not_found, both ways", async () => {
    const fromAcme = await registersOf(ids.globexGateway);
    expectProblem(fromAcme, 404, "not_found");
    expectApiHeaders(fromAcme);
    for (const id of [ids.acmeGateway1, ids.acmeGateway2, ids.acmeGateway3, ids.acmeGateway4]) {
      expectProblem(await registersOf(id, "", site.keys.globex), 404, "not_found");
    }
    const own = await registersOf(ids.globexGateway, "", site.keys.globex);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      data: [
        register("GLOBEX-1", "Meter", globexMeter, {
          name: "voltage",
          address: 0,
          function_code: 3,
          data_type: "float32",
          unit: "V",
          scale_factor: null,
          is_writable: false,
          description: null,
        }),
      ],
    });
  });

  test("UUIDs are case-insensitive: upper-case gateway and Modbus device ids find the same rows", async () => {
    const lower = await registersOf(ids.acmeGateway1, `?modbus_device_id=${meter}`);
    expect(lower.status).toBe(200);
    const upperGateway = await registersOf(ids.acmeGateway1.toUpperCase(), `?modbus_device_id=${meter}`);
    expect(upperGateway.status).toBe(200);
    expect(upperGateway.body).toEqual(lower.body);
    const upperDevice = await registersOf(ids.acmeGateway1, `?modbus_device_id=${meter.toUpperCase()}`);
    expect(upperDevice.status).toBe(200);
    expect(upperDevice.body).toEqual(lower.body);
  });

  test("a malformed gateway id is 400 invalid_parameter", async () => {
    for (const id of ["not-a-uuid", "ACME-1", "42", ids.acmeGateway1.slice(0, -1), `${ids.acmeGateway1}x`]) {
      const response = await registersOf(encodeURIComponent(id));
      expectProblem(response, 400, "invalid_parameter");
      expectApiHeaders(response);
    }
  });

  test("the registers:read scope is needed; devices:read and alerts:read alone are 403", async () => {
    expect((await registersOf(ids.acmeGateway1, "", site.keys.acmeRegistersOnly)).status).toBe(200);
    for (const key of [site.keys.acmeDevicesOnly, site.keys.acmeAlertsOnly, site.keys.acmeNoScopes]) {
      expectProblem(await registersOf(ids.acmeGateway1, "", key), 403, "insufficient_scope");
    }
  });
});
