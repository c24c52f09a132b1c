/**
 * Register writes end to end through fieldhub's public doors: `fieldhub
 * serve` polls Debian's pymodbus over Modbus TCP and over a serial line (a socat pty
 * pair); values are written with PUT /v1/devices/{id}/registers/{register_id} and
 * checked by an independent pymodbus client (TCP) or the peer's own datastore (RTU,
 * whose one line fieldhub holds). Every error answer, a device that refuses the write,
 * a device that never answers a write, writes interleaved with fast polling on an RTU
 * bus (the peer counts broken frames), the audit through `fieldhub writes list`, and
 * the `register.written` event at a webhook receiver (signature checked with the
 * reference standardwebhooks library).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { stableUuid } from "../../src/lib/ids.ts";
import { isEventData } from "../../src/store/contract/event-types.ts";
import { type RunningCli, runCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";
import { type PymodbusPeer as Peer, startPymodbusPeer as startPeer, startSocat } from "../harness/pymodbus.ts";
import { createKey, eventually } from "../harness/served-api.ts";

const python = "/usr/bin/python3";
const readerFixture = join(import.meta.dir, "..", "fixtures", "pymodbus_read.py");
const canRun = existsSync(python) && existsSync("/usr/bin/socat");

type PeerEntry = { address: number; type: string; value: number; order?: string };

function peerSpec(serialPath: string | null) {
  return {
    tcp_port: 0,
    serial: serialPath === null ? null : { port: serialPath, baudrate: 19200, parity: "N", stopbits: 1, bytesize: 8 },
    units: {
      "1": {
        hr: [
          { address: 0, type: "int16", value: 0 },
          { address: 1, type: "uint16", value: 0 },
          { address: 10, type: "int32", value: 0 },
          { address: 12, type: "int32", value: 0, order: "CDAB" },
          { address: 14, type: "uint32", value: 0 },
          { address: 16, type: "uint32", value: 0, order: "CDAB" },
          { address: 18, type: "float32", value: 0 },
          { address: 20, type: "float32", value: 0, order: "CDAB" },
          { address: 30, type: "uint16", value: 0b1000_0000_0000_0001 },
          { address: 40, type: "int16", value: 7 },
          { address: 41, type: "int16", value: 9 },
        ] satisfies PeerEntry[],
        readonly_hr: [40],
        co: [{ address: 0, value: false }],
      },
    },
  };
}

/** What an independent pymodbus client reads from the TCP peer. */
async function readIndependently(
  port: number,
  reads: { table: string; address: number; type?: string; order?: string }[],
) {
  const proc = Bun.spawn([python, readerFixture, JSON.stringify({ port, unit: 1, reads })], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
  if ((await proc.exited) !== 0) throw new Error(`pymodbus reader failed: ${err}`);
  return JSON.parse(out) as number[];
}

/** A Modbus TCP device that answers reads of holding registers (all zero) and never answers a write. */
function startSilentWriter() {
  return Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, data) {
        const bytes = new Uint8Array(data);
        if (bytes.length < 12 || bytes[7] !== 3) return;
        const count = ((bytes[10] ?? 0) << 8) | (bytes[11] ?? 0);
        const answer = new Uint8Array(9 + count * 2);
        answer.set(bytes.subarray(0, 4));
        const length = 3 + count * 2;
        answer[4] = length >> 8;
        answer[5] = length & 0xff;
        answer[6] = bytes[6] ?? 0;
        answer[7] = 3;
        answer[8] = count * 2;
        socket.write(answer);
      },
    },
  });
}

const tcpRegisters = `
          - { name: i16, address: 0, data_type: int16, unit: "°C", scale_factor: 0.1, writable: true, min: -100, max: 100 }
          - { name: u16, address: 1, data_type: uint16, writable: true, min: 0, max: 65535, write_function: 16 }
          - { name: i32_abcd, address: 10, data_type: int32, writable: true, min: -3000000000, max: 3000000000 }
          - { name: i32_cdab, address: 12, data_type: int32, byte_order: CDAB, writable: true, min: -3000000000, max: 3000000000 }
          - { name: u32_abcd, address: 14, data_type: uint32, writable: true, min: 0, max: 5000000000 }
          - { name: u32_cdab, address: 16, data_type: uint32, byte_order: CDAB, writable: true, min: 0, max: 5000000000 }
          - { name: f32_abcd, address: 18, data_type: float32, writable: true, min: -1000000, max: 1000000 }
          - { name: f32_cdab, address: 20, data_type: float32, byte_order: CDAB, writable: true, min: -1000000, max: 1000000 }
          - { name: flag, address: 30, data_type: bool, bit: 2, writable: true, min: 0, max: 1 }
          - { name: relay, address: 0, function_code: 1, data_type: bool, writable: true, min: 0, max: 1 }
          - { name: locked, address: 40, data_type: int16, writable: true, min: 0, max: 100 }
          - { name: plain, address: 41, data_type: int16 }`;

let workDir = "";
let dataDir = "";
let server: RunningCli;
let baseUrl = "";
let tcpPeer: Peer;
let rtuPeer: Peer;
let socat: ReturnType<typeof Bun.spawn>;
let silent: ReturnType<typeof startSilentWriter>;
let receiver: ReturnType<typeof Bun.serve>;
const received: { body: string; headers: Record<string, string> }[] = [];
let webhookSecret = "";
const keys: Record<string, string> = {};

const tcpGateway = stableUuid("gateway", "W-TCP");
const rtuGateway = stableUuid("gateway", "W-RTU");
const silentGateway = stableUuid("gateway", "W-SILENT");
const closedGateway = stableUuid("gateway", "C-TCP");
const register = (serial: string, name: string) => stableUuid("register", serial, "Peer", name);

beforeAll(async () => {
  if (!canRun) return;
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-writes-"));
  dataDir = join(workDir, "data");
  tcpPeer = await startPeer(peerSpec(null));
  const lineA = join(workDir, "line-a");
  const lineB = join(workDir, "line-b");
  socat = await startSocat([`pty,raw,echo=0,link=${lineA}`, `pty,raw,echo=0,link=${lineB}`], [lineA, lineB]);
  rtuPeer = await startPeer(peerSpec(lineB));
  silent = startSilentWriter();
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      received.push({ body: await request.text(), headers: Object.fromEntries(request.headers.entries()) });
      return new Response(null, { status: 204 });
    },
  });
  const config = `
organizations:
  - { key: plant, name: Plant, writes_enabled: true }
  - { key: closed, name: Closed }
gateways:
  - serial: W-TCP
    name: TCP peer
    organization: plant
    bus: { type: tcp }
    devices:
      - name: Peer
        slave_id: 1
        host: 127.0.0.1
        port: ${tcpPeer.port}
        poll_interval_ms: 200
        timeout_ms: 500
        max_gap: 0
        registers:${tcpRegisters}
  - serial: W-RTU
    name: Serial line peer
    organization: plant
    bus: { type: rtu, path: ${lineA}, baud: 19200 }
    devices:
      - name: Peer
        slave_id: 1
        poll_interval_ms: 100
        timeout_ms: 500
        registers:
          - { name: i16, address: 0, data_type: int16, writable: true, min: -1000, max: 1000 }
          - { name: flag, address: 30, data_type: bool, bit: 2, writable: true, min: 0, max: 1 }
          - { name: relay, address: 0, function_code: 1, data_type: bool, writable: true, min: 0, max: 1 }
          - { name: plain, address: 41, data_type: int16 }
  - serial: W-SILENT
    name: Device that never answers a write
    organization: plant
    bus: { type: tcp }
    devices:
      - name: Peer
        slave_id: 1
        host: 127.0.0.1
        port: ${silent.port}
        poll_interval_ms: 1000
        timeout_ms: 300
        retries: 0
        registers:
          - { name: setpoint, address: 0, data_type: int16, writable: true, min: -100, max: 100 }
  - serial: C-TCP
    name: Other organisation's peer
    organization: closed
    bus: { type: tcp }
    devices:
      - name: Peer
        slave_id: 1
        host: 127.0.0.1
        port: ${tcpPeer.port}
        poll_interval_ms: 1000
        registers:
          - { name: i16, address: 0, data_type: int16, writable: true, min: -100, max: 100 }
`;
  writeFileSync(join(workDir, "fieldhub.yaml"), config);
  server = startCli(serveArgs(join(workDir, "fieldhub.yaml"), dataDir));
  baseUrl = await server.waitFor(servedUrl);
  keys.writer = await createKey(dataDir, "plant", "devices:read,registers:read,registers:write");
  keys.reader = await createKey(dataDir, "plant", "devices:read,registers:read,alerts:read");
  keys.closedAll = await createKey(dataDir, "closed", "devices:read,registers:read,alerts:read,registers:write");
  const endpoint = await runCli([
    "endpoints",
    "create",
    "--data",
    dataDir,
    "--org",
    "plant",
    "--url",
    `http://127.0.0.1:${receiver.port}/hook`,
    "--events",
    "register.written",
    "--json",
  ]);
  if (endpoint.code !== 0) throw new Error(endpoint.stderr);
  webhookSecret = (JSON.parse(endpoint.stdout) as { secret: string }).secret;
}, 30_000);

afterAll(async () => {
  await server?.stop();
  tcpPeer?.proc.kill();
  rtuPeer?.proc.kill();
  socat?.kill();
  silent?.stop(true);
  receiver?.stop(true);
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

type RegisterBody = {
  data: {
    id: string;
    name: string;
    latest_value: number | null;
    latest_raw_value: number | null;
    is_writable: boolean;
  };
};
type ProblemBody = { code: string; status: number; detail?: string };

function put(gateway: string, registerId: string, body: unknown, key = keys.writer) {
  return fetch(`${baseUrl}/v1/devices/${gateway}/registers/${registerId}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function expectProblem(response: Response, status: number, code: string): Promise<ProblemBody> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const problem = JSON.parse(text) as ProblemBody;
  expect(problem.code).toBe(code);
  return problem;
}

async function write(gateway: string, serial: string, name: string, value: number): Promise<RegisterBody["data"]> {
  const response = await put(gateway, register(serial, name), { value });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${name} = ${value}: ${response.status} ${text}`);
  return (JSON.parse(text) as RegisterBody).data;
}

describe.skipIf(!canRun)("over Modbus TCP (needs Debian's python3-pymodbus and socat)", () => {
  test("each data type and word order lands in the peer, as an independent client reads it", async () => {
    const cases: {
      name: string;
      value: number;
      read: { table: string; address: number; type?: string; order?: string };
      raw: number;
    }[] = [
      { name: "i16", value: -12.3, read: { table: "hr", address: 0, type: "int16" }, raw: -123 },
      { name: "u16", value: 54321, read: { table: "hr", address: 1, type: "uint16" }, raw: 54321 },
      { name: "i32_abcd", value: -2000000123, read: { table: "hr", address: 10, type: "int32" }, raw: -2000000123 },
      {
        name: "i32_cdab",
        value: 1234567890,
        read: { table: "hr", address: 12, type: "int32", order: "CDAB" },
        raw: 1234567890,
      },
      { name: "u32_abcd", value: 4000000123, read: { table: "hr", address: 14, type: "uint32" }, raw: 4000000123 },
      {
        name: "u32_cdab",
        value: 3000000001,
        read: { table: "hr", address: 16, type: "uint32", order: "CDAB" },
        raw: 3000000001,
      },
      { name: "f32_abcd", value: 123.5, read: { table: "hr", address: 18, type: "float32" }, raw: 123.5 },
      {
        name: "f32_cdab",
        value: -0.25,
        read: { table: "hr", address: 20, type: "float32", order: "CDAB" },
        raw: -0.25,
      },
      { name: "relay", value: 1, read: { table: "co", address: 0 }, raw: 1 },
    ];
    for (const { name, value, raw } of cases) {
      const answered = await write(tcpGateway, "W-TCP", name, value);
      expect({ name, value: answered.latest_value, raw: answered.latest_raw_value }).toEqual({ name, value, raw });
    }
    const independent = await readIndependently(
      tcpPeer.port,
      cases.map((entry) => entry.read),
    );
    expect(independent).toEqual(cases.map((entry) => entry.raw));
    // The coil goes back off (function 5 with false).
    expect((await write(tcpGateway, "W-TCP", "relay", 0)).latest_value).toBe(0);
    expect(await readIndependently(tcpPeer.port, [{ table: "co", address: 0 }])).toEqual([0]);
  }, 30_000);

  test("a bit of a holding register is set and cleared; the word's other bits stay", async () => {
    expect((await write(tcpGateway, "W-TCP", "flag", 1)).latest_value).toBe(1);
    expect(await readIndependently(tcpPeer.port, [{ table: "hr", address: 30, type: "uint16" }])).toEqual([
      0b1000_0000_0000_0101,
    ]);
    expect((await write(tcpGateway, "W-TCP", "flag", 0)).latest_value).toBe(0);
    expect(await readIndependently(tcpPeer.port, [{ table: "hr", address: 30, type: "uint16" }])).toEqual([
      0b1000_0000_0000_0001,
    ]);
  }, 20_000);

  test("a device that refuses the write answers 409 conflict with its exception code", async () => {
    const problem = await expectProblem(
      await put(tcpGateway, register("W-TCP", "locked"), { value: 50 }),
      409,
      "conflict",
    );
    expect(problem.detail).toContain("Modbus exception 2");
    expect(await readIndependently(tcpPeer.port, [{ table: "hr", address: 40, type: "int16" }])).toEqual([7]);
  });

  test("a device that does not answer the write: 504 internal_error, not retried, outcome unknown", async () => {
    const started = Date.now();
    const problem = await expectProblem(
      await put(silentGateway, register("W-SILENT", "setpoint"), { value: 5 }),
      504,
      "internal_error",
    );
    expect(problem.detail).toContain("outcome is unknown");
    expect(problem.detail).toContain("not retried");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test("every refusal: 400, 403, 404 as problem+json with codes of docs/api.md section 7", async () => {
    const i16 = register("W-TCP", "i16");
    expect((await expectProblem(await put(tcpGateway, i16, {}), 400, "invalid_parameter")).detail).toContain("value");
    await expectProblem(await put(tcpGateway, i16, { value: "hot" }), 400, "invalid_parameter");
    await expectProblem(await put(tcpGateway, i16, { value: null }), 400, "invalid_parameter");
    expect(
      (await expectProblem(await put(tcpGateway, i16, { value: 100.1 }), 400, "invalid_parameter")).detail,
    ).toContain("between -100 and 100");
    expect(
      (await expectProblem(await put(tcpGateway, i16, { value: 1.23 }), 400, "invalid_parameter")).detail,
    ).toContain("scale factor");
    expect(
      (await expectProblem(await put(tcpGateway, register("W-TCP", "plain"), { value: 1 }), 400, "invalid_parameter"))
        .detail,
    ).toContain("not writable");
    await expectProblem(await put(tcpGateway, i16, { value: 1 }, keys.reader), 403, "insufficient_scope");
    await expectProblem(await put(stableUuid("gateway", "nope"), i16, { value: 1 }), 404, "not_found");
    await expectProblem(await put(tcpGateway, stableUuid("register", "nope"), { value: 1 }), 404, "not_found");
    // The other organisation's gateway is not found for this key.
    await expectProblem(await put(closedGateway, register("C-TCP", "i16"), { value: 1 }), 404, "not_found");
    // Nothing of the refused values reached the device.
    expect(await readIndependently(tcpPeer.port, [{ table: "hr", address: 0, type: "int16" }])).toEqual([-123]);
  });

  test("an organisation without writes_enabled hears 403 write_not_enabled, with every scope", async () => {
    const response = await put(closedGateway, register("C-TCP", "i16"), { value: 1 }, keys.closedAll);
    await expectProblem(response, 403, "write_not_enabled");
    expect(await readIndependently(tcpPeer.port, [{ table: "hr", address: 0, type: "int16" }])).toEqual([-123]);
  });

  test("writes count against the key's rate limit", async () => {
    const first = await put(tcpGateway, register("W-TCP", "u16"), { value: 1 });
    const second = await put(tcpGateway, register("W-TCP", "u16"), { value: 2 });
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(
      Number(first.headers.get("x-ratelimit-remaining")) - 1,
    );
  });

  test("every attempt is in the audit (fieldhub writes list) and sent as register.written", async () => {
    const listed = await runCli(["writes", "list", "--data", dataDir, "--org", "plant", "--json"]);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as {
      register_name: string;
      result: string;
      value_asked: number;
      value_before: number | null;
      read_back: number | null;
      actor: string;
    }[];
    const i16 = rows.find((row) => row.register_name === "i16" && row.result === "written");
    expect(i16).toMatchObject({ value_asked: -12.3, read_back: -12.3, value_before: 0 });
    expect(i16?.actor).toMatch(/^key:/);
    expect(rows.some((row) => row.register_name === "locked" && row.result === "refused")).toBe(true);
    // After the timeout the register was read again between polls (the silent device reads 0).
    const timedOut = rows.find((row) => row.register_name === "setpoint" && row.result === "timeout") as
      | { read_back: number | null; detail: string }
      | undefined;
    expect(timedOut?.read_back).toBe(0);
    expect(timedOut?.detail).toContain("read back afterwards: 0");
    expect(rows.some((row) => row.register_name === "i16" && row.result === "invalid")).toBe(true);
    const closed = JSON.parse(
      (await runCli(["writes", "list", "--data", dataDir, "--org", "closed", "--json"])).stdout,
    );
    expect(closed).toEqual([]);
    const text = await runCli(["writes", "list", "--data", dataDir]);
    expect(text.stdout).toContain("W-TCP\ti16");

    // Each attempt listed is delivered as an event.
    await eventually(
      async () => received.length,
      (count) => count >= rows.length,
      10_000,
    );
    const events = received.map(
      (message) =>
        new Webhook(webhookSecret).verify(message.body, message.headers) as {
          type: string;
          data: Record<string, unknown>;
        },
    );
    expect(events.every((event) => event.type === "register.written")).toBe(true);
    // Each as declared (src/store/contract/event-types.ts): no field missing, none unknown.
    expect(events.filter((event) => !isEventData("register.written", event.data))).toEqual([]);
    expect(
      events.find((event) => event.data.register_name === "i16" && event.data.result === "written")?.data,
    ).toMatchObject({
      register_id: register("W-TCP", "i16"),
      register_name: "i16",
      device_id: tcpGateway,
      serial: "W-TCP",
      device_name: "TCP peer",
      modbus_device_name: "Peer",
      value_before: 0,
      value_asked: -12.3,
      read_back: -12.3,
    });
  }, 20_000);
});

describe.skipIf(!canRun)("over Modbus RTU on a serial line (socat pty pair)", () => {
  test("int16, coil and bit land in the peer's datastore", async () => {
    expect((await write(rtuGateway, "W-RTU", "i16", -321)).latest_value).toBe(-321);
    expect((await write(rtuGateway, "W-RTU", "relay", 1)).latest_value).toBe(1);
    expect((await write(rtuGateway, "W-RTU", "flag", 1)).latest_value).toBe(1);
    expect(await rtuPeer.ask("DUMP 1 hr 0 1")).toBe(`DUMP [${-321 & 0xffff}]`);
    expect(await rtuPeer.ask("DUMP 1 co 0 1")).toBe("DUMP [1]");
    expect(await rtuPeer.ask("DUMP 1 hr 30 1")).toBe(`DUMP [${0b1000_0000_0000_0101}]`);
  }, 20_000);

  test("writes interleaved with 100 ms polling never overlap a request on the bus", async () => {
    const before = JSON.parse((await rtuPeer.ask("STATS")).slice(6)) as { bad_frames: number; writes: number };
    const writes = [];
    for (let round = 0; round < 15; round++) {
      // Several at once from the API: the poller still puts one request on the wire at a time.
      writes.push(write(rtuGateway, "W-RTU", "i16", round));
      writes.push(write(rtuGateway, "W-RTU", "relay", round % 2));
      await Bun.sleep(37);
    }
    const answers = await Promise.all(writes);
    expect(answers).toHaveLength(30);
    const after = JSON.parse((await rtuPeer.ask("STATS")).slice(6)) as { bad_frames: number; writes: number };
    expect(after.writes - before.writes).toBe(30);
    expect(after.bad_frames).toBe(0);
    expect(await rtuPeer.ask("DUMP 1 hr 0 1")).toBe("DUMP [14]");
  }, 30_000);
});
