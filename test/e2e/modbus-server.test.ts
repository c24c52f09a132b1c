/**
 * The Modbus TCP server (docs/polling.md, "The Modbus TCP server") on a real `fieldhub
 * serve`, used by independent masters only (Debian's mbpoll, pymodbus's client,
 * raw sockets for what no master sends) in front of pymodbus equipment over Modbus
 * TCP: values read through the server are the equipment's words for every table and
 * data type; a read outside the plan goes to the bus and its answer (or the device's
 * exception) comes back as it came; unknown unit 10; a quarantined device 11 at once;
 * writes refused with exception 1 while off, and with writes on a write lands in the
 * equipment and in `fieldhub writes list`, by its registers, or by its device and
 * request when it covers none whole; a client outside `allow` is refused; a
 * malformed frame costs only its own connection; three masters reading polled
 * registers get the equipment's words without errors while the equipment sees no
 * more requests than fieldhub's polling plus the misses. On an RTU line (a socat pty
 * pair), three masters reading only unpolled addresses: no broken frame at the
 * equipment, and no request between a poll's due time and the poll but the one in flight.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { freePort, type RunningCli, runCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";
import { mbpollRead, mbpollWrite } from "../harness/mbpoll.ts";
import { type PymodbusPeer, startPymodbusPeer, startSocat } from "../harness/pymodbus.ts";
import { modbusFrame, rawModbusClient } from "../harness/raw-modbus-client.ts";
import { createReadKey, eventually, getData, metricSeries } from "../harness/served-api.ts";

const python = "/usr/bin/python3";
const masterFixture = join(import.meta.dir, "..", "fixtures", "pymodbus_master.py");
const canRun = existsSync(python) && existsSync("/usr/bin/mbpoll") && existsSync("/usr/bin/socat");

/** Holding registers of every data type, one after another from 0, as pymodbus encodes them. */
const holding = [
  { address: 0, type: "int16", value: -12345 },
  { address: 1, type: "uint16", value: 54321 },
  { address: 2, type: "int32", value: -2_000_000_123, order: "CDAB" },
  { address: 4, type: "uint32", value: 4_000_000_123, order: "BADC" },
  { address: 6, type: "float32", value: 123.456 },
  { address: 8, type: "float32", value: -0.5, order: "DCBA" },
  { address: 10, type: "int64", value: -9_007_199_254_740_991 },
  { address: 14, type: "uint64", value: 9_007_199_254_740_991, order: "CDAB" },
  { address: 18, type: "float64", value: -98765.4321, order: "BADC" },
  { address: 22, type: "uint16", value: 0b1010_0000_0000_0101 },
  { address: 23, type: "string", value: "FH-TEST", length: 4 },
];
const holdingWords = 27;
const registersYaml = [
  "{ name: i16, address: 0, data_type: int16 }",
  "{ name: u16, address: 1, data_type: uint16 }",
  "{ name: i32, address: 2, data_type: int32, byte_order: CDAB }",
  "{ name: u32, address: 4, data_type: uint32, byte_order: BADC }",
  "{ name: f32, address: 6, data_type: float32 }",
  "{ name: f32le, address: 8, data_type: float32, byte_order: DCBA }",
  "{ name: i64, address: 10, data_type: int64 }",
  "{ name: u64, address: 14, data_type: uint64, byte_order: CDAB }",
  "{ name: f64, address: 18, data_type: float64, byte_order: BADC }",
  "{ name: bit0, address: 22, data_type: bool, bit: 0 }",
  "{ name: bit13, address: 22, data_type: bool, bit: 13 }",
  "{ name: label, address: 23, data_type: string, length: 4 }",
  "{ name: temperature, address: 10, function_code: 4, data_type: int16, scale_factor: 0.1 }",
  "{ name: coil_on, address: 0, function_code: 1, data_type: bool }",
  "{ name: coil_off, address: 1, function_code: 1, data_type: bool }",
  "{ name: input_on, address: 5, function_code: 2, data_type: bool }",
]
  .map((line) => `          - ${line}`)
  .join("\n");

const equipmentSpec = {
  tcp_port: 0,
  units: {
    "1": {
      // 500 is not polled: a read of it goes to the bus.
      hr: [...holding, { address: 500, type: "uint16", value: 4242 }],
      ir: [{ address: 10, type: "int16", value: 215 }],
      co: [
        { address: 0, value: true },
        { address: 1, value: false },
      ],
      di: [{ address: 5, value: true }],
    },
  },
};
/** 0 and 2..3 polled (an int32 at 2); 10 is not. */
const actuatorSpec = {
  tcp_port: 0,
  units: {
    "1": {
      hr: [
        { address: 0, type: "int16", value: 200 },
        { address: 1, type: "uint16", value: 0 },
        { address: 2, type: "int32", value: 70_000 },
        { address: 10, type: "uint16", value: 1 },
      ],
      co: [{ address: 0, value: false }],
    },
  },
};

/** Equipment on an RTU line: 0..9 polled, 100..119 not (every read of them is a miss). */
const lineSpec = (path: string) => ({
  serial: { port: path, baudrate: 19200, parity: "N", stopbits: 1, bytesize: 8 },
  units: {
    "1": {
      hr: [
        ...Array.from({ length: 10 }, (_, i) => ({ address: i, type: "int16", value: 100 + i })),
        ...Array.from({ length: 20 }, (_, i) => ({ address: 100 + i, type: "uint16", value: 50_000 + i })),
      ],
    },
  },
});
const linePollMs = 200;

let workDir = "";
let lineEquipment: PymodbusPeer;
let lineSocat: { kill(): void } | undefined;
let linePort = 0;
let dataDir = "";
let serve: RunningCli;
let baseUrl = "";
let equipment: PymodbusPeer;
let actuator: PymodbusPeer;
let readPort = 0;
let writePort = 0;

beforeAll(async () => {
  if (!canRun) return;
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-modbus-server-"));
  dataDir = join(workDir, "data");
  equipment = await startPymodbusPeer(equipmentSpec);
  actuator = await startPymodbusPeer(actuatorSpec);
  readPort = freePort();
  writePort = freePort();
  linePort = freePort();
  const lineA = join(workDir, "line-a");
  const lineB = join(workDir, "line-b");
  lineSocat = await startSocat([`pty,raw,echo=0,link=${lineA}`, `pty,raw,echo=0,link=${lineB}`], [lineA, lineB]);
  lineEquipment = await startPymodbusPeer(lineSpec(lineB));
  const config = `
organizations: [{ key: plant, name: Plant }]
gateways:
  - serial: SHARED
    name: Shared bus
    bus: { type: tcp }
    # Answers from memory while the words are at most 1.5 s old: three poll cycles.
    modbus_server: { port: ${readPort}, host: 127.0.0.1, max_age_ms: 1500, allow: [127.0.0.1/32] }
    devices:
      - name: meter
        slave_id: 1
        host: 127.0.0.1
        port: ${equipment.port}
        poll_interval_ms: 500
        timeout_ms: 500
        registers:
${registersYaml}
      # No unit 7 on the equipment: pymodbus answers exception 11 for it, which counts as silence.
      - name: absent
        slave_id: 7
        host: 127.0.0.1
        port: ${equipment.port}
        poll_interval_ms: 500
        timeout_ms: 300
        retries: 0
        registers:
          - { name: nothing, address: 0, data_type: int16 }
  - serial: WRITABLE
    name: Writable through the server
    bus: { type: tcp }
    modbus_server: { port: ${writePort}, host: 127.0.0.1, writes: true, allow: [127.0.0.0/8] }
    devices:
      - name: actuator
        slave_id: 1
        server_unit_id: 3
        host: 127.0.0.1
        port: ${actuator.port}
        poll_interval_ms: 500
        registers:
          - { name: setpoint, address: 0, data_type: int16, scale_factor: 0.1 }
          - { name: limit, address: 2, data_type: int32 }
          - { name: relay, address: 0, function_code: 1, data_type: bool }
  # A pty keeps no parity bit, so the equipment runs 8N1 (docs/serial.md).
  - serial: LINE
    name: RTU line
    bus: { type: rtu, path: ${lineA}, baud: 19200 }
    modbus_server: { port: ${linePort}, host: 127.0.0.1 }
    devices:
      - name: boiler
        slave_id: 1
        poll_interval_ms: ${linePollMs}
        timeout_ms: 500
        registers:
${Array.from({ length: 10 }, (_, i) => `          - { name: r${i}, address: ${i}, data_type: int16 }`).join("\n")}
`;
  writeFileSync(join(workDir, "fieldhub.yaml"), config);
  const check = await runCli(["config", "check", join(workDir, "fieldhub.yaml")]);
  expect(check.code).toBe(0);
  serve = startCli(serveArgs(join(workDir, "fieldhub.yaml"), dataDir));
  baseUrl = await serve.waitFor(servedUrl);
  await serve.waitFor((out) => (out.split("Modbus TCP server listening").length > 3 ? true : null));
  // The first poll cycles have read the meter, and the absent device is quarantined.
  await eventually(
    () => metric(`fieldhub_modbus_requests_total{gateway="SHARED"}`),
    (requests) => requests >= 12,
  );
}, 40_000);

afterAll(async () => {
  await serve?.stop();
  equipment?.proc.kill();
  actuator?.proc.kill();
  lineEquipment?.proc.kill();
  lineSocat?.kill();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

type MasterResult = {
  words?: number[];
  bits?: boolean[];
  exception?: number;
  ok?: boolean;
  error?: string;
  reads?: number;
  errors?: number;
  mismatches?: number;
};

/** pymodbus's client on `port`, the actions in order on one connection. */
async function master(port: number, actions: Record<string, unknown>[]): Promise<MasterResult[]> {
  const proc = Bun.spawn([python, masterFixture, String(port), JSON.stringify(actions)], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
  if ((await proc.exited) !== 0) throw new Error(`pymodbus master failed: ${err}`);
  return JSON.parse(out) as MasterResult[];
}

const read = (fc: number, unit: number, start: number, count: number) => ({ op: "read", fc, unit, start, count });

async function metricsText(): Promise<string> {
  return (await fetch(`${baseUrl}/metrics`)).text();
}

/** A series of /metrics; 0 before it is first counted. */
const metric = async (series: string) => (await metricSeries(baseUrl, series)) ?? 0;

const serverRequests = (gateway: string, result: string) =>
  metric(`fieldhub_modbus_server_requests_total{gateway="${gateway}",result="${result}"}`);

async function peerStats(peer: PymodbusPeer): Promise<{ requests: number; writes: number }> {
  return JSON.parse((await peer.ask("STATS")).slice(6)) as { requests: number; writes: number };
}

type ListedWrite = {
  gateway_serial: string;
  modbus_device_name: string | null;
  register_id: string | null;
  register_name: string | null;
  actor: string;
  value_asked: number | null;
  value_before: number | null;
  request: { function_code: number; address: number; count: number; values: number[] } | null;
  result: string;
};

/** `fieldhub writes list --json` as a process, newest first, once it lists at least `count` writes. */
async function writesListed(count: number): Promise<ListedWrite[]> {
  const list = async () =>
    JSON.parse((await runCli(["writes", "list", "--data", dataDir, "--json"])).stdout) as ListedWrite[];
  return eventually(list, (listed) => listed.length >= count, 10_000);
}

const rawClient = rawModbusClient;

/** A Modbus TCP read of holding registers as bytes. */
const readFrame = (transactionId: number, unit: number, start: number, count: number) =>
  modbusFrame(transactionId, unit, [3, start >> 8, start & 0xff, count >> 8, count & 0xff]);

describe.skipIf(!canRun)("reads through the server", () => {
  test("every table and data type: the equipment's own words, from memory", async () => {
    const fromCacheBefore = await serverRequests("SHARED", "cache");
    const reads = [read(3, 1, 0, holdingWords), read(4, 1, 10, 1), read(1, 1, 0, 2), read(2, 1, 5, 1)];
    const direct = await master(equipment.port, reads);
    const through = await master(readPort, reads);
    expect(direct[0]?.words).toHaveLength(holdingWords);
    expect(direct[1]?.words).toEqual([215]);
    expect(direct[2]?.bits).toEqual([true, false]);
    expect(direct[3]?.bits).toEqual([true]);
    expect(through).toEqual(direct);
    // Another master, another reading of the same words.
    const polled = await mbpollRead(readPort, 1, 0, holdingWords);
    expect(polled.code, polled.text).toBe(0);
    expect(polled.values).toEqual(direct[0]?.words ?? []);
    expect((await serverRequests("SHARED", "cache")) - fromCacheBefore).toBe(5);
  });

  test("a read outside the plan goes to the bus; the device's exception comes back as it came", async () => {
    const fromBusBefore = await serverRequests("SHARED", "bus");
    const [unpolled, missing] = await master(readPort, [read(3, 1, 500, 1), read(3, 1, 600, 2)]);
    expect(unpolled).toEqual({ words: [4242] });
    // The equipment has nothing at 600: exception 2, from the device, not the server.
    expect(missing).toEqual({ exception: 2 });
    expect((await serverRequests("SHARED", "bus")) - fromBusBefore).toBe(2);
  });

  test("a unit id no device has: exception 10; a quarantined device: exception 11 at once", async () => {
    const [ownBefore, busBefore] = [await serverRequests("SHARED", "exception"), await serverRequests("SHARED", "bus")];
    const [unknown, quarantined] = await master(readPort, [read(3, 42, 0, 1), read(3, 7, 0, 1)]);
    expect(unknown).toEqual({ exception: 10 });
    expect(quarantined).toEqual({ exception: 11 });
    // Both answered by the server itself: the equipment would answer 11 for unit 7 too, but was not asked.
    expect((await serverRequests("SHARED", "exception")) - ownBefore).toBe(2);
    expect(await serverRequests("SHARED", "bus")).toBe(busBefore);
    const polled = await mbpollRead(readPort, 42, 0, 1);
    expect(polled.code).not.toBe(0);
    expect(polled.text).toMatch(/Gateway path unavailable|exception|0x0a/i);
  });
});

describe.skipIf(!canRun)("writes", () => {
  test("refused with exception 1 while writes are off; the equipment is unchanged", async () => {
    const before = await peerStats(equipment);
    const results = await master(readPort, [
      { op: "write", fc: 6, unit: 1, start: 0, values: [1] },
      { op: "write", fc: 16, unit: 1, start: 0, values: [1, 2] },
      { op: "write", fc: 5, unit: 1, start: 0, values: [false] },
    ]);
    expect(results).toEqual([{ exception: 1 }, { exception: 1 }, { exception: 1 }]);
    expect((await peerStats(equipment)).writes).toBe(before.writes);
    expect(await equipment.ask("DUMP 1 hr 0 1")).toBe(`DUMP [${-12345 & 0xffff}]`);
  });

  test("with writes on, a write lands in the equipment, is read back by another master, and is in the audit", async () => {
    const results = await master(writePort, [
      { op: "write", fc: 6, unit: 3, start: 0, values: [215] },
      { op: "write", fc: 5, unit: 3, start: 0, values: [true] },
    ]);
    expect(results).toEqual([{ ok: true }, { ok: true }]);
    const [word, coil] = await master(actuator.port, [read(3, 1, 0, 1), read(1, 1, 0, 1)]);
    expect(word).toEqual({ words: [215] });
    expect(coil).toEqual({ bits: [true] });

    const entries = await writesListed(2);
    const byName = Object.fromEntries(entries.map((entry) => [entry.register_name, entry]));
    expect(byName.setpoint).toMatchObject({
      actor: "modbus:127.0.0.1",
      value_asked: 21.5,
      value_before: 20,
      result: "written",
      request: null,
    });
    expect(byName.relay).toMatchObject({ actor: "modbus:127.0.0.1", value_asked: 1, result: "written" });
  });
  test("a write that covers no register whole (an unpolled address, half of an int32) is in the audit by its device and request", async () => {
    const before = (await writesListed(0)).length;
    // Another master than the one that reads back: mbpoll writes the unpolled address, pymodbus half the int32.
    const unpolled = await mbpollWrite(writePort, 3, 10, [0xbeef]);
    expect(unpolled.code, unpolled.text).toBe(0);
    const [half] = await master(writePort, [{ op: "write", fc: 16, unit: 3, start: 3, values: [0x4242] }]);
    expect(half).toEqual({ ok: true });
    const landed = await master(actuator.port, [read(3, 1, 3, 1), read(3, 1, 10, 1)]);
    expect(landed).toEqual([{ words: [0x4242] }, { words: [0xbeef] }]);

    const entries = (await writesListed(before + 2)).slice(0, 2);
    const device = { gateway_serial: "WRITABLE", modbus_device_name: "actuator", register_id: null, value_asked: null };
    expect(entries).toEqual([
      expect.objectContaining({
        ...device,
        actor: "modbus:127.0.0.1",
        request: { function_code: 16, address: 3, count: 1, values: [0x4242] },
        result: "written",
      }),
      expect.objectContaining({
        ...device,
        actor: "modbus:127.0.0.1",
        request: { function_code: 6, address: 10, count: 1, values: [0xbeef] },
        result: "written",
      }),
    ]);
    // As a person reads it: the device, the request and the values sent.
    const text = await runCli(["writes", "list", "--data", dataDir, "--limit", "2"]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines[0]).toContain(`actuator fc 16 at 3 (1)\tmodbus:127.0.0.1\t[${0x4242}]\twritten`);
    expect(lines[1]).toContain(`actuator fc 6 at 10 (1)\tmodbus:127.0.0.1\t[${0xbeef}]\twritten`);
  });

  test("a write that covers a register whole and an address no register names is in the audit both ways", async () => {
    const before = (await writesListed(0)).length;
    // Address 0 is the setpoint (int16); address 1 belongs to no register.
    const [both] = await master(writePort, [{ op: "write", fc: 16, unit: 3, start: 0, values: [230, 0x1234] }]);
    expect(both).toEqual({ ok: true });
    const [landed] = await master(actuator.port, [read(3, 1, 0, 2)]);
    expect(landed).toEqual({ words: [230, 0x1234] });

    const entries = (await writesListed(before + 2)).slice(0, 2);
    expect(entries).toContainEqual(
      expect.objectContaining({ register_name: "setpoint", value_asked: 23, request: null, result: "written" }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        modbus_device_name: "actuator",
        register_id: null,
        request: { function_code: 16, address: 0, count: 2, values: [230, 0x1234] },
        result: "written",
      }),
    );
  });
});

describe.skipIf(!canRun)("connections", () => {
  test("a client outside allow is closed at once and answered nothing", async () => {
    const refusedBefore = await serverRequests("SHARED", "refused");
    const outsider = rawClient(readPort, "127.0.0.2");
    await outsider.opened;
    outsider.socket.write(readFrame(1, 1, 0, 1));
    await Promise.race([outsider.ended, Bun.sleep(3000)]);
    expect(outsider.isClosed()).toBe(true);
    expect(outsider.received()).toEqual([]);
    expect((await serverRequests("SHARED", "refused")) - refusedBefore).toBe(1);
    // The same server admits 127.0.0.1.
    const [inside] = await master(readPort, [read(3, 1, 0, 1)]);
    expect(inside).toEqual({ words: [-12345 & 0xffff] });
  });

  test("a malformed frame closes its own connection only", async () => {
    const good = rawClient(readPort);
    const bad = rawClient(readPort);
    await Promise.all([good.opened, bad.opened]);
    // Protocol id 7: not Modbus.
    bad.socket.write(Uint8Array.of(0, 1, 0, 7, 0, 6, 1, 3, 0, 0, 0, 1));
    await Promise.race([bad.ended, Bun.sleep(3000)]);
    expect(bad.isClosed()).toBe(true);
    good.socket.write(readFrame(9, 1, 0, 1));
    expect(await good.take(11)).toEqual([0, 9, 0, 0, 0, 5, 1, 3, 2, (-12345 >> 8) & 0xff, -12345 & 0xff]);
    expect(good.isClosed()).toBe(false);
    good.socket.destroy();
  });

  test("the gateway's detail in the API and /metrics show the server", async () => {
    const key = await createReadKey(dataDir, "plant");
    const { modbus_server: server } = await getData<{
      modbus_server: { port: number; clients_connected: number; requests: Record<string, number> };
    }>(baseUrl, key, `/v1/devices/${stableUuid("gateway", "SHARED")}`);
    expect(server.port).toBe(readPort);
    expect(server.requests.cache).toBeGreaterThan(0);
    expect(server.requests.exception).toBeGreaterThan(0);
    expect(server.requests.refused).toBeGreaterThan(0);
    const text = await metricsText();
    expect(text).toMatch(/^fieldhub_modbus_server_connections\{gateway="SHARED"\} \d+$/m);
    expect(text).toMatch(/^fieldhub_modbus_server_request_seconds_bucket\{le="0\.002",gateway="SHARED"\} [1-9]\d*$/m);
  });
});

describe.skipIf(!canRun)("three masters at once", () => {
  test("no error at any master, the equipment's words at each, and no more requests at the equipment than polling plus misses", async () => {
    const seconds = 8;
    const expectWords = (await master(equipment.port, [read(3, 1, 0, holdingWords)]))[0]?.words ?? [];
    const peerBefore = (await peerStats(equipment)).requests;
    const missesBefore = await serverRequests("SHARED", "bus");
    const hammer = { op: "hammer", fc: 3, unit: 1, start: 0, count: holdingWords, seconds, expect: expectWords };
    const mbpollRuns = (async () => {
      const runs: Awaited<ReturnType<typeof mbpollRead>>[] = [];
      const deadline = Date.now() + seconds * 1000;
      while (Date.now() < deadline) runs.push(await mbpollRead(readPort, 1, 0, holdingWords));
      return runs;
    })();
    const [first, second] = await Promise.all([master(readPort, [hammer]), master(readPort, [hammer])]);
    const runs = await mbpollRuns;
    const peerDelta = (await peerStats(equipment)).requests - peerBefore;
    const misses = (await serverRequests("SHARED", "bus")) - missesBefore;

    for (const result of [first?.[0], second?.[0]]) {
      expect(result?.errors).toBe(0);
      expect(result?.mismatches).toBe(0);
      expect(result?.reads ?? 0).toBeGreaterThan(20);
    }
    expect(runs.every((run) => run.code === 0 && JSON.stringify(run.values) === JSON.stringify(expectWords))).toBe(
      true,
    );
    // The meter's plan is 4 requests (holding, input, coils, discrete inputs) every 500 ms;
    // the quarantined device is probed at most once a second.
    const pollCycles = Math.ceil((seconds * 1000) / 500) + 2;
    const polling = pollCycles * 4 + seconds + 1;
    expect(peerDelta).toBeLessThanOrEqual(polling + misses);
    const served = (first?.[0]?.reads ?? 0) + (second?.[0]?.reads ?? 0) + runs.length;
    expect(served).toBeGreaterThan(peerDelta);
    console.log(
      `three masters, ${seconds} s: ${served} reads served, ${misses} misses, ${peerDelta} requests at the equipment (polling allows ${polling})`,
    );
  }, 30_000);
});

describe.skipIf(!canRun)("an RTU line shared by three masters", () => {
  /**
   * From the equipment's own log of the last `seconds`: the longest time between two of
   * fieldhub's polls of the boiler (holding register 0), and the most other requests
   * the equipment served between a poll's due time (the poll before it plus the poll
   * interval) and the poll: the transactions that made it late.
   */
  async function pollTiming(seconds: number): Promise<{ longestGapMs: number; mostAhead: number }> {
    const log = JSON.parse((await lineEquipment.ask("LOG")).slice(4)) as [number, number, number][];
    const last = log.at(-1)?.[2] ?? 0;
    const recent = log.filter(([, , time]) => time >= last - seconds);
    const polls = recent.filter(([fc, address]) => fc === 3 && address === 0).map(([, , time]) => time);
    let longestGapMs = 0;
    let mostAhead = 0;
    for (let i = 1; i < polls.length; i++) {
      const [previous, poll] = [polls[i - 1] ?? 0, polls[i] ?? 0];
      longestGapMs = Math.max(longestGapMs, (poll - previous) * 1000);
      const due = previous + linePollMs / 1000;
      const ahead = recent.filter(([fc, address, time]) => !(fc === 3 && address === 0) && time > due && time < poll);
      mostAhead = Math.max(mostAhead, ahead.length);
    }
    return { longestGapMs, mostAhead };
  }

  test("misses hammered through the server: no broken frame at the equipment, no error at a master, polling late by at most one transaction", async () => {
    const seconds = 6;
    await Bun.sleep(seconds * 1000);
    const quiet = await pollTiming(seconds - 1);
    const before = JSON.parse((await lineEquipment.ask("STATS")).slice(6)) as { bad_frames: number; requests: number };
    const unpolled = JSON.parse((await lineEquipment.ask("DUMP 1 hr 100 20")).slice(5)) as number[];
    const missesBefore = await serverRequests("LINE", "bus");
    // Every read is of addresses fieldhub does not poll: each one a transaction on the line.
    const mbpollRuns = (async () => {
      const runs: Awaited<ReturnType<typeof mbpollRead>>[] = [];
      const deadline = Date.now() + seconds * 1000;
      while (Date.now() < deadline) runs.push(await mbpollRead(linePort, 1, 100, 10));
      return runs;
    })();
    const began = performance.now();
    const [wide, narrow] = await Promise.all([
      master(linePort, [{ op: "hammer", fc: 3, unit: 1, start: 100, count: 20, seconds, expect: unpolled }]),
      master(linePort, [{ op: "hammer", fc: 3, unit: 1, start: 110, count: 10, seconds, expect: unpolled.slice(10) }]),
    ]);
    const runs = await mbpollRuns;
    const busy = await pollTiming((performance.now() - began) / 1000);
    const after = JSON.parse((await lineEquipment.ask("STATS")).slice(6)) as { bad_frames: number; requests: number };
    const missCount = (await serverRequests("LINE", "bus")) - missesBefore;

    expect(after.bad_frames - before.bad_frames).toBe(0);
    for (const result of [wide?.[0], narrow?.[0]]) {
      expect(result?.errors).toBe(0);
      expect(result?.mismatches).toBe(0);
      expect(result?.reads ?? 0).toBeGreaterThan(50);
    }
    expect(
      runs.every((run) => run.code === 0 && JSON.stringify(run.values) === JSON.stringify(unpolled.slice(0, 10))),
    ).toBe(true);
    console.log(
      `RTU line, ${seconds} s: ${missCount} misses through the bus, ${runs.length} of them mbpoll runs; ` +
        `the equipment saw ${after.requests - before.requests} requests; longest gap between polls ${quiet.longestGapMs.toFixed(0)} ms quiet, ` +
        `${busy.longestGapMs.toFixed(0)} ms while hammered; at most ${busy.mostAhead} request(s) between a poll's due time and the poll`,
    );
    // A poll waits at most for the pass-through in flight when it fell due.
    expect(busy.mostAhead).toBeLessThanOrEqual(1);
  }, 40_000);
});
