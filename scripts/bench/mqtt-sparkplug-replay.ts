/**
 * Sparkplug B history after an outage (docs/mqtt.md, "Sparkplug B"): the backlog
 * of a one-hour outage of 2,000 registers read once a minute (120,000 stored
 * readings, 20 Modbus devices) sent by fieldhub's edge node as historical DDATA
 * from its store position, through a private mosquitto, to a subscriber in its own
 * process (MQTT.js and protobufjs: it decodes every message and counts each
 * reading once, by alias and time). Against it, in the same run, a bare MQTT.js
 * client publishing the same messages, encoded beforehand. Each rate is readings
 * received per second, from the start of the publishing (fieldhub: the edge
 * node's start, its connect, births and store reads included) to the last reading
 * received. Goal (issue 27): fieldhub >= 20,000 readings/s.
 *
 * Usage: bun scripts/bench/mqtt-sparkplug-replay.ts [--registers 2000] [--minutes 60] [--devices 20] [--runs 3]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import mqtt from "mqtt";
import protobuf from "protobufjs";
import { parseConfig } from "../../src/config/index.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { startMqtt } from "../../src/mqtt/publisher.ts";
import { encodePayload, type Metric } from "../../src/mqtt/sparkplug/payload.ts";
import schemaText from "../../src/mqtt/sparkplug/sparkplug_b.proto" with { type: "text" };
import { openStore } from "../../src/store/index.ts";
import { brokerPassword, brokerSettings, brokerUser, startMosquitto } from "../../test/harness/mosquitto.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    registers: { type: "string" },
    minutes: { type: "string" },
    devices: { type: "string" },
    runs: { type: "string" },
    // Internal: this script as the subscriber process (port, topic filter, readings expected).
    subscriber: { type: "string" },
  },
});

if (args.subscriber !== undefined) await subscriber(args.subscriber);
else await bench();

/** The subscriber process: prints READY once subscribed, then one JSON line per finished count. */
async function subscriber(spec: string): Promise<void> {
  const [port, topic] = spec.split(",");
  const payloadType = protobuf
    .parse(schemaText, { keepCase: true })
    .root.lookupType("org.eclipse.tahu.protobuf.Payload");
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
    username: brokerUser,
    password: brokerPassword,
    clientId: `counter-${process.pid}`,
  });
  let expected = 0;
  let seen = new Set<string>();
  let readings = 0;
  client.on("message", (_topic, payload) => {
    const message = payloadType.toObject(payloadType.decode(payload), { longs: Number }) as {
      metrics?: { alias?: number; timestamp?: number; is_historical?: boolean }[];
    };
    for (const metric of message.metrics ?? []) {
      if (metric.is_historical !== true) continue;
      readings += 1;
      seen.add(`${topic}:${_topic}:${metric.alias}@${metric.timestamp}`);
    }
    if (expected > 0 && readings >= expected) {
      console.log(JSON.stringify({ readings, unique: seen.size, at: Date.now() }));
      expected = 0;
    }
  });
  await client.subscribeAsync(topic ?? "#", { qos: 0 });
  console.log("READY");
  // Each line on stdin: the number of readings the next count waits for.
  for await (const line of console) {
    readings = 0;
    seen = new Set();
    expected = Number(line);
  }
}

async function bench(): Promise<void> {
  const registerCount = Number(args.registers ?? 2000);
  const minutes = Number(args.minutes ?? 60);
  const deviceCount = Number(args.devices ?? 20);
  const runs = Number(args.runs ?? 3);
  const perDevice = Math.ceil(registerCount / deviceCount);
  const backlog = registerCount * minutes;

  const dir = mkdtempSync(join(tmpdir(), "fieldhub-bench-spb-"));
  const broker = await startMosquitto(join(dir, "broker"));
  const counter = Bun.spawn(
    [process.execPath, import.meta.path, "--subscriber", `${broker.port},spBv1.0/bench/DDATA/#`],
    { stdin: "pipe", stdout: "pipe", stderr: "inherit" },
  );
  const reader = counter.stdout.getReader();
  let buffered = "";
  const nextLine = async (timeoutMs: number): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    while (!buffered.includes("\n")) {
      if (Date.now() > deadline) throw new Error("subscriber silent");
      const { value, done } = await reader.read();
      if (done) throw new Error("subscriber ended");
      buffered += new TextDecoder().decode(value);
    }
    const at = buffered.indexOf("\n");
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return line;
  };
  if ((await nextLine(10_000)) !== "READY") throw new Error("subscriber not ready");
  const expect = async (count: number) => {
    counter.stdin.write(`${count}\n`);
    await counter.stdin.flush();
    // The subscriber takes the line before the first message of the count.
    await Bun.sleep(200);
  };

  // The bench site as a config file says it: one gateway, `deviceCount` devices of `perDevice` registers.
  const devices = Array.from({ length: deviceCount }, (_, d) => {
    const registers = Array.from(
      { length: perDevice },
      (_, i) => `          - { name: r${i}, address: ${i}, data_type: int16, unit: W, scale_factor: 0.1 }`,
    );
    return `      - name: d${d}\n        slave_id: ${d + 1}\n        host: 127.0.0.1\n        registers:\n${registers.join("\n")}`;
  });
  const parsed = parseConfig(`
organizations: [{ key: bench, name: Bench }]
gateways:
  - serial: GW-1
    name: GW-1
    bus: { type: tcp }
    devices:
${devices.join("\n")}
`);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const inventory = parsed.config.inventory;
  const modbusDevices = inventory.organizations[0]?.gateways[0]?.modbusDevices ?? [];
  const settings = brokerSettings(broker, { groupId: "bench", edgeNodeId: "node" });

  const store = openStore(join(dir, "data"));
  await store.inventory.sync(inventory, Date.now());
  const idOf = new Map((await store.registers.allIds()).map((register) => [register.uuid, register.id]));
  // The outage: one reading a minute of every register, the newest a minute ago.
  const outageStart = Math.floor(Date.now() / 60_000) * 60_000 - (minutes + 1) * 60_000;
  const rows: { registerId: number; ts: number; rawValue: number }[] = [];
  for (let minute = 0; minute < minutes; minute++)
    for (const device of modbusDevices)
      for (const [i, register] of device.registers.entries())
        rows.push({
          registerId: idOf.get(register.id) as number,
          ts: outageStart + minute * 60_000,
          rawValue: minute + i,
        });
  for (let at = 0; at < rows.length; at += 20_000) await store.readings.record(rows.slice(at, at + 20_000));

  // The same messages for the bare client: per device, in time order, 500 metrics a message.
  const aliasOf = new Map<number, number>();
  let alias = 0;
  for (const device of modbusDevices)
    for (const register of device.registers) aliasOf.set(idOf.get(register.id) as number, ++alias);
  const deviceOfRow = new Map<number, string>();
  for (const device of modbusDevices)
    for (const register of device.registers) deviceOfRow.set(idOf.get(register.id) as number, `GW-1:${device.name}`);
  const messages: { topic: string; payload: Buffer }[] = [];
  const byDevice = new Map<string, Metric[]>();
  let seq = 0;
  const flushDevice = (device: string, metrics: Metric[]) => {
    seq = (seq + 1) % 256;
    const bytes = encodePayload({ timestamp: Date.now(), seq, metrics });
    messages.push({ topic: `spBv1.0/bench/DDATA/bare/${device}`, payload: Buffer.from(bytes) });
    byDevice.delete(device);
  };
  for (const row of rows) {
    const device = deviceOfRow.get(row.registerId) as string;
    let metrics = byDevice.get(device);
    if (metrics === undefined) {
      metrics = [];
      byDevice.set(device, metrics);
    }
    metrics.push({
      alias: aliasOf.get(row.registerId),
      timestamp: row.ts,
      is_historical: true,
      value: { double_value: row.rawValue / 10 },
    });
    if (metrics.length === 500) flushDevice(device, metrics);
  }
  for (const [device, metrics] of byDevice) flushDevice(device, metrics);

  const bareRates: number[] = [];
  const fieldhubRates: number[] = [];
  const checks: { readings: number; unique: number }[] = [];
  for (let run = 0; run < runs; run++) {
    // --- bare MQTT.js: the same messages, QoS 0 ---------------------------------
    const bare = await mqtt.connectAsync(broker.url, {
      username: brokerUser,
      password: brokerPassword,
      clientId: "bare",
    });
    await expect(backlog);
    const bareBegan = Date.now();
    for (const message of messages) bare.publish(message.topic, message.payload, { qos: 0 });
    const bareDone = JSON.parse(await nextLine(300_000)) as { readings: number; unique: number; at: number };
    bareRates.push(backlog / ((bareDone.at - bareBegan) / 1000));
    await bare.endAsync();

    // --- fieldhub's edge node, from its position before the outage ---------------
    await store.sparkplug.saveState("bench/node", { bdSeq: run, historyThrough: outageStart - 1000 });
    await expect(backlog);
    const began = Date.now();
    const publisher = await startMqtt({
      settings,
      inventory,
      store,
      clock: systemClock,
      logger: silentLogger(),
      gatewayStatus: () => "online",
      modbusDeviceOffline: () => false,
      settleMs: 2000,
    });
    // One value of each device: it answers, so it is born (a DBIRTH) and its history is sent.
    publisher.offer(
      modbusDevices.map((device) => ({ registerId: device.registers[0]?.id ?? "", ts: Date.now(), raw: 1 })),
    );
    const done = JSON.parse(await nextLine(300_000)) as { readings: number; unique: number; at: number };
    fieldhubRates.push(backlog / ((done.at - began) / 1000));
    checks.push({ readings: done.readings, unique: done.unique });
    await publisher.stop();
  }
  counter.kill();
  await store.close();
  await broker.stop();
  rmSync(dir, { recursive: true, force: true });

  const round = (list: number[]) => list.map((rate) => Math.round(rate));
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
  console.log(
    JSON.stringify(
      {
        registers: registerCount,
        devices: deviceCount,
        minutes,
        backlog_readings: backlog,
        runs,
        bare_readings_per_s: round(bareRates),
        fieldhub_readings_per_s: round(fieldhubRates),
        fieldhub_median: Math.round(median(fieldhubRates)),
        ratio_median: Number((median(fieldhubRates) / median(bareRates)).toFixed(2)),
        // Each fieldhub run: every reading of the backlog received once.
        received: checks,
      },
      null,
      2,
    ),
  );
}
