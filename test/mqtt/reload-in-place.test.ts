/**
 * A reload that changes registers keeps the MQTT connections (docs/mqtt.md, "A
 * reload"; docs/config.md, "Reloading the config"), on a real `fieldhub serve`
 * polling Debian's pymodbus, with a private Debian mosquitto, mosquitto_sub on the
 * value, status and discovery topics, and an independent Sparkplug subscriber
 * (paho-mqtt, python3-protobuf). SIGHUP after a register is added, one removed and
 * a deadband changed: the broker sees no `offline` and no NDEATH, the link's connects
 * and bdSeq stay; the new register's value and discovery config arrive, the removed
 * one's are cleared; an unchanged register is not published again (its
 * max_interval_s state went on); the changed device gets DDEATH then DBIRTH with the
 * new metric set (kept aliases, a new one for the new register), the untouched device
 * nothing, and seq goes on. A change of the `mqtt` settings still reconnects.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus } from "../faults/harness/modbus-peer.ts";
import { eventually, type RunningServe, startServe } from "../faults/harness/serve.ts";
import {
  type Broker,
  brokerPassword,
  brokerUser,
  hasMosquitto,
  startMosquitto,
  startSubscriber,
} from "../harness/mosquitto.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { hasSparkplugPeers, type SparkplugMessage, startSparkplugSubscriber } from "../harness/sparkplug.ts";

const canRun = hasMosquitto && hasPymodbus && hasSparkplugPeers;
const node = "spBv1.0/plant";
const meterTopic = (type: string) => `${node}/${type}/site-1/GW-1:Meter`;
const pumpTopic = (type: string) => `${node}/${type}/site-1/GW-1:Pump`;
const valueTopic = (device: string, register: string) => `fieldhub/site/GW-1/${device}/${register}`;

type Link = {
  state: string;
  connects: number;
  connected_at: string | null;
  sparkplug: { state: string; bd_seq: number };
};

describe.skipIf(!canRun)("a reload on the same MQTT connections (mosquitto, pymodbus, paho + protobuf)", () => {
  let dir = "";
  let broker: Broker;
  let peer: PymodbusPeer;
  let serve: RunningServe;
  let passwordFile = "";
  let values: ReturnType<typeof startSubscriber>;
  let discovery: ReturnType<typeof startSubscriber>;
  let sparkplug: Awaited<ReturnType<typeof startSparkplugSubscriber>>;

  const yaml = (meterRegisters: string[], maxIntervalS = 300) => `
storage: { commit_interval_s: 1 }
mqtt:
  url: ${broker.url}
  username: ${brokerUser}
  password_file: ${passwordFile}
  client_id: fh-reload
  max_interval_s: ${maxIntervalS}
  homeassistant: { discovery_prefix: homeassistant }
  sparkplug: { group_id: plant, edge_node_id: site-1 }
organizations: [{ key: site, name: Site }]
gateways:
  - serial: GW-1
    name: GW-1
    bus: { type: tcp }
    devices:
      - name: Meter
        slave_id: 1
        host: 127.0.0.1
        port: ${peer.port}
        poll_interval_ms: 200
        registers:
${meterRegisters.map((register) => `          - ${register}`).join("\n")}
      - name: Pump
        slave_id: 2
        host: 127.0.0.1
        port: ${peer.port}
        poll_interval_ms: 200
        registers:
          - { name: speed, address: 0, data_type: int16 }
`;
  const before = ["{ name: r0, address: 0, data_type: int16 }", "{ name: r1, address: 1, data_type: uint16, unit: V }"];
  const after = [
    "{ name: r0, address: 0, data_type: int16, deadband: 5 }",
    "{ name: r2, address: 2, data_type: uint16, unit: W }",
  ];

  const link = async () => ((await (await fetch(`${serve.url}/healthz`)).json()) as { mqtt: Link }).mqtt;
  /** The discovery config whose state topic is the register's (the newest message on its config topic). */
  const configOf = (register: string) =>
    discovery.received.findLast((message) =>
      message.payload.includes(`"state_topic":"${valueTopic("Meter", register)}"`),
    );
  const type = (message: SparkplugMessage) => message.topic.split("/")[2];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fieldhub-reload-in-place-"));
    broker = await startMosquitto(join(dir, "broker"), { queueQos0: true });
    peer = await startPymodbusPeer({
      tcp_port: 0,
      serial: null,
      units: {
        "1": {
          hr: [
            { address: 0, type: "int16", value: 11 },
            { address: 1, type: "uint16", value: 22 },
            { address: 2, type: "uint16", value: 33 },
          ],
        },
        "2": { hr: [{ address: 0, type: "int16", value: 7 }] },
      },
    });
    passwordFile = join(dir, "mqtt.pass");
    writeFileSync(passwordFile, `${brokerPassword}\n`, { mode: 0o600 });
    values = startSubscriber(broker, "fieldhub/#");
    discovery = startSubscriber(broker, "homeassistant/#");
    sparkplug = await startSparkplugSubscriber(broker);
    serve = await startServe({ workDir: join(dir, "serve"), yaml: yaml(before) });
  }, 60_000);

  afterAll(async () => {
    await serve?.stop();
    values?.stop();
    discovery?.stop();
    sparkplug?.stop();
    peer?.proc.kill("SIGKILL");
    await broker?.stop();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  test("registers added, removed and a deadband changed: same connections, topics and births follow", async () => {
    // Running: values, discovery configs, and the Sparkplug births of both devices.
    await eventually(
      () => ({
        r0: values.on(valueTopic("Meter", "r0")).length,
        r1: values.on(valueTopic("Meter", "r1")).length,
        configs: [configOf("r0"), configOf("r1")].filter((message) => message !== undefined).length,
        births: sparkplug.of("DBIRTH").length,
      }),
      (seen) => seen.r0 > 0 && seen.r1 > 0 && seen.configs === 2 && seen.births === 2,
      20_000,
    );
    const first = await eventually(link, (now) => now.state === "online" && now.sparkplug.state === "online");
    const meterBirth = sparkplug.of("DBIRTH").find((message) => message.topic === meterTopic("DBIRTH"));
    const aliasBefore = Object.fromEntries((meterBirth?.metrics ?? []).map((metric) => [metric.name, metric.alias]));
    const r1Config = configOf("r1")?.topic ?? "";
    const r0Published = values.on(valueTopic("Meter", "r0")).length;
    const seen = { values: values.received.length, sparkplug: sparkplug.messages.length };

    await serve.reload(yaml(after));

    // The new register's value and discovery config; the removed one's config and value cleared.
    await eventually(
      () => ({
        r2: values.on(valueTopic("Meter", "r2")).map((message) => message.payload),
        r2Config: configOf("r2")?.payload ?? null,
        r1Config: discovery.on(r1Config).at(-1)?.payload ?? null,
        r1Value: values.on(valueTopic("Meter", "r1")).at(-1)?.payload ?? null,
      }),
      (now) => now.r2.length > 0 && now.r2Config !== null && now.r1Config === "" && now.r1Value === "",
      15_000,
    );
    expect(JSON.parse(values.on(valueTopic("Meter", "r2"))[0]?.payload ?? "{}")).toMatchObject({
      value: 33,
      raw_value: 33,
      unit: "W",
    });
    expect(JSON.parse(configOf("r2")?.payload ?? "{}")).toMatchObject({
      name: "r2",
      unit_of_measurement: "W",
      device_class: "power",
    });

    // Sparkplug: DDEATH then DBIRTH of the changed device with the new metric set, its value read.
    const rebirth = await eventually(
      () => sparkplug.messages.slice(seen.sparkplug).filter((message) => type(message) !== "DDATA"),
      (since) => since.some((message) => message.topic === meterTopic("DBIRTH")),
      15_000,
    );
    expect(rebirth.map((message) => message.topic)).toEqual([meterTopic("DDEATH"), meterTopic("DBIRTH")]);
    const metrics = Object.fromEntries((rebirth[1]?.metrics ?? []).map((metric) => [metric.name, metric]));
    expect(Object.keys(metrics).sort()).toEqual(["r0", "r2"]);
    expect(metrics.r0?.alias).toBe(aliasBefore.r0 ?? -1);
    // A new alias, never one given before on this edge node (r1's is not reused).
    expect(Object.values(aliasBefore)).not.toContain(metrics.r2?.alias ?? null);
    expect(metrics.r2?.value).toBe(33);
    // seq goes on across the DDEATH and DBIRTH: one NBIRTH in all, every message after it the next seq.
    let expected = 0;
    for (const message of sparkplug.messages) {
      expect({ topic: message.topic, seq: message.seq }).toEqual({ topic: message.topic, seq: expected });
      expected = (expected + 1) % 256;
    }
    expect(sparkplug.of("NBIRTH")).toHaveLength(1);

    // The connections stayed: no last will, no clean-stop `offline`, no NDEATH; connects and bdSeq as before.
    const still = await link();
    expect(still).toMatchObject({
      state: "online",
      connects: first.connects,
      connected_at: first.connected_at,
      sparkplug: { state: "online", bd_seq: first.sparkplug.bd_seq },
    });
    expect(values.on("fieldhub/status").map((message) => message.payload)).toEqual(["online"]);
    expect(sparkplug.of("NDEATH")).toEqual([]);
    expect(sparkplug.messages.slice(seen.sparkplug).some((message) => message.topic.startsWith(pumpTopic("")))).toBe(
      false,
    );
    // r0 kept its last value and time: not published again (unchanged, max_interval_s 300 s), as a restart would.
    expect(values.on(valueTopic("Meter", "r0"))).toHaveLength(r0Published);
    expect(values.received.length).toBeGreaterThan(seen.values);

    // The link's own settings changed: it reconnects with them.
    await serve.reload(yaml(after, 200));
    await eventually(
      link,
      (now) => now.state === "online" && now.connected_at !== first.connected_at && now.sparkplug.state === "online",
      15_000,
    );
    await eventually(
      () => values.on("fieldhub/status").map((message) => message.payload),
      (statuses) => statuses.join(",") === "online,offline,online",
    );
  }, 90_000);
});
