/**
 * MQTT publishing (docs/mqtt.md), through a private mosquitto to Debian's
 * mosquitto_sub in its own process:
 * 1. values: 2,000 registers all changing, a burst a second for `--seconds`,
 *    published by fieldhub's MQTT part (values wait in memory, go out from a timer),
 *    against a bare MQTT.js client publishing the same messages (QoS 1, retained)
 *    in the same run; the rate is messages received per second of each burst
 *    (goal: fieldhub >= 0.5x the bare client's);
 * 2. events: a backlog of `--events` events in the store's outbox (as after an
 *    outage) published from the MQTT position, PUBACK awaited per batch: events
 *    received per second.
 *
 * Usage: bun scripts/bench/mqtt.ts [--registers 2000] [--seconds 10] [--events 20000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import mqtt from "mqtt";
import { parseConfig } from "../../src/config/index.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { startMqtt } from "../../src/mqtt/publisher.ts";
import { openStore } from "../../src/store/index.ts";
import { sampleEvent } from "../../test/harness/events.ts";
import {
  brokerPassword,
  brokerSettings,
  brokerUser,
  startMosquitto,
  startSubscriber,
} from "../../test/harness/mosquitto.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: { registers: { type: "string" }, seconds: { type: "string" }, events: { type: "string" } },
});
const registerCount = Number(args.registers ?? 2000);
const seconds = Number(args.seconds ?? 10);
const eventCount = Number(args.events ?? 20_000);

const dir = mkdtempSync(join(tmpdir(), "fieldhub-bench-mqtt-"));
const broker = await startMosquitto(join(dir, "broker"));

// The bench site as a config file says it: one gateway, one device, `registerCount` registers.
const parsed = parseConfig(`
organizations: [{ key: bench, name: Bench }]
gateways:
  - serial: GW-1
    name: GW-1
    bus: { type: tcp }
    devices:
      - name: meter
        slave_id: 1
        host: 127.0.0.1
        registers:
${Array.from({ length: registerCount }, (_, i) => `          - { name: r${i}, address: ${i}, data_type: int16, unit: W, scale_factor: 0.1 }`).join("\n")}
`);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
const inventory = parsed.config.inventory;
const registers = inventory.organizations[0]?.gateways[0]?.modbusDevices[0]?.registers ?? [];
const settings = brokerSettings(broker);

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error("timed out");
    await Bun.sleep(2);
  }
}

/** Bursts of every register once a second; the receipt rate of each burst. */
async function bursts(topic: string, publishBurst: (tick: number) => void): Promise<number[]> {
  const subscriber = startSubscriber(broker, topic);
  await Bun.sleep(500);
  const rates: number[] = [];
  for (let tick = 1; tick <= seconds; tick++) {
    const before = subscriber.received.length;
    const began = performance.now();
    publishBurst(tick);
    await until(() => subscriber.received.length >= before + registerCount).catch((error) => {
      throw new Error(
        `${topic} tick ${tick}: ${subscriber.received.length - before} of ${registerCount} received (${error})`,
      );
    });
    rates.push(registerCount / ((performance.now() - began) / 1000));
    await Bun.sleep(Math.max(0, 1000 - (performance.now() - began)));
  }
  subscriber.stop();
  return rates;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;

// --- bare MQTT.js: the same payloads, QoS 1, retained ------------------------
const bare = await mqtt.connectAsync(broker.url, { username: brokerUser, password: brokerPassword, clientId: "bare" });
const bareRates = await bursts("bare/#", (tick) => {
  const ts = new Date().toISOString();
  registers.forEach((register, i) => {
    const raw = tick * 10 + (i % 7);
    const payload = JSON.stringify({ value: raw / 10, raw_value: raw, unit: "W", ts });
    bare.publish(`bare/bench/GW-1/meter/${register.name}`, payload, { qos: 1, retain: true });
  });
});
await bare.endAsync();

// --- fieldhub's MQTT part ------------------------------------------------------
const store = openStore(join(dir, "data"));
await store.inventory.sync(inventory, Date.now());
const org = await store.organizations.findByKey("bench");
if (org === null) throw new Error("no organisation");
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
await until(() => publisher.status().state === "online");
const offerBegan = { total: 0, bursts: 0 };
const fieldhubRates = await bursts("fieldhub/bench/GW-1/meter/#", (tick) => {
  const ts = Date.now();
  const began = performance.now();
  publisher.offer(registers.map((register, i) => ({ registerId: register.id, ts, raw: tick * 10 + (i % 7) })));
  offerBegan.total += performance.now() - began;
  offerBegan.bursts += 1;
});

// --- events: a backlog in the outbox -------------------------------------------
await publisher.stop();
const events = startSubscriber(broker, "fieldhub/bench/events/#");
await Bun.sleep(500);
const position = await store.events.positionOf("mqtt");
for (let i = 0; i < eventCount; i++) await store.events.record(sampleEvent("device.offline", org.id, Date.now()));
await store.events.savePosition("mqtt", position);
const replayBegan = performance.now();
const replaying = await startMqtt({
  settings,
  inventory,
  store,
  clock: systemClock,
  logger: silentLogger(),
  gatewayStatus: () => "online",
  modbusDeviceOffline: () => false,
  settleMs: 2000,
});
await until(() => events.received.length >= eventCount, 300_000);
const replayRate = eventCount / ((performance.now() - replayBegan) / 1000);
await replaying.stop();
events.stop();
await store.close();
await broker.stop();
rmSync(dir, { recursive: true, force: true });

const bareMedian = median(bareRates);
const fieldhubMedian = median(fieldhubRates);
console.log(
  JSON.stringify(
    {
      registers: registerCount,
      bursts: seconds,
      bare_messages_per_s_median: Math.round(bareMedian),
      fieldhub_messages_per_s_median: Math.round(fieldhubMedian),
      ratio: Number((fieldhubMedian / bareMedian).toFixed(2)),
      offer_ms_per_burst: Number((offerBegan.total / offerBegan.bursts).toFixed(2)),
      event_backlog: eventCount,
      events_replayed_per_s: Math.round(replayRate),
    },
    null,
    2,
  ),
);
