/**
 * MQTT out, proved on a real `fieldhub serve` polling Debian's pymodbus, publishing
 * to a private Debian mosquitto and read back by Debian's mosquitto_sub
 * (docs/mqtt.md): values equal the equipment's, the deadband and max_interval_s
 * are honoured, events carry the webhook's ids, and an event recorded while the
 * broker is stopped is published, in order, when it is back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { eventually, type RunningServe, startServe } from "../faults/harness/serve.ts";
import { startRecordingReceiver } from "../faults/harness/webhook-receivers.ts";
import { runCli } from "../harness/cli.ts";
import { mbpollWrite } from "../harness/mbpoll.ts";
import {
  type Broker,
  brokerPassword,
  brokerUser,
  hasMosquitto,
  startMosquitto,
  startSubscriber,
} from "../harness/mosquitto.ts";

const canRun = hasMosquitto && hasPymodbus && Bun.which("mbpoll") !== null;

/** Writes a holding register of the peer's unit 1 through mbpoll (another Modbus client). */
async function writeRegister(port: number, address: number, value: number): Promise<void> {
  const written = await mbpollWrite(port, 1, address, [value]);
  if (written.code !== 0) throw new Error(`mbpoll write failed: ${written.text}`);
}

function configYaml(options: { modbusPort: number; broker: string; passwordFile: string; extraMqtt?: string }): string {
  return `
storage: { commit_interval_s: 1 }
webhooks: { retry_delays_s: [1] }
mqtt:
  url: ${options.broker}
  username: ${brokerUser}
  password_file: ${options.passwordFile}
  max_interval_s: 3
${options.extraMqtt ?? ""}
organizations: [{ key: site, name: Site }]
gateways:
  - serial: GW-1
    name: GW-1
    heartbeat_s: 5
    bus: { type: tcp }
    devices:
      - name: Meter
        slave_id: 1
        host: 127.0.0.1
        port: ${options.modbusPort}
        poll_interval_ms: 200
        timeout_ms: 300
        registers:
          - { name: r0, address: 0, function_code: 3, data_type: int16, deadband: 5 }
          - { name: r1, address: 1, function_code: 3, data_type: int16, scale_factor: 0.1, unit: V }
rules:
  - { name: High r1, gateway: GW-1, device: Meter, register: r1, condition: gt, threshold: 20 }
`;
}

const readingOf = (payload: string) =>
  JSON.parse(payload) as { value: number; raw_value: number; unit: string | null; ts: string };

describe.skipIf(!canRun)("MQTT out on a running serve (mosquitto, pymodbus)", () => {
  let dir: string;
  let broker: Broker;
  let peer: Awaited<ReturnType<typeof startModbusPeer>>;
  let serve: RunningServe;
  let passwordFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fieldhub-mqtt-"));
    broker = await startMosquitto(join(dir, "broker"), { tls: true });
    peer = await startModbusPeer();
    passwordFile = join(dir, "mqtt.pass");
    writeFileSync(passwordFile, `${brokerPassword}\n`, { mode: 0o600 });
  });

  afterAll(async () => {
    await serve?.stop();
    await peer?.stop();
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("values, deadband, max_interval_s, events with the webhook's ids, and a broker outage loses no event", async () => {
    const values = startSubscriber(broker, "fieldhub/site/GW-1/#");
    const events = startSubscriber(broker, "fieldhub/site/events/#", "events-sub");
    const receiver = startRecordingReceiver();
    const workDir = join(dir, "serve");
    serve = await startServe({
      workDir,
      yaml: configYaml({ modbusPort: peer.port, broker: broker.url, passwordFile }),
    });
    const endpoint = await runCli([
      "endpoints",
      "create",
      "--data",
      serve.dataDir,
      "--org",
      "site",
      "--url",
      receiver.url,
      "--json",
    ]);
    expect(endpoint.code).toBe(0);

    // Values equal the equipment's: r0 = 100, r1 = 101 x 0.1 V; the gateway's status is online.
    const r0 = "fieldhub/site/GW-1/Meter/r0";
    const r1 = "fieldhub/site/GW-1/Meter/r1";
    await eventually(
      () => values.on(r1).length,
      (count) => count > 0,
    );
    expect(readingOf(values.on(r0)[0]?.payload ?? "{}")).toMatchObject({ value: 100, raw_value: 100, unit: null });
    expect(readingOf(values.on(r1)[0]?.payload ?? "{}")).toMatchObject({ value: 10.1, raw_value: 101, unit: "V" });
    await eventually(
      () => values.on("fieldhub/site/GW-1/status").map((m) => m.payload),
      (s) => s.includes("online"),
    );

    // Within the deadband (5): 103 is not published before max_interval_s (3 s) has passed since the last.
    await eventually(
      () => values.on(r0).length,
      (count) => count >= 2,
      8000,
    );
    const before = values.on(r0).length;
    const lastAt = values.on(r0).at(-1)?.at ?? 0;
    await writeRegister(peer.port, 0, 103);
    const next = await eventually(
      () => values.on(r0).slice(before),
      (list) => list.length > 0,
      8000,
    );
    expect(next[0]?.at ?? 0).toBeGreaterThanOrEqual(lastAt + 2500);
    expect(readingOf(next[0]?.payload ?? "{}").value).toBe(103);
    // Beyond it: 110 goes out at the next poll, long before the interval.
    const count = values.on(r0).length;
    const written = Date.now();
    await writeRegister(peer.port, 0, 110);
    const moved = await eventually(
      () => values.on(r0).slice(count),
      (list) => list.some((m) => readingOf(m.payload).value === 110),
      3000,
    );
    expect((moved.find((m) => readingOf(m.payload).value === 110)?.at ?? Infinity) - written).toBeLessThan(1500);

    // An alert fires and returns: the events carry the webhook's ids.
    const alertEvents = () => events.received.filter((m) => m.topic.startsWith("fieldhub/site/events/alert."));
    const r1Reads = (value: number) =>
      eventually(
        () => values.on(r1).map((m) => readingOf(m.payload).value),
        (seen) => seen.at(-1) === value,
        8000,
      );
    await writeRegister(peer.port, 1, 250);
    await r1Reads(25);
    await writeRegister(peer.port, 1, 150);
    await r1Reads(15);
    await eventually(
      () => alertEvents().length,
      (n) => n >= 2,
      10_000,
    );
    await eventually(
      () => receiver.deliveries.length,
      (n) => n >= 2,
      10_000,
    );

    // The broker stops for 20 s while the alert fires and returns four more times.
    await broker.stop();
    await eventually(
      async () => ((await (await fetch(`${serve.url}/healthz`)).json()) as { mqtt?: { state: string } }).mqtt?.state,
      (state) => state === "away",
    );
    const health = await fetch(`${serve.url}/healthz`);
    expect(health.status).toBe(200);
    // Polling goes on: the alert rules see each value (every 200 ms) while the broker is away.
    for (let i = 0; i < 4; i++) {
      await writeRegister(peer.port, 1, 250);
      await Bun.sleep(2000);
      await writeRegister(peer.port, 1, 150);
      await Bun.sleep(2000);
    }
    await Bun.sleep(4000);
    await broker.start();
    const restartedAt = Date.now();

    // Every event, in the order recorded, with the webhook's ids; polling went on meanwhile.
    await eventually(
      () => receiver.deliveries.length,
      (n) => n >= 10,
      20_000,
    );
    const webhookIds = receiver.deliveries.map((delivery) => delivery.id);
    const mqttIds = await eventually(
      () => [...new Set(alertEvents().map((m) => (JSON.parse(m.payload) as { id: string }).id))],
      (ids) => ids.length >= webhookIds.length,
      30_000,
    );
    expect(mqttIds).toEqual(webhookIds);
    for (const message of alertEvents()) {
      const envelope = JSON.parse(message.payload) as { id: string; type: string; timestamp: string; data: unknown };
      expect(message.topic).toBe(`fieldhub/site/events/${envelope.type}`);
      expect(message.retain).toBe(false);
      const delivered = receiver.deliveries.find((delivery) => delivery.id === envelope.id);
      expect(delivered?.body).toEqual(envelope);
    }
    // Values read while the broker was away: the newest of each goes out on reconnect.
    await eventually(
      () =>
        values
          .on(r1)
          .filter((m) => m.at >= restartedAt)
          .map((m) => readingOf(m.payload).value),
      (seen) => seen.at(-1) === 15,
      10_000,
    );
    expect(serve.alive()).toBe(true);
    values.stop();
    events.stop();
    receiver.stop();
  }, 120_000);
});
