/** The diff a reload applies and `config check --data` prints (src/config/diff.ts), by name. */
import { expect, test } from "bun:test";
import { configSnapshot, describeChange, diffConfigs } from "../../src/config/index.ts";
import { at, configOf, minimalFile, type Yamlish } from "./helpers.ts";

/** Two gateways; FH-2 with a Modbus TCP server. */
function site(): Yamlish {
  const file = minimalFile();
  (file.gateways as Yamlish[]).push({
    serial: "FH-2",
    name: "Greenhouse 2",
    bus: { type: "tcp" },
    modbus_server: { port: 5020 },
    devices: [
      { name: "meter", host: "10.0.0.6", slave_id: 2, registers: [{ name: "p", address: 4, data_type: "int16" }] },
    ],
  });
  return file;
}

function lines(before: Yamlish, after: Yamlish): string[] {
  return diffConfigs(configOf(before), configOf(after)).changes.map(describeChange);
}

test("the same file changes nothing", () => {
  const diff = diffConfigs(configOf(site()), configOf(site()));
  expect(diff.changes).toEqual([]);
  expect(diff.gateways).toEqual({ added: [], removed: [], changed: [] });
  expect(Object.values(diff.sections).some(Boolean)).toBe(false);
});

test("a bus and device setting change their gateway alone; the other gateway and its server are unchanged", () => {
  const after = site();
  at(after, "gateways", 0).bus = { type: "tcp", reconnect_max_s: 5 };
  at(after, "gateways", 0, "devices", 0).timeout_ms = 2000;
  const diff = diffConfigs(configOf(site()), configOf(after));
  expect(diff.changes.map(describeChange)).toEqual([
    "~ gateway FH-1 (reconnect_max_ms)",
    "~ device FH-1/unit 1 (timeout_ms)",
  ]);
  expect(diff.gateways.changed).toHaveLength(1);
  expect(diff.modbusServers).toEqual({ added: [], removed: [], changed: [] });
  // How it is polled changed, not what the API (and MQTT, the uplink) shows.
  expect(diff.sections).toMatchObject({ inventory: true, published: false });
});

test("a register renamed without an id is removed and added, as is an unnamed device given another address; a scale is a change of the register", () => {
  const after = site();
  at(after, "gateways", 1, "devices", 0, "registers", 0).name = "power";
  at(after, "gateways", 0, "devices", 0, "registers", 0).scale_factor = 0.1;
  expect(lines(site(), after)).toEqual([
    "~ register FH-1/unit 1/t (scale_factor)",
    "- register FH-2/meter/p",
    "+ register FH-2/meter/power",
  ]);
  // An unnamed device's key is its address (docs/config.md, "Stable ids").
  at(after, "gateways", 0, "devices", 0).host = "10.0.0.7";
  expect(lines(site(), after).slice(0, 2)).toEqual(["- device FH-1/unit 1", "+ device FH-1/unit 1"]);
});

test("settings sections by key; server.port only at a restart; a Modbus server's port is its own change", () => {
  const after = site();
  after.server = { port: 9000, public_url: "https://box.example" };
  after.webhooks = { timeout_s: 5 };
  at(after, "gateways", 1).modbus_server = { port: 5021 };
  const diff = diffConfigs(configOf(site()), configOf(after));
  expect(diff.changes.map(describeChange)).toEqual([
    "~ server (public_url)",
    "~ webhooks (timeout_ms)",
    "~ modbus_server FH-2 (port)",
  ]);
  expect(diff.needRestart).toEqual(["server.port"]);
  expect(diff.modbusServers.changed).toHaveLength(1);
  expect(diff.gateways.changed).toEqual([]);
  expect(diff.sections).toMatchObject({ webhooks: true, inventory: false, rules: false, mqtt: false });
});

test("a snapshot keeps the uplink token and MQTT password as hashes only, and still tells a changed one", () => {
  const token = `fhe_${"a".repeat(64)}`;
  const withSecrets = (edgeToken: string): Yamlish => ({
    ...site(),
    uplink: { url: "https://central.example", token: edgeToken },
    mqtt: { url: "mqtt://127.0.0.1", username: "box", password: "broker-pass-1" },
  });
  const snapshot = configSnapshot(configOf(withSecrets(token)));
  const recorded = JSON.stringify(snapshot);
  expect(recorded).not.toContain(token);
  expect(recorded).not.toContain("broker-pass-1");
  expect(diffConfigs(snapshot, configOf(withSecrets(token))).changes).toEqual([]);
  expect(lines(withSecrets(token), withSecrets(`fhe_${"b".repeat(64)}`))).toEqual(["~ uplink (token)"]);
});
