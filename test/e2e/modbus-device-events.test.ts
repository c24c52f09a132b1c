/**
 * A dead Modbus device is an event, and a latest value says whether it is current
 * (issue 28 items 2 and 3), on the real process: `fieldhub serve` polls one gateway
 * with three devices, each on its own pymodbus peer (Debian's python3-pymodbus). The
 * pump's peer is killed: `modbus_device.offline` reaches a receiver that verifies it
 * with `standardwebhooks`, naming gateway and device, within the gateway's heartbeat
 * while the gateway stays `online`; the pump's registers are `unavailable`, the
 * boiler's `ok`. The peer comes back: `modbus_device.online`. A device whose cycle
 * takes longer than its poll interval (two requests with `pause_ms` between them)
 * shows `stale` values.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { hasPymodbus, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { createEndpoint, createKey, eventually, type RunningServe, startServe } from "../faults/harness/serve.ts";
import { startVerifyingReceiver } from "../faults/harness/webhook-receivers.ts";

const gatewayId = stableUuid("gateway", "TWO-DEVICES");
const pumpId = stableUuid("modbus-device", "TWO-DEVICES", "pump");
const heartbeatS = 5;

let workDir = "";
let server: RunningServe;
let key = "";
const receiver = startVerifyingReceiver();
const peers: Awaited<ReturnType<typeof startModbusPeer>>[] = [];

function device(name: string, port: number, extra = "") {
  return `
      - name: ${name}
        slave_id: 1
        host: 127.0.0.1
        port: ${port}
        poll_interval_ms: 200
        timeout_ms: 300
        retries: 0${extra}
        registers:
          - { name: ${name}_r0, address: 0, data_type: int16 }
          - { name: ${name}_r3, address: 3, data_type: int16 }`;
}

beforeAll(async () => {
  if (!hasPymodbus) throw new Error("needs Debian's pymodbus: apt-get install python3-pymodbus");
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-device-events-"));
  const [boiler, pump, slow] = await Promise.all([startModbusPeer(), startModbusPeer(), startModbusPeer()]);
  if (boiler === undefined || pump === undefined || slow === undefined) throw new Error("peers missing");
  peers.push(boiler, pump, slow);
  const yaml = `
organizations: [{ key: site, name: Site }]
gateways:
  - serial: TWO-DEVICES
    name: Plant room
    heartbeat_s: ${heartbeatS}
    bus: { type: tcp, reconnect_max_s: 1 }
    devices:${device("boiler", boiler.port)}${device("pump", pump.port)}${device(
      "slow",
      slow.port,
      // Two requests (max_gap 0) with 1.5 s between them: a cycle takes longer than two intervals.
      "\n        max_gap: 0\n        pause_ms: 1500",
    )}
`;
  server = await startServe({ workDir, yaml });
  key = (await createKey(server.dataDir, "site")).key;
  const endpoint = await createEndpoint(server.dataDir, "site", receiver.url, [
    "modbus_device.offline",
    "modbus_device.online",
    "device.offline",
  ]);
  receiver.useSecret(endpoint.secret);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  for (const peer of peers) peer.kill();
  receiver.stop();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

async function get<T>(path: string): Promise<T> {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: T }).data;
}
type Register = { name: string; modbus_device_name: string; latest_value: number | null; latest_status: string };
/** Each register's latest_status by name. */
async function statuses(): Promise<Record<string, string>> {
  const registers = await get<Register[]>(`/v1/devices/${gatewayId}/registers`);
  return Object.fromEntries(registers.map((register) => [register.name, register.latest_status]));
}

test("every device answers: latest values ok; a device whose cycle outlasts two poll intervals shows them stale", async () => {
  await eventually(statuses, (now) => now.boiler_r0 === "ok" && now.pump_r0 === "ok", 20_000);
  // The slow device's first register is read about every 1.5 s with a 200 ms interval: a value read, then stale.
  const slowR0 = async () =>
    (await get<Register[]>(`/v1/devices/${gatewayId}/registers`)).find((register) => register.name === "slow_r0");
  await eventually(slowR0, (register) => register?.latest_value === 100, 10_000, 50);
  const stale = await eventually(slowR0, (register) => register?.latest_status === "stale", 10_000, 50);
  expect(stale?.latest_value).toBe(100);
  // Its device answers: stale, not unavailable.
  const devices = await get<{ modbus_devices: { name: string; health: { status: string } }[] }>(
    `/v1/devices/${gatewayId}`,
  );
  expect(devices.modbus_devices.find((device) => device.name === "slow")?.health.status).toBe("ok");
}, 40_000);

test("the pump's peer dies: modbus_device.offline with names within the heartbeat, the gateway stays online; back: modbus_device.online", async () => {
  const pump = peers[1];
  if (pump === undefined) throw new Error("no pump peer");
  const killedAt = Date.now();
  await pump.stop();
  const offline = await eventually(
    () => receiver.arrivals.find((arrival) => arrival.type === "modbus_device.offline"),
    (arrival) => arrival !== undefined,
    (heartbeatS + 10) * 1000,
    50,
  );
  // The silence counts once it outlasts the heartbeat; the check runs every second.
  expect((offline?.at ?? Number.POSITIVE_INFINITY) - killedAt).toBeLessThan((heartbeatS + 4) * 1000);
  expect(offline?.data).toMatchObject({
    device_id: gatewayId,
    serial: "TWO-DEVICES",
    device_name: "Plant room",
    modbus_device_id: pumpId,
    modbus_device_name: "pump",
    status: "offline",
    previous_health: "ok",
    last_error: expect.any(String),
    last_answer_at: expect.any(String),
  });
  expect(["unreachable", "quarantined"]).toContain(offline?.data.health as string);
  expect((await get<{ status: string }>(`/v1/devices/${gatewayId}`)).status).toBe("online");
  const now = await eventually(statuses, (seen) => seen.pump_r0 === "unavailable" && seen.boiler_r0 === "ok");
  expect(now).toMatchObject({ pump_r0: "unavailable", pump_r3: "unavailable", boiler_r0: "ok", boiler_r3: "ok" });
  expect(receiver.arrivals.filter((arrival) => arrival.type === "modbus_device.offline")).toHaveLength(1);

  await pump.restart();
  const online = await eventually(
    () => receiver.arrivals.find((arrival) => arrival.type === "modbus_device.online"),
    (arrival) => arrival !== undefined,
    15_000,
    50,
  );
  expect(online?.data).toMatchObject({
    modbus_device_id: pumpId,
    modbus_device_name: "pump",
    device_name: "Plant room",
    status: "online",
    health: "ok",
  });
  expect(["unreachable", "quarantined"]).toContain(online?.data.previous_health as string);
  await eventually(statuses, (seen) => seen.pump_r0 === "ok");
  // The gateway never went offline; every delivery verified.
  expect(receiver.arrivals.map((arrival) => arrival.type)).toEqual(["modbus_device.offline", "modbus_device.online"]);
  expect(receiver.invalid()).toBe(0);
}, 60_000);
