/** The `mqtt` section and a register's deadband (docs/config.md, "mqtt"): defaults, and each mistake with its path. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { at, configOf, expectOnlyProblem, minimalFile, problemsOf } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "fieldhub-mqtt-config-"));
const passwordFile = join(dir, "mqtt.pass");
writeFileSync(passwordFile, "broker-pass\nignored second line\n", { mode: 0o600 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function withMqtt(mqtt: Record<string, unknown>) {
  return { ...minimalFile(), mqtt };
}

describe("mqtt section", () => {
  test("defaults: client id from the first gateway, prefix fieldhub, QoS 1, 300 s; the password read from its file", () => {
    const file = withMqtt({ url: "mqtt://broker.local:1883", username: "fieldhub", password_file: passwordFile });
    at(file, "gateways", 0, "devices", 0, "registers", 0).deadband = 0.5;
    const mqtt = configOf(file).mqtt;
    expect(mqtt).toMatchObject({
      url: "mqtt://broker.local:1883",
      username: "fieldhub",
      password: "broker-pass",
      caFile: null,
      clientId: "fieldhub-FH-1",
      topicPrefix: "fieldhub",
      qos: 1,
      maxIntervalMs: 300_000,
      homeAssistant: null,
      sparkplug: null,
    });
    expect([...(mqtt?.deadbands.values() ?? [])]).toEqual([0.5]);
    expect(configOf(minimalFile()).mqtt).toBeNull();
  });

  test("a URL that is not mqtt:// or mqtts://, or that carries a password", () => {
    for (const url of ["http://broker.local", "broker.local:1883", "mqtt://"]) {
      expectOnlyProblem(
        withMqtt({ url }),
        "mqtt.url",
        /^must be mqtt:\/\/host\[:port\] or mqtts:\/\/host\[:port\] \(TLS\); got /,
      );
    }
    const problems = problemsOf(withMqtt({ url: "mqtt://user:hunter2@broker.local" }));
    expect(problems).toEqual([
      { path: "mqtt.url", message: "must not carry a user name or password; use mqtt.username and mqtt.password_file" },
    ]);
    expect(JSON.stringify(problems)).not.toContain("hunter2");
  });

  test("a missing password file, two passwords, a password without a user name", () => {
    const missing = join(dir, "absent.pass");
    expectOnlyProblem(
      withMqtt({ url: "mqtt://b", username: "u", password_file: missing }),
      "mqtt.password_file",
      `${missing} does not exist`,
    );
    expectOnlyProblem(
      withMqtt({ url: "mqtt://b", username: "u", password_file: passwordFile, password: "x" }),
      "mqtt.password",
      "give the password once: password or password_file, not both",
    );
    expectOnlyProblem(
      withMqtt({ url: "mqtt://b", password_file: passwordFile }),
      "mqtt.username",
      "is required with a password (MQTT sends a password only with a user name)",
    );
    const empty = join(dir, "empty.pass");
    writeFileSync(empty, "\n");
    expectOnlyProblem(
      withMqtt({ url: "mqtt://b", username: "u", password_file: empty }),
      "mqtt.password_file",
      `${empty} is empty; its first line is the password`,
    );
  });

  test("an inline password is never repeated back", () => {
    const problems = problemsOf(withMqtt({ url: "mqtt://b", username: "u", password: 12345678 }));
    expect(problems.map((problem) => problem.path)).toEqual(["mqtt.password"]);
    expect(JSON.stringify(problems)).not.toContain("12345678");
  });

  test("QoS, prefix, interval and deadband out of range", () => {
    expect(problemsOf(withMqtt({ url: "mqtt://b", qos: 2 })).map((p) => p.path)).toEqual(["mqtt.qos"]);
    expect(problemsOf(withMqtt({ url: "mqtt://b", topic_prefix: "a/#" })).map((p) => p.path)).toEqual([
      "mqtt.topic_prefix",
    ]);
    expect(problemsOf(withMqtt({ url: "mqtt://b", max_interval_s: 0 })).map((p) => p.path)).toEqual([
      "mqtt.max_interval_s",
    ]);
    const file = minimalFile();
    at(file, "gateways", 0, "devices", 0, "registers", 0).deadband = -1;
    expect(problemsOf(file).map((p) => p.path)).toEqual(["gateways[0].devices[0].registers[0].deadband"]);
  });

  test("sparkplug: its group and edge node ids, each one topic level", () => {
    const sparkplug = { group_id: "plant", edge_node_id: "site-1" };
    expect(configOf(withMqtt({ url: "mqtt://b", sparkplug })).mqtt?.sparkplug).toEqual({
      groupId: "plant",
      edgeNodeId: "site-1",
    });
    expect(
      problemsOf(withMqtt({ url: "mqtt://b", sparkplug: { group_id: "a/b", edge_node_id: "n+" } })).map((p) => p.path),
    ).toEqual(["mqtt.sparkplug.group_id", "mqtt.sparkplug.edge_node_id"]);
    expect(problemsOf(withMqtt({ url: "mqtt://b", sparkplug: { group_id: "plant" } })).map((p) => p.path)).toEqual([
      "mqtt.sparkplug.edge_node_id",
    ]);
  });
});
