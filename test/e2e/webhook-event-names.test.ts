/**
 * The names a receiver routes on, through the public doors: `fieldhub serve` polls
 * a pymodbus peer (Modbus TCP); a rule on the polled register fires, with an
 * automation on it; then the peer dies and the gateway goes offline, opening an
 * offline alert with its own automation. `fieldhub alerts ack|resolve` (a second
 * process on the same data directory) acknowledges the rule's alert and resolves the
 * offline one. A receiver verifies every delivery with `standardwebhooks`: each
 * event's data validates against its declared schema (src/store/contract/event-types.ts)
 * and names the gateway, the Modbus device and the register it concerns; an
 * acknowledged or resolved alert names the register its rule watches.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { isEventData } from "../../src/store/contract/event-types.ts";
import { type Arrival, startVerifyingReceiver } from "../faults/harness/webhook-receivers.ts";
import { freePort, type RunningCli, runCli, servedUrl, startCli } from "../harness/cli.ts";

const python = "/usr/bin/python3";
const canRun = existsSync(python) && existsSync("/usr/lib/python3/dist-packages/pymodbus");
const fixture = join(import.meta.dir, "..", "fixtures", "pymodbus_server.py");

const gatewayId = stableUuid("gateway", "NAMES-1");
const gateway = { device_id: gatewayId, serial: "NAMES-1", device_name: "Boiler room" };
const register = {
  modbus_device_id: stableUuid("modbus-device", "NAMES-1", "Boiler"),
  modbus_device_name: "Boiler",
  register_id: stableUuid("register", "NAMES-1", "Boiler", "flow_temperature"),
  register_name: "flow_temperature",
  unit: "°C",
};

let workDir = "";
let dataDir = "";
let server: RunningCli | undefined;
let peer: ReturnType<typeof Bun.spawn> | undefined;
const receiver = startVerifyingReceiver();

function startPeer(port: number) {
  const spec = { tcp_port: port, serial: null, units: { "1": { ir: [{ address: 10, type: "int16", value: 815 }] } } };
  const proc = Bun.spawn([python, fixture, JSON.stringify(spec)], { stdout: "pipe", stderr: "ignore" });
  const ready = (async () => {
    const reader = proc.stdout.getReader();
    let text = "";
    while (!/READY \d+/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`pymodbus peer did not start: ${text}`);
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
  })();
  return { proc, ready };
}

/** The first delivery `accept`s, among those from the `from`th on. */
async function arrived(accept: (arrival: Arrival) => boolean, what: string, from = 0): Promise<Arrival> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = receiver.arrivals.slice(from).find(accept);
    if (found !== undefined) return found;
    if (Date.now() > deadline) {
      throw new Error(`no ${what} in time; arrived: ${receiver.arrivals.map((a) => a.type).join(", ")}`);
    }
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  if (!canRun) return;
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-event-names-"));
  const peerPort = freePort();
  writeFileSync(
    join(workDir, "fieldhub.yaml"),
    `
organizations: [{ key: plant, name: Plant }]
webhooks: { retry_delays_s: [1, 1, 1, 1, 1] }
gateways:
  - serial: NAMES-1
    name: Boiler room
    heartbeat_s: 5
    bus: { type: tcp }
    devices:
      - name: Boiler
        slave_id: 1
        host: 127.0.0.1
        port: ${peerPort}
        poll_interval_ms: 200
        timeout_ms: 500
        registers:
          - { name: flow_temperature, address: 10, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1 }
rules:
  - name: Flow too hot
    gateway: NAMES-1
    device: Boiler
    register: flow_temperature
    condition: gt
    threshold: 80
automations:
  - name: Page on hot flow
    trigger: { rule: Flow too hot }
    actions: [{ type: webhook }]
  - name: Page on offline
    trigger: { rule: Gateway offline }
    actions: [{ type: webhook }]
`,
  );
  dataDir = join(workDir, "data");
  server = startCli(["serve", "--config", join(workDir, "fieldhub.yaml"), "--data", dataDir, "--port", "0"]);
  await server.waitFor(servedUrl);
  // The endpoint exists before the peer answers, so every event of the flow is delivered to it.
  const created = await runCli([
    "endpoints",
    "create",
    "--data",
    dataDir,
    "--org",
    "plant",
    "--url",
    receiver.url,
    "--json",
  ]);
  receiver.useSecret((JSON.parse(created.stdout) as { secret: string }).secret);
  peer = startPeer(peerPort).proc;
}, 30_000);

afterAll(async () => {
  await server?.stop();
  peer?.kill();
  receiver.stop();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

describe.skipIf(!canRun)("events of a real flow (needs Debian's python3-pymodbus)", () => {
  test("an alert on a polled register and its automation name the gateway, device and register", async () => {
    const online = await arrived((a) => a.type === "device.online", "device.online");
    expect(online.data).toMatchObject({ ...gateway, status: "online" });

    const triggered = await arrived((a) => a.type === "alert.triggered" && a.data.source === "rule", "alert.triggered");
    expect(triggered.data).toMatchObject({ ...gateway, ...register, value: 81.5, threshold: 80, condition: "gt" });
    const automation = await arrived(
      (a) => a.type === "automation.triggered" && a.data.rule_name === "Page on hot flow",
      "automation.triggered",
    );
    expect(automation.data).toEqual({
      rule_id: stableUuid("automation", "Page on hot flow"),
      rule_name: "Page on hot flow",
      actions: [{ type: "webhook" }],
      trigger: "alert",
      alert_id: triggered.data.alert_id,
      alert_status: "active",
      source: "rule",
      ...gateway,
      ...register,
      value: 81.5,
    });
  }, 30_000);

  test("acknowledged from the CLI, the rule's alert names its register as alert.triggered did", async () => {
    const triggered = await arrived((a) => a.type === "alert.triggered" && a.data.source === "rule", "alert.triggered");
    const alertId = String(triggered.data.alert_id);
    const acked = await runCli(["alerts", "ack", "--data", dataDir, alertId, "--note", "crew on site"]);
    expect(acked.code, acked.stderr).toBe(0);
    const acknowledged = await arrived((a) => a.type === "alert.acknowledged", "alert.acknowledged");
    expect(acknowledged.data).toMatchObject({
      alert_id: alertId,
      ...gateway,
      ...register,
      status: "acknowledged",
      note: "crew on site",
    });
  }, 30_000);

  test("the gateway going offline: device.offline, the offline alert and its automation name the gateway", async () => {
    await arrived((a) => a.type === "automation.triggered" && a.data.source === "rule", "the rule's automation");
    // Before the peer first answered, the gateway may have been offline already: only what follows the kill counts.
    const from = receiver.arrivals.length;
    peer?.kill();
    const offline = await arrived((a) => a.type === "device.offline", "device.offline", from);
    expect(offline.data).toMatchObject({ ...gateway, status: "offline", previous_status: "online" });
    const detector = await arrived(
      (a) => a.type === "alert.triggered" && a.data.source === "detector",
      "the offline alert",
      from,
    );
    expect(detector.data).toMatchObject({ ...gateway, condition: "offline", register_id: null, unit: null });
    const automation = await arrived(
      (a) => a.type === "automation.triggered" && a.data.rule_name === "Page on offline",
      "automation.triggered of the offline alert",
      from,
    );
    expect(automation.data).toMatchObject({
      trigger: "alert",
      alert_id: detector.data.alert_id,
      source: "detector",
      ...gateway,
      register_id: null,
    });
    expect(automation.data.value).toBeUndefined();

    // The offline alert concerns the gateway only: resolved, it names no register.
    const resolved = await runCli(["alerts", "resolve", "--data", dataDir, String(detector.data.alert_id)]);
    expect(resolved.code, resolved.stderr).toBe(0);
    const closed = await arrived((a) => a.type === "alert.resolved", "alert.resolved", from);
    expect(closed.data).toMatchObject({
      alert_id: detector.data.alert_id,
      ...gateway,
      status: "resolved",
      modbus_device_id: null,
      modbus_device_name: null,
      register_id: null,
      register_name: null,
      unit: null,
    });
  }, 30_000);

  test("every delivery verified and its data valid against its declared schema", () => {
    expect(receiver.invalid()).toBe(0);
    expect(receiver.arrivals.length).toBeGreaterThanOrEqual(6);
    const invalid = receiver.arrivals.filter(
      (arrival) => !isEventData(arrival.type as Parameters<typeof isEventData>[0], arrival.data),
    );
    expect(invalid.map((arrival) => [arrival.type, arrival.data])).toEqual([]);
  });
});
