/**
 * Sparkplug B 3.0 on a real `fieldhub serve` (docs/mqtt.md, "Sparkplug B"): two
 * Modbus devices on Debian's pymodbus, a private Debian mosquitto, and an
 * independent subscriber (paho-mqtt, decoding with python3-protobuf from the
 * published schema through protoc). NBIRTH and DBIRTH metrics equal the
 * equipment's values; DDATA by alias; DDEATH when a peer is killed and DBIRTH when
 * it returns; an NCMD rebirth is answered; a broker stopped while a device first
 * answers gets every reading stored meanwhile as historical DDATA, once each, in
 * time order; `kill -9` gives the NDEATH with the NBIRTH's bdSeq, and a restart a
 * new NBIRTH with the next one; `seq` counts every message after an NBIRTH.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus } from "../faults/harness/modbus-peer.ts";
import { eventually, type RunningServe, startServe } from "../faults/harness/serve.ts";
import { runCli } from "../harness/cli.ts";
import { type Broker, brokerPassword, brokerUser, hasMosquitto, startMosquitto } from "../harness/mosquitto.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import {
  hasSparkplugPeers,
  type SparkplugMessage,
  type SparkplugMetric,
  startSparkplugSubscriber,
} from "../harness/sparkplug.ts";

const canRun = hasMosquitto && hasPymodbus && hasSparkplugPeers;
const node = "spBv1.0/plant/%s/site-1";
const topicOf = (type: string, device?: string) =>
  `${node.replace("%s", type)}${device === undefined ? "" : `/${device}`}`;
// The schema's DataType numbers (sparkplug_b.proto).
const dataType = { Int16: 2, Int64: 4, UInt16: 6, UInt32: 7, Float: 9, Double: 10, Boolean: 11, String: 12 } as const;

const meterSpec = (port: number) => ({
  tcp_port: port,
  serial: null,
  units: {
    "1": {
      hr: [
        { address: 0, type: "int16", value: -5 },
        { address: 1, type: "int16", value: 101 },
        { address: 2, type: "float32", value: 1.5 },
        { address: 4, type: "uint32", value: 70000 },
        { address: 6, type: "string", value: "RDF3", length: 2 },
      ],
      co: [{ address: 0, value: true }],
    },
  },
});
const boilerSpec = (port: number) => ({
  tcp_port: port,
  serial: null,
  units: {
    "1": {
      hr: [
        { address: 0, type: "int16", value: 21 },
        { address: 1, type: "uint16", value: 500 },
      ],
    },
  },
});
const pumpSpec = (port: number) => ({
  tcp_port: port,
  serial: null,
  units: {
    "1": {
      hr: [
        { address: 0, type: "int16", value: 7 },
        { address: 1, type: "uint16", value: 65000 },
      ],
    },
  },
});

function configYaml(options: {
  meterPort: number;
  pumpPort: number;
  boilerPort: number;
  broker: string;
  passwordFile: string;
}): string {
  // The boiler polled every 100 ms: silent since the start, it is probed after a backoff that doubles from
  // its poll interval (docs/polling.md, "Failures"), so it answers soon once its peer is up.
  const device = (name: string, port: number, registers: string[], pollMs = 200) => `
      - name: ${name}
        slave_id: 1
        host: 127.0.0.1
        port: ${port}
        poll_interval_ms: ${pollMs}
        timeout_ms: 300
        retries: 0
        storage_interval_s: 60
        registers:
${registers.map((register) => `          - ${register}`).join("\n")}`;
  return `
storage: { commit_interval_s: 1 }
mqtt:
  url: ${options.broker}
  username: ${brokerUser}
  password_file: ${options.passwordFile}
  max_interval_s: 300
  sparkplug: { group_id: plant, edge_node_id: site-1 }
organizations: [{ key: site, name: Site }]
gateways:
  - serial: GW-1
    name: GW-1
    heartbeat_s: 5
    bus: { type: tcp, reconnect_max_s: 1 }
    devices:${device("Meter", options.meterPort, [
      "{ name: temp, address: 0, data_type: int16 }",
      "{ name: volts, address: 1, data_type: int16, scale_factor: 0.1, unit: V }",
      "{ name: flow, address: 2, data_type: float32 }",
      "{ name: count, address: 4, data_type: uint32 }",
      "{ name: model, address: 6, data_type: string, length: 2 }",
      "{ name: run, address: 0, function_code: 1, data_type: bool }",
    ])}${device("Pump", options.pumpPort, [
      "{ name: speed, address: 0, data_type: int16 }",
      "{ name: hours, address: 1, data_type: uint16 }",
    ])}${device(
      "Boiler",
      options.boilerPort,
      [
        "{ name: level, address: 0, data_type: int16 }",
        "{ name: supply, address: 1, data_type: uint16, scale_factor: 0.1, unit: °C }",
      ],
      100,
    )}
`;
}

/** Each message after an NBIRTH carries the seq after the one before, 255 wrapping to 0 (NDEATH has none). */
function expectSeqRuns(messages: readonly SparkplugMessage[]): void {
  let expected: number | null = null;
  for (const message of messages) {
    const type = message.topic.split("/")[2];
    if (type === "NDEATH" || type === "NCMD") {
      expect(message.seq).toBeNull();
      continue;
    }
    if (type === "NBIRTH") {
      expect(message.seq).toBe(0);
      expected = 1;
      continue;
    }
    expect({ topic: message.topic, seq: message.seq }).toEqual({ topic: message.topic, seq: expected });
    expected = ((expected ?? 0) + 1) % 256;
  }
}

const byName = (metrics: readonly SparkplugMetric[]): Record<string, SparkplugMetric> =>
  Object.fromEntries(metrics.map((metric) => [metric.name, metric]));

describe.skipIf(!canRun)("Sparkplug B on a running serve (mosquitto, pymodbus, paho + python3-protobuf)", () => {
  let dir: string;
  let broker: Broker;
  let meter: PymodbusPeer;
  let pump: PymodbusPeer;
  let pumpPort = 0;
  let boiler: PymodbusPeer | null = null;
  let boilerPort = 0;
  let serve: RunningServe;
  let yaml = "";
  let subscriber: Awaited<ReturnType<typeof startSparkplugSubscriber>>;
  const meterTopic = (type: string) => topicOf(type, "GW-1:Meter");
  const pumpTopic = (type: string) => topicOf(type, "GW-1:Pump");

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fieldhub-sparkplug-"));
    broker = await startMosquitto(join(dir, "broker"), { queueQos0: true });
    meter = await startPymodbusPeer(meterSpec(0));
    pump = await startPymodbusPeer(pumpSpec(0));
    pumpPort = pump.port;
    // The boiler's peer first answers while the broker is away (the history test): its port, nobody on it yet.
    const reserved = await startPymodbusPeer(boilerSpec(0));
    boilerPort = reserved.port;
    reserved.proc.kill("SIGKILL");
    await reserved.proc.exited;
    const passwordFile = join(dir, "mqtt.pass");
    writeFileSync(passwordFile, `${brokerPassword}\n`, { mode: 0o600 });
    subscriber = await startSparkplugSubscriber(broker);
    yaml = configYaml({ meterPort: meter.port, pumpPort, boilerPort, broker: broker.url, passwordFile });
    serve = await startServe({ workDir: join(dir, "serve"), yaml });
  }, 60_000);

  afterAll(async () => {
    await serve?.stop();
    subscriber?.stop();
    meter?.proc.kill("SIGKILL");
    pump?.proc.kill("SIGKILL");
    boiler?.proc.kill("SIGKILL");
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The edge node is connected and its NBIRTH of this connection's bdSeq arrived; returns that bdSeq. */
  async function nodeBorn(): Promise<number> {
    const node = await eventually(
      async () =>
        (
          (await (await fetch(`${serve.url}/healthz`)).json()) as {
            mqtt?: { sparkplug?: { state: string; bd_seq: number } };
          }
        ).mqtt?.sparkplug,
      (found) =>
        found?.state === "online" &&
        subscriber.of("NBIRTH").some((birth) => byName(birth.metrics).bdSeq?.value === found.bd_seq),
      60_000,
    );
    return node?.bd_seq as number;
  }

  test("NBIRTH with bdSeq and Node Control/Rebirth; DBIRTH metrics equal the equipment's values; DDATA by alias", async () => {
    const nbirth = await eventually(
      () => subscriber.of("NBIRTH"),
      (list) => list.length > 0,
      20_000,
    );
    expect(nbirth[0]?.topic).toBe(topicOf("NBIRTH"));
    expect(nbirth[0]?.seq).toBe(0);
    expect(byName(nbirth[0]?.metrics ?? [])).toMatchObject({
      bdSeq: { datatype: dataType.Int64, value: 0 },
      "Node Control/Rebirth": { datatype: dataType.Boolean, value: false },
    });
    const births = await eventually(
      () => subscriber.of("DBIRTH"),
      (list) => list.some((m) => m.topic === meterTopic("DBIRTH")) && list.some((m) => m.topic === pumpTopic("DBIRTH")),
      20_000,
    );
    const meterBirth = byName(births.find((m) => m.topic === meterTopic("DBIRTH"))?.metrics ?? []);
    expect(meterBirth).toMatchObject({
      temp: { datatype: dataType.Int16, value: -5, is_null: false },
      volts: { datatype: dataType.Double, value: 10.1 },
      flow: { datatype: dataType.Float, value: 1.5 },
      count: { datatype: dataType.UInt32, value: 70000 },
      model: { datatype: dataType.String, value: "RDF3" },
      run: { datatype: dataType.Boolean, value: true },
    });
    const pumpBirth = byName(births.find((m) => m.topic === pumpTopic("DBIRTH"))?.metrics ?? []);
    expect(pumpBirth).toMatchObject({
      speed: { datatype: dataType.Int16, value: 7 },
      hours: { datatype: dataType.UInt16, value: 65000 },
    });
    // Aliases are unique across the edge node; every metric has a read time.
    const aliases = [...Object.values(meterBirth), ...Object.values(pumpBirth)].map((metric) => metric.alias);
    expect(new Set(aliases).size).toBe(8);
    for (const metric of [...Object.values(meterBirth), ...Object.values(pumpBirth)])
      expect(metric.timestamp).toBeGreaterThan(Date.now() - 60_000);

    // A change on the equipment: DDATA with only that metric, by alias, no name.
    const before = subscriber.messages.length;
    expect((await meter.ask(`SET 1 hr 0 ${65536 - 20}`)).startsWith("SET ok")).toBe(true);
    const data = await eventually(
      () => subscriber.messages.slice(before).filter((m) => m.topic === meterTopic("DDATA")),
      (list) => list.some((m) => m.metrics.some((metric) => metric.value === -20)),
      10_000,
    );
    const changed = data.find((m) => m.metrics.some((metric) => metric.value === -20));
    expect(changed?.metrics).toEqual([
      expect.objectContaining({ name: null, alias: meterBirth.temp?.alias, datatype: dataType.Int16, value: -20 }),
    ]);
    expect(changed?.metrics[0]?.is_historical).toBe(false);
    expectSeqRuns(subscriber.messages);
  }, 60_000);

  test("a broker stopped while readings are stored: every one as historical DDATA after reconnect, once, in time order", async () => {
    // The boiler first answers while the broker is away: its first readings are stored then. (Run early: a
    // device silent since the start is probed after a backoff that doubles, docs/polling.md "Failures".)
    const before = subscriber.messages.length;
    const stoppedAt = Date.now();
    await broker.stop();
    boiler = await startPymodbusPeer(boilerSpec(boilerPort));
    const exportOutage = async (until: number) => {
      const exported = await runCli([
        "history",
        "export",
        "--data",
        serve.dataDir,
        "--since",
        new Date(stoppedAt).toISOString(),
        "--until",
        new Date(until).toISOString(),
        "--format",
        "ndjson",
        "--quiet",
      ]);
      expect(exported.code).toBe(0);
      return exported.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map(
          (line) =>
            JSON.parse(line) as { ts: string; raw_value: number; value: number; device: string; register: string },
        );
    };
    try {
      await eventually(
        () => exportOutage(Date.now()),
        (rows) => rows.filter((row) => row.device === "Boiler").length === 2,
        60_000,
        250,
      );
    } finally {
      await broker.start();
    }
    const startedAt = Date.now();
    const stored = await exportOutage(startedAt);
    expect(stored.length).toBeGreaterThanOrEqual(2);

    const historicalOf = () =>
      subscriber.messages
        .filter((m) => m.topic.includes("/DDATA/"))
        .flatMap((m) =>
          m.metrics.filter((metric) => metric.is_historical).map((metric) => ({ device: m.topic, metric })),
        );
    const boilerBirth = await eventually(
      () => subscriber.messages.slice(before).filter((m) => m.topic === topicOf("DBIRTH", "GW-1:Boiler")),
      (list) => list.length > 0,
      60_000,
    );
    expect(byName(boilerBirth[0]?.metrics ?? [])).toMatchObject({
      level: { datatype: dataType.Int16, value: 21 },
      supply: { datatype: dataType.Double, value: 50 },
    });
    await eventually(
      () => historicalOf().filter(({ metric }) => (metric.timestamp ?? 0) >= stoppedAt - 1000),
      (list) => list.length >= stored.length,
      30_000,
    );
    // The replay's last round is done once it has sent past the births: give it a moment to send more (it must not).
    await Bun.sleep(2000);
    const sent = historicalOf();
    const nameOf = new Map<number, { topic: string; name: string | null; datatype: number | null }>();
    for (const birth of subscriber.messages.filter((m) => m.topic.includes("/DBIRTH/")))
      for (const metric of birth.metrics)
        nameOf.set(metric.alias ?? -1, { topic: birth.topic, name: metric.name, datatype: metric.datatype });
    // Exactly once: no (metric, time) twice.
    const keys = sent.map(({ metric }) => `${metric.alias}@${metric.timestamp}`);
    expect(new Set(keys).size).toBe(keys.length);
    // Every stored reading of the outage is there once, with its value in the metric's datatype.
    for (const reading of stored) {
      const found = sent.filter(({ metric }) => {
        const declared = nameOf.get(metric.alias ?? -1);
        return (
          declared?.topic === topicOf("DBIRTH", `GW-1:${reading.device}`) &&
          declared.name === reading.register &&
          metric.timestamp === Date.parse(reading.ts)
        );
      });
      expect({ reading, found: found.length }).toEqual({ reading, found: 1 });
      const declared = nameOf.get(found[0]?.metric.alias ?? -1);
      const expected =
        declared?.datatype === dataType.Double
          ? reading.value
          : declared?.datatype === dataType.Boolean
            ? reading.raw_value !== 0
            : reading.raw_value;
      expect(found[0]?.metric.value).toBe(expected);
    }
    // In time order on each device.
    for (const device of ["GW-1:Meter", "GW-1:Pump", "GW-1:Boiler"]) {
      const times = sent.filter((entry) => entry.device.endsWith(device)).map(({ metric }) => metric.timestamp ?? 0);
      expect(times).toEqual([...times].sort((a, b) => a - b));
    }
    const metrics = await (await fetch(`${serve.url}/metrics`)).text();
    expect(metrics).toContain('fieldhub_mqtt_sparkplug_link_state{state="online"} 1');
    expect(metrics).toContain(`fieldhub_mqtt_sparkplug_historical_readings_total ${sent.length}`);
    expectSeqRuns(subscriber.messages);
  }, 120_000);

  test("a killed pump peer: DDEATH; back: DBIRTH with its values", async () => {
    await nodeBorn();
    const lastBirth = subscriber.messages.lastIndexOf(subscriber.of("NBIRTH").at(-1) as SparkplugMessage);
    await eventually(
      () => subscriber.messages.slice(lastBirth),
      (list) => list.some((m) => m.topic === pumpTopic("DBIRTH")),
      20_000,
    );
    pump.proc.kill("SIGKILL");
    await pump.proc.exited;
    const death = await eventually(
      () => subscriber.messages.filter((m) => m.topic === pumpTopic("DDEATH")),
      (list) => list.length > 0,
      20_000,
    );
    expect(death[0]?.metrics).toEqual([]);
    const births = subscriber.messages.filter((m) => m.topic === pumpTopic("DBIRTH")).length;
    pump = await startPymodbusPeer(pumpSpec(pumpPort));
    const rebirth = await eventually(
      () => subscriber.messages.filter((m) => m.topic === pumpTopic("DBIRTH")),
      (list) => list.length > births,
      20_000,
    );
    expect(byName(rebirth.at(-1)?.metrics ?? [])).toMatchObject({ speed: { value: 7 }, hours: { value: 65000 } });
    // The meter never stopped answering: no DDEATH for it.
    expect(subscriber.messages.filter((m) => m.topic === meterTopic("DDEATH"))).toEqual([]);
    expectSeqRuns(subscriber.messages);
  }, 60_000);

  test("NCMD Node Control/Rebirth = true: a new NBIRTH (same bdSeq) and every DBIRTH", async () => {
    const bdSeq = await nodeBorn();
    const before = subscriber.messages.length;
    await subscriber.command(topicOf("NCMD"), [
      { name: "Node Control/Rebirth", datatype: dataType.Boolean, boolean_value: true },
    ]);
    const after = await eventually(
      () => subscriber.messages.slice(before),
      (list) =>
        list.some((m) => m.topic === topicOf("NBIRTH")) &&
        list.some((m) => m.topic === meterTopic("DBIRTH")) &&
        list.some((m) => m.topic === pumpTopic("DBIRTH")),
      10_000,
    );
    const nbirth = after.find((m) => m.topic === topicOf("NBIRTH"));
    expect(nbirth?.seq).toBe(0);
    expect(byName(nbirth?.metrics ?? []).bdSeq?.value).toBe(bdSeq);
    expectSeqRuns(subscriber.messages);
  }, 30_000);

  test("kill -9: NDEATH with the NBIRTH's bdSeq; a restart births with the next bdSeq", async () => {
    const bdSeq = await nodeBorn();
    const deaths = subscriber.of("NDEATH").length;
    serve.proc.kill("SIGKILL");
    await serve.proc.exited;
    // The broker sends the will once the socket closes (or the 30 s keep-alive lapses).
    const death = await eventually(
      () => subscriber.of("NDEATH").slice(deaths),
      (list) => list.length > 0,
      60_000,
    );
    expect(death[0]?.topic).toBe(topicOf("NDEATH"));
    expect(death[0]?.seq).toBeNull();
    expect(byName(death[0]?.metrics ?? []).bdSeq).toMatchObject({ datatype: dataType.Int64, value: bdSeq });
    const births = subscriber.of("NBIRTH").length;
    serve = await startServe({ workDir: join(dir, "serve"), yaml });
    const again = await eventually(
      () => subscriber.of("NBIRTH"),
      (list) => list.length > births,
      30_000,
    );
    expect(byName(again.at(-1)?.metrics ?? []).bdSeq?.value).toBe((bdSeq + 1) % 256);
    const reborn = subscriber.messages.lastIndexOf(again.at(-1) as SparkplugMessage);
    await eventually(
      () => subscriber.messages.slice(reborn).filter((m) => m.topic === meterTopic("DBIRTH")),
      (list) => list.length > 0,
      20_000,
    );
    expectSeqRuns(subscriber.messages);
  }, 120_000);
});
