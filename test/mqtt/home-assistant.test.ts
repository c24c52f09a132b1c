/**
 * Home Assistant discovery from a real `fieldhub serve` (docs/mqtt.md, "Home
 * Assistant"), read back by Debian's mosquitto_sub: a retained config per numeric
 * register with its state topic, unit, device and state class and availability,
 * binary_sensor for a bit, and a removed register's config cleared after a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { eventually, startServe } from "../faults/harness/serve.ts";
import {
  type Broker,
  brokerPassword,
  brokerUser,
  hasMosquitto,
  startMosquitto,
  startSubscriber,
} from "../harness/mosquitto.ts";

type Discovery = {
  name: string;
  unique_id: string;
  state_topic: string;
  value_template: string;
  unit_of_measurement?: string;
  device_class?: string;
  state_class?: string;
  availability: { topic: string }[];
  device: { identifiers: string[]; name: string };
};

describe.skipIf(!(hasMosquitto && hasPymodbus))("Home Assistant discovery on a running serve", () => {
  let dir: string;
  let broker: Broker;
  let peer: Awaited<ReturnType<typeof startModbusPeer>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fieldhub-mqtt-ha-"));
    broker = await startMosquitto(join(dir, "broker"));
    peer = await startModbusPeer();
    writeFileSync(join(dir, "mqtt.pass"), `${brokerPassword}\n`, { mode: 0o600 });
  });

  afterAll(async () => {
    await peer?.stop();
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const yaml = (registers: string) => `
mqtt:
  url: ${broker.url}
  username: ${brokerUser}
  password_file: ${join(dir, "mqtt.pass")}
  client_id: site-1
  homeassistant: { discovery_prefix: homeassistant }
organizations: [{ key: site, name: Site }]
gateways:
  - serial: GW-1
    name: Plant
    bus: { type: tcp }
    devices:
      - name: Meter
        slave_id: 1
        host: 127.0.0.1
        port: ${peer.port}
        poll_interval_ms: 200
        registers:
${registers}`;

  test("configs per register, binary_sensor for a bit, a removed register's config cleared", async () => {
    const energy = "          - { name: energy, address: 0, data_type: int16, unit: kWh }\n";
    const temperature =
      "          - { name: temperature, address: 1, data_type: int16, scale_factor: 0.1, unit: °C }\n";
    const bit = "          - { name: running, address: 2, data_type: bool, bit: 1 }\n";
    const configs = startSubscriber(broker, "homeassistant/#");
    const first = await startServe({ workDir: join(dir, "one"), yaml: yaml(energy + temperature + bit) });
    await eventually(
      () => configs.received.length,
      (n) => n >= 3,
    );
    const parsed = new Map(configs.received.map((m) => [m.topic, JSON.parse(m.payload) as Discovery]));
    const sensors = [...parsed.entries()].filter(([topic]) => topic.startsWith("homeassistant/sensor/site-1/"));
    const binary = [...parsed.entries()].filter(([topic]) => topic.startsWith("homeassistant/binary_sensor/site-1/"));
    expect(sensors.length).toBe(2);
    expect(binary.length).toBe(1);
    const byName = (name: string) => sensors.find(([, config]) => config.name === name)?.[1];
    expect(byName("energy")).toMatchObject({
      state_topic: "fieldhub/site/GW-1/Meter/energy",
      value_template: "{{ value_json.value }}",
      unit_of_measurement: "kWh",
      device_class: "energy",
      state_class: "total_increasing",
      availability: [{ topic: "fieldhub/site/GW-1/status" }, { topic: "fieldhub/status" }],
      device: { name: "Plant Meter" },
    });
    expect(byName("temperature")).toMatchObject({
      unit_of_measurement: "°C",
      device_class: "temperature",
      state_class: "measurement",
    });
    expect(binary[0]?.[1]).toMatchObject({ name: "running", state_topic: "fieldhub/site/GW-1/Meter/running" });
    // Each value topic the configs name carries the register's value (102 has bit 1 set: running on).
    const values = startSubscriber(broker, "fieldhub/site/GW-1/Meter/#");
    await eventually(
      () => values.received.length,
      (n) => n >= 3,
    );
    expect(
      Object.fromEntries(values.received.map((m) => [m.topic, (JSON.parse(m.payload) as { value: number }).value])),
    ).toEqual({
      "fieldhub/site/GW-1/Meter/energy": 100,
      "fieldhub/site/GW-1/Meter/temperature": 10.1,
      "fieldhub/site/GW-1/Meter/running": 1,
    });
    values.stop();
    await first.stop();

    // Without the temperature register: its config is cleared (an empty retained message).
    const temperatureTopic = sensors.find(([, config]) => config.name === "temperature")?.[0] ?? "";
    const second = await startServe({ workDir: join(dir, "two"), yaml: yaml(energy + bit) });
    await eventually(
      () => configs.on(temperatureTopic).map((m) => m.payload),
      (payloads) => payloads.at(-1) === "",
    );
    // A fresh subscriber is handed no retained config for it any more.
    const later = startSubscriber(broker, "homeassistant/#");
    await eventually(
      () => later.received.length,
      (n) => n >= 2,
    );
    await Bun.sleep(500);
    expect(later.received.every((m) => m.retain)).toBe(true);
    expect(later.received.map((m) => m.topic).sort()).toEqual(
      configs.received
        .filter((m) => m.topic !== temperatureTopic)
        .map((m) => m.topic)
        .filter((topic, i, all) => all.indexOf(topic) === i)
        .sort(),
    );
    later.stop();
    configs.stop();
    await second.stop();
  }, 60_000);
});
