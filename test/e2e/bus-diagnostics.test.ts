/**
 * Bus diagnostics and poll groups on the real process (docs/polling.md, "Bus
 * diagnostics" and "Poll groups"): `fieldhub serve` polls two Debian pymodbus peers
 * over Modbus TCP, one device on each. The meter's registers have three poll
 * intervals (1 s, its device's 2 s, 10 s) and the peer counts the read requests it
 * gets by address: each is read at its own rate. A register the peer refuses is
 * counted as exception 2. The other peer is frozen (SIGSTOP: its connection stays up,
 * nothing answers): that device's timeouts grow in /metrics and in its health while
 * the meter's stay at zero.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { type RunningCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { createReadKey, eventually, getData, metricSeries } from "../harness/served-api.ts";

const serial = "DIAG-GW";
const gatewayId = stableUuid("gateway", serial);
const skipReason = existsSync("/usr/bin/python3")
  ? undefined
  : "needs Debian's pymodbus: apt-get install python3-pymodbus";

/** Unit 1 with holding registers 0..2 and 10; 40010 is not in the map (exception 2). */
const peerSpec = {
  tcp_port: 0,
  serial: null,
  units: { "1": { hr: [0, 1, 2, 10].map((address) => ({ address, type: "int16", value: 100 + address })) } },
};

let workDir = "";
let server: RunningCli | undefined;
let baseUrl = "";
let key = "";
let meterPeer: PymodbusPeer;
let otherPeer: PymodbusPeer;

beforeAll(async () => {
  if (skipReason !== undefined) return;
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-diagnostics-"));
  meterPeer = await startPymodbusPeer(peerSpec);
  otherPeer = await startPymodbusPeer(peerSpec);
  const config = join(workDir, "fieldhub.yaml");
  writeFileSync(
    config,
    `
organizations: [{ key: plant, name: Plant }]
gateways:
  - serial: ${serial}
    name: Plant room
    bus: { type: tcp }
    devices:
      - name: meter
        slave_id: 1
        host: 127.0.0.1
        port: ${meterPeer.port}
        poll_interval_ms: 2000
        timeout_ms: 500
        retries: 0
        registers:
          # Adjacent addresses: one request if they shared an interval.
          - { name: power, address: 0, data_type: int16, poll_interval_ms: 1000 }
          - { name: energy, address: 1, data_type: int16 }
          - { name: nameplate, address: 2, data_type: int16, poll_interval_ms: 10000 }
          - { name: refused, address: 40010, data_type: int16 }
      - name: boiler
        slave_id: 1
        host: 127.0.0.1
        port: ${otherPeer.port}
        poll_interval_ms: 500
        timeout_ms: 300
        retries: 1
        registers:
          - { name: flow, address: 10, data_type: int16 }
`,
  );
  const dataDir = join(workDir, "data");
  server = startCli(serveArgs(config, dataDir));
  baseUrl = await server.waitFor(servedUrl);
  key = await createReadKey(dataDir, "plant");
}, 30_000);

afterAll(async () => {
  otherPeer?.proc.kill("SIGCONT");
  await server?.stop();
  meterPeer?.proc.kill();
  otherPeer?.proc.kill();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

type Counters = {
  requests: number;
  timeouts: number;
  exceptions: Record<string, number>;
  crc_errors: number;
  framing_errors: number;
  retries: number;
  mean_response_ms: number | null;
};

async function countersOf(name: string): Promise<Counters> {
  const gateway = await getData<{ modbus_devices: { name: string; health: { counters: Counters } }[] }>(
    baseUrl,
    key,
    `/v1/devices/${gatewayId}`,
  );
  const device = gateway.modbus_devices.find((candidate) => candidate.name === name);
  if (device === undefined) throw new Error(`no device ${name}`);
  return device.health.counters;
}

/** A series of /metrics; NaN when it is not there, so that no expectation on it holds. */
const metric = async (series: string) => (await metricSeries(baseUrl, series)) ?? Number.NaN;

/** The requests the meter's peer served, as it logged them: [function code, address, monotonic s]. */
const peerLog = async () => JSON.parse((await meterPeer.ask("LOG")).slice("LOG ".length)) as [number, number, number][];
const reads = async (address: number) =>
  (await peerLog()).filter(([functionCode, at]) => functionCode === 3 && at === address).length;

describe.skipIf(skipReason !== undefined)(
  `bus diagnostics and poll groups${skipReason ? ` (${skipReason})` : ""}`,
  () => {
    test("the equipment sees each register group at its own rate: 1 s, the device's 2 s, 10 s", async () => {
      // Past the start, where every group was due at once.
      await eventually(
        () => reads(2),
        (seen) => seen >= 1,
        20_000,
      );
      const before = { power: await reads(0), energy: await reads(1), nameplate: await reads(2) };
      const windowMs = 10_000;
      await Bun.sleep(windowMs);
      const after = { power: await reads(0), energy: await reads(1), nameplate: await reads(2) };
      const seen = {
        power: after.power - before.power,
        energy: after.energy - before.energy,
        nameplate: after.nameplate - before.nameplate,
      };
      // windowMs / interval, give or take the one cycle the window's edges cut.
      expect(seen.power).toBeGreaterThanOrEqual(9);
      expect(seen.power).toBeLessThanOrEqual(11);
      expect(seen.energy).toBeGreaterThanOrEqual(4);
      expect(seen.energy).toBeLessThanOrEqual(6);
      expect(seen.nameplate).toBeGreaterThanOrEqual(1);
      expect(seen.nameplate).toBeLessThanOrEqual(2);
      // The adjacent registers were never read together: no request starts elsewhere in 0..2.
      const starts = new Set((await peerLog()).map(([functionCode, address]) => `${functionCode}:${address}`));
      expect([...starts].sort()).toEqual(["3:0", "3:1", "3:2", "3:40010"]);
    }, 30_000);

    test("a refused register counts as exception 2 of its device, in its health and in /metrics", async () => {
      const meter = await countersOf("meter");
      expect(meter.exceptions).toEqual({ "2": 1 });
      expect(await metric(`fieldhub_modbus_device_exceptions_total{gateway="${serial}",device="meter",code="2"}`)).toBe(
        1,
      );
      expect(meter.requests).toBeGreaterThan(10);
      expect(meter.mean_response_ms).toBeGreaterThan(0);
    });

    test("a frozen peer: its device's timeouts and retries grow in /metrics and in its health; the other device's do not", async () => {
      const boilerBefore = await countersOf("boiler");
      expect(boilerBefore).toMatchObject({ timeouts: 0, retries: 0, crc_errors: 0, framing_errors: 0 });
      otherPeer.proc.kill("SIGSTOP");
      const boiler = await eventually(
        () => countersOf("boiler"),
        (counters) => counters.timeouts >= 4,
      );
      expect(boiler.timeouts).toBeGreaterThanOrEqual(4);
      expect(boiler.retries).toBeGreaterThanOrEqual(1);
      expect(boiler.requests - boilerBefore.requests).toBeGreaterThanOrEqual(boiler.timeouts);
      const timeouts = await metric(`fieldhub_modbus_device_timeouts_total{gateway="${serial}",device="boiler"}`);
      expect(timeouts).toBeGreaterThanOrEqual(boiler.timeouts);
      // The meter, on its own connection, goes on: no timeout, no retry, its requests still counted.
      const meter = await countersOf("meter");
      expect(meter).toMatchObject({ timeouts: 0, retries: 0, crc_errors: 0, framing_errors: 0 });
      expect(await metric(`fieldhub_modbus_device_timeouts_total{gateway="${serial}",device="meter"}`)).toBe(0);
      expect(
        await metric(`fieldhub_modbus_device_requests_total{gateway="${serial}",device="meter"}`),
      ).toBeGreaterThanOrEqual(meter.requests);
      // The response-time histogram counts every request of the device, answered or not.
      const count = await metric(`fieldhub_modbus_device_response_seconds_count{gateway="${serial}",device="boiler"}`);
      expect(count).toBeGreaterThanOrEqual(boiler.requests);
      expect(
        await metric(`fieldhub_modbus_device_response_seconds_bucket{gateway="${serial}",device="boiler",le="0.25"}`),
      ).toBeLessThan(count);
    }, 30_000);
  },
);
