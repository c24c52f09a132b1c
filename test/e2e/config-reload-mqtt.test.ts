/**
 * The MQTT link across config reloads, on the real process with Debian's mosquitto:
 * a reload that leaves the `mqtt` section and the inventory alone (a rule, the API's
 * rate limit) keeps the link's connection; one that changes the section reconnects it
 * with the new settings (docs/config.md, "Reloading the config").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { eventually, type RunningServe, startServe } from "../faults/harness/serve.ts";
import { type Broker, brokerPassword, brokerUser, hasMosquitto, startMosquitto } from "../harness/mosquitto.ts";

describe.skipIf(!hasMosquitto || !hasPymodbus)("the MQTT link across reloads (mosquitto, pymodbus)", () => {
  let dir = "";
  let broker: Broker;
  let peer: Awaited<ReturnType<typeof startModbusPeer>>;
  let serve: RunningServe;
  let passwordFile = "";

  const yaml = (extra: string, maxIntervalS = 3) => `
mqtt: { url: ${broker.url}, username: ${brokerUser}, password_file: ${passwordFile}, max_interval_s: ${maxIntervalS} }
organizations: [{ key: site, name: Site }]
gateways:
  - serial: GW-1
    name: GW-1
    bus: { type: tcp }
    devices:
      - { name: Meter, slave_id: 1, host: 127.0.0.1, port: ${peer.port}, poll_interval_ms: 500, registers: [{ name: r0, address: 0, data_type: int16 }] }
${extra}`;
  type Link = { state: string; connected_at: string | null };
  const link = async () => ((await (await fetch(`${serve.url}/healthz`)).json()) as { mqtt: Link }).mqtt;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fieldhub-reload-mqtt-"));
    broker = await startMosquitto(join(dir, "broker"));
    peer = await startModbusPeer();
    passwordFile = join(dir, "mqtt.pass");
    writeFileSync(passwordFile, `${brokerPassword}\n`, { mode: 0o600 });
    serve = await startServe({ workDir: join(dir, "serve"), yaml: yaml("") });
  }, 60_000);

  afterAll(async () => {
    await serve?.stop();
    await peer?.stop();
    await broker?.stop();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  test("a rule and the API's settings reloaded: same connection; the mqtt section changed: a new one", async () => {
    const first = await eventually(link, (now) => now.state === "online", 15_000);
    await serve.reload(
      yaml(
        "api: { rate_limit_per_minute: 500 }\nrules: [{ name: r0 high, gateway: GW-1, device: Meter, register: r0, condition: gt, threshold: 1000 }]\n",
      ),
    );
    expect(await link()).toMatchObject({ state: "online", connected_at: first.connected_at });
    await serve.reload(yaml("", 7));
    const next = await eventually(
      link,
      (now) => now.state === "online" && now.connected_at !== first.connected_at,
      15_000,
    );
    expect(Date.parse(next.connected_at ?? "")).toBeGreaterThan(Date.parse(first.connected_at ?? ""));
  }, 60_000);
});
