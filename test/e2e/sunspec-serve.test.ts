/**
 * SunSpec on `serve` (docs/sunspec.md; issue 29's proof, the serve half): a pymodbus
 * device serving models 1, 103 and 160 (test/harness/sunspec-device.ts, its map written
 * by hand from the model definitions) is polled by `fieldhub serve` with
 * `sunspec: { models: [1, 103, 160] }`. Through /v1 it serves W, A, Hz and the MPPT
 * modules' values equal to raw x 10^sf (the scale read from the device in the same
 * cycle), the unimplemented point as null, and the common model's text in
 * `latest_text`. A second device on the same bus has no SunSpec marker: its health says
 * so, and its own registers are polled all the same: one scaled by another register
 * (`scale_factor_register`), one holding its `not_implemented` value.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { type RunningCli, runCli, servedUrl, startCli } from "../harness/cli.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { createReadKey, eventually, getData } from "../harness/served-api.ts";
import { expectedTexts, expectedValues, sunSpecUnitSpec } from "../harness/sunspec-device.ts";

const python = "/usr/bin/python3";
let workDir = "";
let peer: PymodbusPeer;
let server: RunningCli;
let baseUrl = "";
let key = "";
const gatewayId = stableUuid("gateway", "SUNSPEC-GW");

type Register = {
  id: string;
  name: string;
  modbus_device_name: string;
  unit: string | null;
  scale_factor: number | null;
  latest_value: number | null;
  latest_raw_value: number | null;
  latest_text: string | null;
  latest_ts: string | null;
};
type ModbusDevice = { name: string; health: { status: string; last_error: string | null } };

beforeAll(async () => {
  if (!existsSync(python)) throw new Error("needs Debian's pymodbus: apt-get install python3-pymodbus");
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-sunspec-"));
  peer = await startPymodbusPeer({
    tcp_port: 0,
    serial: null,
    units: {
      "1": sunSpecUnitSpec(),
      "2": {
        hr: [
          { address: 0, type: "uint16", value: 77 },
          { address: 1, type: "uint16", value: 4321 },
          { address: 2, type: "int16", value: -2 },
          { address: 3, type: "uint16", value: 65535 },
        ],
      },
    },
  });
  writeFileSync(
    join(workDir, "fieldhub.yaml"),
    `
organizations: [{ key: solar, name: Solar }]
storage: { commit_interval_s: 1 }
gateways:
  - serial: SUNSPEC-GW
    name: Inverter gateway
    bus: { type: tcp }
    devices:
      - name: inverter
        slave_id: 1
        host: 127.0.0.1
        port: ${peer.port}
        poll_interval_ms: 300
        timeout_ms: 500
        sunspec: { models: [1, 103, 160] }
      - name: plain
        slave_id: 2
        host: 127.0.0.1
        port: ${peer.port}
        poll_interval_ms: 300
        timeout_ms: 500
        sunspec: { models: [103] }
        registers:
          - { name: counter, address: 0, data_type: uint16, not_implemented: 65535 }
          - { name: power, address: 1, data_type: uint16, unit: kW, scale_factor_register: power_sf }
          - { name: power_sf, address: 2, data_type: int16 }
          - { name: spare, address: 3, data_type: uint16, not_implemented: 65535 }
`,
  );
  const check = await runCli(["config", "check", join(workDir, "fieldhub.yaml")]);
  expect(check.stderr).toBe("");
  expect(check.code).toBe(0);
  const dataDir = join(workDir, "data");
  server = startCli(["serve", "--config", join(workDir, "fieldhub.yaml"), "--data", dataDir, "--port", "0"]);
  baseUrl = await server.waitFor(servedUrl);
  key = await createReadKey(dataDir, "solar");
}, 30_000);

afterAll(async () => {
  await server?.stop();
  peer?.proc.kill();
  rmSync(workDir, { recursive: true, force: true });
});

const get = <T>(path: string) => getData<T>(baseUrl, key, path);

/** The inverter's registers by name (the plain device has SunSpec registers of the same names, never placed). */
const byName = (registers: Register[], device = "inverter") =>
  new Map(
    registers.filter((register) => register.modbus_device_name === device).map((register) => [register.name, register]),
  );

describe("a SunSpec inverter on serve", () => {
  test("W, A, Hz and the MPPT modules are raw x 10^sf, the unimplemented point null", async () => {
    const names = Object.keys(expectedValues);
    const servedOf = (list: Register[]) => {
      const found = byName(list);
      return Object.fromEntries(names.map((name) => [name, found.get(name)?.latest_value]));
    };
    // The first answers may come before the scale factors read from the device are written.
    const list = await eventually(
      () => get<Register[]>(`/v1/devices/${gatewayId}/registers`),
      (registers) => Bun.deepEquals(servedOf(registers), expectedValues),
    );
    expect(servedOf(list)).toEqual(expectedValues);
    const registers = byName(list);
    // raw_value stays raw; scale_factor is the one read from the device.
    expect(registers.get("103.W")).toMatchObject({ unit: "W", latest_raw_value: 12345, scale_factor: 0.1 });
    expect(registers.get("160.module.1.DCA")).toMatchObject({ unit: "A", latest_raw_value: 523, scale_factor: 0.01 });
    expect(registers.get("103.Hz")?.unit).toBe("Hz");
    // A module the device does not have (it has two) is not polled.
    expect(registers.get("160.module.3.DCA")?.latest_ts).toBeNull();
  }, 25_000);

  test("the common model's text is in latest_text", async () => {
    const registers = byName(
      await eventually(
        () => get<Register[]>(`/v1/devices/${gatewayId}/registers`),
        (list) => byName(list).get("1.SN")?.latest_text != null,
      ),
    );
    for (const [name, text] of Object.entries(expectedTexts)) expect(registers.get(name)?.latest_text).toBe(text);
  }, 20_000);

  test("the readings history stores raw values and serves them scaled", async () => {
    const registers = await get<Register[]>(`/v1/devices/${gatewayId}/registers`);
    const wId = byName(registers).get("103.W")?.id;
    const readings = await eventually(
      () =>
        get<{ register_id: string; value: number | null; raw_value: number | null }[]>(
          `/v1/devices/${gatewayId}/readings?register_id=${wId}`,
        ),
      (rows) => rows.length > 0,
    );
    expect(readings[0]).toMatchObject({ value: 1234.5, raw_value: 12345 });
  }, 20_000);

  test("a device without the SunS marker says so in its health; its own register is polled", async () => {
    const detail = await eventually(
      () => get<{ modbus_devices: ModbusDevice[] }>(`/v1/devices/${gatewayId}`),
      (gateway) => gateway.modbus_devices.find((device) => device.name === "plain")?.health.last_error != null,
    );
    const plain = detail.modbus_devices.find((device) => device.name === "plain");
    expect(plain?.health.last_error).toBe("SunSpec model chain not read: no SunS marker at 40000, 0 or 50000");
    const registers = byName(
      await eventually(
        () => get<Register[]>(`/v1/devices/${gatewayId}/registers`),
        (list) => byName(list, "plain").get("power")?.latest_value === 43.21,
      ),
      "plain",
    );
    expect(registers.get("counter")?.latest_value).toBe(77);
    // scale_factor_register and not_implemented on registers of the file's own.
    expect(registers.get("power")).toMatchObject({ latest_value: 43.21, latest_raw_value: 4321, scale_factor: 0.01 });
    expect(registers.get("spare")).toMatchObject({ latest_value: null });
    expect(registers.get("spare")?.latest_ts).not.toBeNull();
    // Its SunSpec registers are not polled while the chain cannot be read.
    expect(registers.get("103.W")?.latest_ts).toBeNull();
  }, 20_000);
});
