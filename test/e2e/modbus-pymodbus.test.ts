/**
 * fieldhub against an independent Modbus peer, end to end through its public
 * doors: Debian's pymodbus serves values it encoded itself (BinaryPayloadBuilder)
 * over Modbus TCP, over a serial line (a socat pty pair) and through a serial
 * server (socat joining a TCP port to a pty: RTU over TCP); `fieldhub serve`
 * polls all three; the values are read back through
 * GET /v1/devices/{id}/registers. Then the TCP peer dies and comes back, and its
 * gateway goes offline and online by itself while the others keep running.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { freePort, type RunningCli, servedUrl, startCli } from "../harness/cli.ts";
import { startSocat } from "../harness/pymodbus.ts";
import { createReadKey, eventually, getData } from "../harness/served-api.ts";

const python = "/usr/bin/python3";
const fixture = join(import.meta.dir, "..", "fixtures", "pymodbus_server.py");

type Entry = { address: number; type: string; value: number | string | boolean; order?: string; length?: number };

/** Every numeric data type in every byte order it has, each at its own address. */
function numericEntries(): (Entry & { name: string })[] {
  const entries: (Entry & { name: string })[] = [];
  let address = 0;
  const add = (type: string, value: number, orders: string[]) => {
    for (const order of orders) {
      entries.push({ name: `${type}_${order.toLowerCase()}`, address, type, value, order });
      address += type.endsWith("64") ? 4 : type.endsWith("32") ? 2 : 1;
    }
  };
  add("int16", -12345, ["ABCD", "BADC"]);
  add("uint16", 54321, ["ABCD", "BADC"]);
  add("int32", -2_000_000_123, ["ABCD", "CDAB", "BADC", "DCBA"]);
  add("uint32", 4_000_000_123, ["ABCD", "CDAB", "BADC", "DCBA"]);
  add("float32", 123.456, ["ABCD", "CDAB", "BADC", "DCBA"]);
  add("int64", -9_007_199_254_740_991, ["ABCD", "CDAB", "BADC", "DCBA"]);
  add("uint64", 9_007_199_254_740_991, ["ABCD", "CDAB", "BADC", "DCBA"]);
  add("float64", -98765.4321, ["ABCD", "CDAB", "BADC", "DCBA"]);
  return entries;
}

const numeric = numericEntries();
const bitWordAddress = 200;
const bitWord = 0b1010_0000_0000_0101; // bits 0, 2, 13 and 15 set

function peerSpec(port: number, serialPath: string | null = null) {
  return {
    tcp_port: port,
    // A pty keeps no parity bit (the kernel refuses PARENB on ptys), so the peer runs 8N1.
    serial: serialPath === null ? null : { port: serialPath, baudrate: 19200, parity: "N", stopbits: 1, bytesize: 8 },
    units: {
      "1": {
        hr: [
          ...numeric.map(({ address, type, value, order }) => ({ address, type, value, order })),
          { address: bitWordAddress, type: "uint16", value: bitWord },
          { address: 300, type: "string", value: "FH-TEST", length: 4 },
        ],
        ir: [{ address: 10, type: "int16", value: 215 }],
        co: [
          { address: 0, value: true },
          { address: 1, value: false },
        ],
        di: [{ address: 5, value: true }],
      },
    },
  };
}

function startPeer(spec: ReturnType<typeof peerSpec>) {
  const proc = Bun.spawn([python, fixture, JSON.stringify(spec)], { stdout: "pipe", stderr: "ignore" });
  const ready = (async () => {
    const reader = proc.stdout.getReader();
    let text = "";
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const match = /READY (\d+|serial)/.exec(text);
      if (match) {
        reader.releaseLock();
        return match[1] === "serial" ? 0 : Number(match[1]);
      }
    }
    throw new Error(`pymodbus peer did not start: ${text}`);
  })();
  return { proc, ready };
}

function registersYaml(): string {
  const lines = numeric.map(
    (entry) =>
      `          - { name: ${entry.name}, address: ${entry.address}, function_code: 3, data_type: ${entry.type}, byte_order: ${entry.order} }`,
  );
  for (const bit of [0, 1, 2, 13, 15]) {
    lines.push(
      `          - { name: bit_${bit}, address: ${bitWordAddress}, function_code: 3, data_type: bool, bit: ${bit} }`,
    );
  }
  lines.push("          - { name: label, address: 300, function_code: 3, data_type: string, length: 4 }");
  lines.push(
    '          - { name: temperature, address: 10, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1 }',
  );
  lines.push("          - { name: coil_on, address: 0, function_code: 1, data_type: bool }");
  lines.push("          - { name: coil_off, address: 1, function_code: 1, data_type: bool }");
  lines.push("          - { name: input_on, address: 5, function_code: 2, data_type: bool }");
  return lines.join("\n");
}

const expected: Record<string, number | null> = {
  ...Object.fromEntries(numeric.map((entry) => [entry.name, entry.value as number])),
  bit_0: 1,
  bit_1: 0,
  bit_2: 1,
  bit_13: 1,
  bit_15: 1,
  label: null,
  temperature: 215,
  coil_on: 1,
  coil_off: 0,
  input_on: 1,
};

let workDir = "";
let server: RunningCli;
const helpers: { kill(): void }[] = [];
let baseUrl = "";
let key = "";
let tcpPeer: ReturnType<typeof startPeer>;
let tcpPort = 0;
let lineA = "";
let lineB = "";
let serialLine: { socat: { kill(): void; exited: Promise<number> }; peer: ReturnType<typeof startPeer> } | null = null;

/** The pty pair and the pymodbus peer on its far end (started again after the line "is unplugged"). */
async function startSerialLine(): Promise<void> {
  const socat = await startSocat([`pty,raw,echo=0,link=${lineA}`, `pty,raw,echo=0,link=${lineB}`], [lineA, lineB]);
  const peer = startPeer(peerSpec(0, lineB));
  await peer.ready;
  serialLine = { socat, peer };
}

beforeAll(async () => {
  if (!existsSync(python)) throw new Error("needs Debian's pymodbus: apt-get install python3-pymodbus");
  if (!existsSync("/usr/bin/socat")) throw new Error("needs socat: apt-get install socat");
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-pymodbus-"));
  tcpPeer = startPeer(peerSpec(0));
  tcpPort = await tcpPeer.ready;

  // A serial line: two connected ptys, pymodbus on one end, fieldhub on the other.
  lineA = join(workDir, "line-a");
  lineB = join(workDir, "line-b");
  await startSerialLine();

  // A serial server: a TCP port joined to a pty on which pymodbus answers RTU.
  const serverLine = join(workDir, "server-line");
  const rtuPort = freePort();
  helpers.push(
    await startSocat(
      [`pty,raw,echo=0,link=${serverLine}`, `tcp-listen:${rtuPort},bind=127.0.0.1,reuseaddr`],
      [serverLine],
    ),
  );
  const bridgedPeer = startPeer(peerSpec(0, serverLine));
  helpers.push(bridgedPeer.proc);
  await bridgedPeer.ready;
  const config = `
organizations: [{ key: plant, name: Plant }]
# History commits every second (default 10 s), so /metrics shows batches within the test.
storage: { commit_interval_s: 1 }
gateways:
  - serial: PEER-TCP
    name: Modbus TCP peer
    heartbeat_s: 5
    bus: { type: tcp }
    devices:
      - name: Peer
        slave_id: 1
        host: 127.0.0.1
        port: ${tcpPort}
        poll_interval_ms: 200
        timeout_ms: 500
        max_gap: 0
        registers:
${registersYaml()}
  - serial: PEER-RTU
    name: Serial line peer
    heartbeat_s: 5
    bus: { type: rtu, path: ${lineA}, baud: 19200, parity: even }
    devices:
      - name: Peer
        slave_id: 1
        poll_interval_ms: 200
        timeout_ms: 500
        registers:
${registersYaml()}
  - serial: PEER-RTU-TCP
    name: Serial server peer
    heartbeat_s: 5
    bus: { type: rtu_over_tcp, host: 127.0.0.1, port: ${rtuPort} }
    devices:
      - name: Peer
        slave_id: 1
        poll_interval_ms: 200
        timeout_ms: 500
        registers:
${registersYaml()}
`;
  writeFileSync(join(workDir, "fieldhub.yaml"), config);
  const dataDir = join(workDir, "data");
  server = startCli([
    "serve",
    "--config",
    join(workDir, "fieldhub.yaml"),
    "--data",
    dataDir,
    "--port",
    "0",
    "--host",
    "127.0.0.1",
  ]);
  baseUrl = await server.waitFor(servedUrl);
  key = await createReadKey(dataDir, "plant");
}, 30_000);

afterAll(async () => {
  await server?.stop();
  tcpPeer?.proc.kill();
  serialLine?.peer.proc.kill();
  serialLine?.socat.kill();
  for (const helper of helpers) helper.kill();
  rmSync(workDir, { recursive: true, force: true });
});

const get = <T>(path: string) => getData<T>(baseUrl, key, path);

type Register = {
  name: string;
  latest_raw_value: number | null;
  latest_value: number | null;
  latest_ts: string | null;
};

for (const serial of ["PEER-TCP", "PEER-RTU", "PEER-RTU-TCP"]) {
  describe(serial, () => {
    test("every data type and byte order reads as the peer encoded it", async () => {
      const gatewayId = stableUuid("gateway", serial);
      const registers = await eventually(
        () => get<Register[]>(`/v1/devices/${gatewayId}/registers`),
        (list) => list.filter((register) => register.name !== "label").every((register) => register.latest_ts !== null),
      );
      const actual = Object.fromEntries(registers.map((register) => [register.name, register.latest_raw_value]));
      expect(actual).toEqual(expected);
      expect(registers.find((register) => register.name === "temperature")?.latest_value).toBe(21.5);
      const gateway = await get<{ status: string }>(`/v1/devices/${gatewayId}`);
      expect(gateway.status).toBe("online");
    }, 20_000);
  });
}

describe("a peer that dies and comes back", () => {
  test("the gateway goes offline with device.offline, and online again by itself", async () => {
    const gatewayId = stableUuid("gateway", "PEER-TCP");
    await eventually(
      () => get<{ status: string }>(`/v1/devices/${gatewayId}`),
      (gateway) => gateway.status === "online",
    );
    tcpPeer.proc.kill();
    await tcpPeer.proc.exited;
    await eventually(
      () => get<{ status: string }>(`/v1/devices/${gatewayId}`),
      (gateway) => gateway.status === "offline",
    );
    // The other gateway keeps running.
    expect((await get<{ status: string }>(`/v1/devices/${stableUuid("gateway", "PEER-RTU")}`)).status).toBe("online");

    tcpPeer = startPeer(peerSpec(tcpPort));
    await tcpPeer.ready;
    await eventually(
      () => get<{ status: string }>(`/v1/devices/${gatewayId}`),
      (gateway) => gateway.status === "online",
      20_000,
    );

    // Both transitions are in the outbox for webhook delivery.
    const store = new Database(join(workDir, "data", "fieldhub.db"), { readonly: true });
    const events = store
      .query<{ type: string; data: string }, []>("SELECT type, data FROM events ORDER BY id")
      .all()
      .map((event) => ({
        type: event.type,
        ...(JSON.parse(event.data) as { device_id: string; previous_status: string }),
      }))
      .filter((event) => event.device_id === gatewayId);
    await store.close();
    expect(
      events.filter((event) => event.type.startsWith("device.")).map((event) => [event.type, event.previous_status]),
    ).toEqual([
      ["device.online", "pending"],
      ["device.offline", "online"],
      ["device.online", "offline"],
    ]);
    // The offline detector opened an alert and returned it when the peer came back.
    expect(events.filter((event) => event.type.startsWith("alert.")).map((event) => event.type)).toEqual([
      "alert.triggered",
      "alert.returned",
    ]);
  }, 40_000);
});

describe("a serial line that disappears and comes back", () => {
  test("the serial gateway goes offline at once, and recovers by itself when the port is back", async () => {
    const gatewayId = stableUuid("gateway", "PEER-RTU");
    await eventually(
      () => get<{ status: string }>(`/v1/devices/${gatewayId}`),
      (gateway) => gateway.status === "online",
    );
    // Unplugged: the pty vanishes under fieldhub (as a USB adapter's tty does).
    serialLine?.peer.proc.kill();
    serialLine?.socat.kill();
    await serialLine?.socat.exited;
    await eventually(
      () => get<{ status: string }>(`/v1/devices/${gatewayId}`),
      (gateway) => gateway.status === "offline",
    );
    expect((await get<{ status: string }>(`/v1/devices/${stableUuid("gateway", "PEER-TCP")}`)).status).toBe("online");

    // Plugged back in: the same path appears again.
    await startSerialLine();
    const registers = await eventually(
      () => get<{ status: string }>(`/v1/devices/${gatewayId}`),
      (gateway) => gateway.status === "online",
      20_000,
    );
    expect(registers.status).toBe("online");
  }, 40_000);
});

describe("operations", () => {
  test("/metrics reports the buses, ingest and webhooks of the running fieldhub; /healthz is ok", async () => {
    const text = await (await fetch(`${baseUrl}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
    expect(value(/^fieldhub_modbus_requests_total\{gateway="PEER-TCP"\} (\d+)/m)).toBeGreaterThan(0);
    expect(value(/^fieldhub_modbus_requests_total\{gateway="PEER-RTU"\} (\d+)/m)).toBeGreaterThan(0);
    expect(value(/^fieldhub_gateway_online\{gateway="PEER-RTU-TCP"\} (\d+)/m)).toBe(1);
    expect(value(/^fieldhub_ingest_readings_total (\d+)/m)).toBeGreaterThan(0);
    expect(value(/^fieldhub_ingest_batches_total (\d+)/m)).toBeGreaterThan(0);
    expect(text).toMatch(/^fieldhub_webhook_queue_messages \d+/m);
    const health = await fetch(`${baseUrl}/healthz`);
    expect(health.status).toBe(200);
  });
});
