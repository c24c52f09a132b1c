/**
 * The MQTT link's failures on a real `fieldhub serve` (docs/mqtt.md, "The link"):
 * mqtts with a throwaway CA made by openssl connects; without that CA the TLS
 * failure, and a refused password, are shown in /healthz and /metrics while
 * polling goes on; kill -9 leaves the last will; an event recorded while the broker is away, with fieldhub
 * restarted in between, is published once both are back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { eventually, metricValue, type RunningServe, startServe } from "../faults/harness/serve.ts";
import {
  type Broker,
  brokerPassword,
  brokerUser,
  hasMosquitto,
  startMosquitto,
  startSubscriber,
} from "../harness/mosquitto.ts";

const canRun = hasMosquitto && hasPymodbus && Bun.which("openssl") !== null;

type Health = { status: string; problems?: string[]; mqtt?: { state: string; reason: string | null } };

describe.skipIf(!canRun)("MQTT link failures on a running serve", () => {
  let dir: string;
  let broker: Broker;
  let peer: Awaited<ReturnType<typeof startModbusPeer>>;
  const running: RunningServe[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fieldhub-mqtt-link-"));
    broker = await startMosquitto(join(dir, "broker"), { tls: true });
    peer = await startModbusPeer();
    writeFileSync(join(dir, "good.pass"), `${brokerPassword}\n`, { mode: 0o600 });
    writeFileSync(join(dir, "bad.pass"), "not-the-password\n", { mode: 0o600 });
  });

  afterAll(async () => {
    for (const serve of running) await serve.stop();
    await peer?.stop();
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function serveWith(name: string, mqtt: string, options: { rules?: string; dataDir?: string } = {}) {
    const yaml = `${peerSiteYaml({ serial: "GW-1", port: peer.port, before: `storage: { commit_interval_s: 1 }\nmqtt:\n${mqtt}\n` })}${options.rules ?? ""}`;
    const serve = await startServe({ workDir: join(dir, name), yaml, dataDir: options.dataDir });
    running.push(serve);
    return serve;
  }

  const health = async (serve: RunningServe) => {
    const response = await fetch(`${serve.url}/healthz`);
    return { code: response.status, body: (await response.json()) as Health };
  };

  test("mqtts with the private CA connects; without it the TLS failure shows and polling goes on", async () => {
    const status = startSubscriber(broker, "fieldhub/status");
    const tlsUrl = `mqtts://127.0.0.1:${broker.tlsPort}`;
    const good = await serveWith(
      "tls-ok",
      `  url: ${tlsUrl}\n  username: ${brokerUser}\n  password_file: ${join(dir, "good.pass")}\n  ca_file: ${broker.caFile}\n  client_id: tls-ok`,
    );
    await eventually(
      () => health(good),
      (h) => h.body.mqtt?.state === "online",
    );
    await eventually(
      () => status.received.map((m) => m.payload),
      (payloads) => payloads.includes("online"),
    );
    await good.stop();

    const bad = await serveWith(
      "tls-bad",
      `  url: ${tlsUrl}\n  username: ${brokerUser}\n  password_file: ${join(dir, "good.pass")}\n  client_id: tls-bad`,
    );
    const failed = await eventually(
      () => health(bad),
      (h) => h.body.mqtt?.state === "tls_failed",
    );
    expect(failed.code).toBe(503);
    expect(failed.body.problems?.join(" ")).toContain("MQTT broker TLS failed");
    const before = await metricValue(bad.url, "fieldhub_ingest_readings_total");
    await eventually(
      () => metricValue(bad.url, "fieldhub_ingest_readings_total"),
      (n) => n > before + 4,
    );
    expect(await metricValue(bad.url, "fieldhub_mqtt_link_state")).toBe(1);
    expect(
      (await (await fetch(`${bad.url}/metrics`)).text()).includes('fieldhub_mqtt_link_state{state="tls_failed"} 1'),
    ).toBe(true);
    // One log line for the state, however many retries.
    await Bun.sleep(3500);
    expect(bad.logLines().filter((line) => line.state === "tls_failed").length).toBe(1);
    await bad.stop();
    status.stop();
  }, 60_000);

  test("a refused password shows in /healthz, is never logged, and polling goes on", async () => {
    const serve = await serveWith(
      "refused",
      `  url: ${broker.url}\n  username: ${brokerUser}\n  password_file: ${join(dir, "bad.pass")}`,
    );
    const refused = await eventually(
      () => health(serve),
      (h) => h.body.mqtt?.state === "refused",
    );
    expect(refused.code).toBe(503);
    expect(refused.body.mqtt?.reason).toContain("Not authorized");
    const before = await metricValue(serve.url, "fieldhub_ingest_readings_total");
    await eventually(
      () => metricValue(serve.url, "fieldhub_ingest_readings_total"),
      (n) => n > before + 4,
    );
    expect(serve.stdout() + serve.stderr()).not.toContain("not-the-password");
    await serve.stop();
  }, 60_000);

  test("kill -9 of fieldhub: the broker publishes its last will, offline on {prefix}/status", async () => {
    const status = startSubscriber(broker, "fieldhub/status");
    const serve = await serveWith(
      "killed",
      `  url: ${broker.url}\n  username: ${brokerUser}\n  password_file: ${join(dir, "good.pass")}\n  client_id: killed`,
    );
    await eventually(
      () => status.received.map((m) => m.payload).at(-1),
      (last) => last === "online",
    );
    serve.proc.kill("SIGKILL");
    await serve.proc.exited;
    await eventually(
      () => status.received.map((m) => m.payload).at(-1),
      (last) => last === "offline",
      10_000,
    );
    // Retained: a subscriber arriving later is told too.
    const later = startSubscriber(broker, "fieldhub/status");
    const told = await eventually(
      () => later.received,
      (list) => list.length > 0,
    );
    expect(told[0]).toMatchObject({ payload: "offline", retain: true });
    later.stop();
    status.stop();
  }, 30_000);

  test("an event recorded while the broker is away, fieldhub restarted in between, is published when both are back", async () => {
    const events = startSubscriber(broker, "fieldhub/site/events/#", "outage-sub");
    const mqtt = `  url: ${broker.url}\n  username: ${brokerUser}\n  password_file: ${join(dir, "good.pass")}\n  client_id: restart`;
    const dataDir = join(dir, "restart-data");
    const first = await serveWith("restart-1", mqtt, { dataDir });
    await eventually(
      () => health(first),
      (h) => h.body.mqtt?.state === "online",
    );
    await eventually(
      () => events.received.length,
      (n) => n >= 1,
    ); // device.online
    await broker.stop();
    await eventually(
      () => health(first),
      (h) => h.body.mqtt?.state === "away",
    );
    // The equipment goes: device.offline is recorded while the broker is away.
    await peer.stop();
    await eventually(
      () => metricValue(first.url, "fieldhub_gateway_online"),
      (online) => online === 0,
      20_000,
    );
    await first.stop();
    await broker.start();
    await peer.restart();
    const second = await serveWith("restart-2", mqtt, { dataDir });
    // The offline detector's alert.triggered comes with device.offline; the device events tell the story.
    const types = await eventually(
      () =>
        events.received
          .map((m) => (JSON.parse(m.payload) as { type: string }).type)
          .filter((type) => type.startsWith("device.")),
      (list) => list.includes("device.offline") && list.lastIndexOf("device.online") > list.indexOf("device.offline"),
      20_000,
    );
    expect(types.slice(0, 3)).toEqual(["device.online", "device.offline", "device.online"]);
    // Nothing twice: each id once.
    const ids = events.received.map((m) => (JSON.parse(m.payload) as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
    await second.stop();
    events.stop();
  }, 90_000);
});
