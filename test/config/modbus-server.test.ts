/**
 * A gateway's `modbus_server` (docs/config.md): defaults, and every problem at its
 * path; `allow` networks with host bits set refused alike for IPv4 and IPv6, through
 * `config check` as a process too.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../harness/cli.ts";
import { at, configOf, expectOnlyProblem, minimalFile, problemsOf, type Yamlish } from "./helpers.ts";

function servedFile(server: Yamlish = { port: 5502 }): Yamlish {
  const file = minimalFile();
  const gateway = at(file, "gateways", 0);
  gateway.modbus_server = server;
  gateway.devices = [
    {
      name: "meter",
      host: "10.0.0.5",
      slave_id: 1,
      poll_interval_ms: 5000,
      registers: [{ name: "t", address: 0, data_type: "int16" }],
    },
    {
      name: "inverter",
      host: "10.0.0.6",
      slave_id: 1,
      server_unit_id: 2,
      registers: [{ name: "p", address: 0, data_type: "int16" }],
    },
  ];
  return file;
}

describe("modbus_server defaults", () => {
  test("host from server.host, max_age_ms from each device's poll interval, writes off, every address, 16 connections", () => {
    const file = servedFile();
    file.server = { host: "192.168.7.2" };
    const [server] = configOf(file).modbusServers;
    expect(server).toMatchObject({
      gatewaySerial: "FH-1",
      host: "192.168.7.2",
      port: 5502,
      writes: false,
      allow: null,
      maxConnections: 16,
    });
    expect(server?.units.map(({ unitId, maxAgeMs }) => ({ unitId, maxAgeMs }))).toEqual([
      { unitId: 1, maxAgeMs: 5000 },
      { unitId: 2, maxAgeMs: 60_000 },
    ]);
  });

  test("what is written is kept; a gateway without modbus_server serves nothing", () => {
    const config = configOf(
      servedFile({
        port: 1502,
        host: "127.0.0.1",
        max_age_ms: 750,
        writes: true,
        allow: ["10.0.0.0/8", "::1"],
        max_connections: 2,
      }),
    );
    const [server] = config.modbusServers;
    expect(server).toMatchObject({ host: "127.0.0.1", port: 1502, writes: true, maxConnections: 2 });
    expect(server?.allow).toEqual([
      { address: "10.0.0.0", prefix: 8, family: "ipv4" },
      { address: "::1", prefix: 128, family: "ipv6" },
    ]);
    expect(server?.units.map((unit) => unit.maxAgeMs)).toEqual([750, 750]);
    expect(configOf(minimalFile()).modbusServers).toEqual([]);
  });
});

describe("modbus_server problems", () => {
  test("port is required", () => {
    expectOnlyProblem(servedFile({ writes: false }), "gateways[0].modbus_server.port", "is required");
  });

  test("two devices with one unit id, written or from slave_id", () => {
    const file = servedFile();
    at(file, "gateways", 0, "devices", 1).server_unit_id = 1;
    expectOnlyProblem(
      file,
      "gateways[0].devices[1].server_unit_id",
      "unit id 1 is also gateways[0].devices[0]'s; each device of a gateway with modbus_server needs its own server_unit_id",
    );
    delete at(file, "gateways", 0, "devices", 1).server_unit_id;
    expectOnlyProblem(file, "gateways[0].devices[1].server_unit_id", /^unit id 1 \(its slave_id\) is also/);
  });

  test("the same slave_id behind two hosts is fine without a server", () => {
    const file = servedFile();
    delete at(file, "gateways", 0).modbus_server;
    delete at(file, "gateways", 0, "devices", 1).server_unit_id;
    expect(configOf(file).modbusServers).toEqual([]);
  });

  test("a port used twice, the HTTP server's included", () => {
    const file = servedFile({ port: 8080 });
    expectOnlyProblem(file, "gateways[0].modbus_server.port", "port 8080 is already used by server.port");
    const two = servedFile({ port: 5502 });
    const second = structuredClone(at(two, "gateways", 0));
    second.serial = "FH-2";
    (two.gateways as Yamlish[]).push(second);
    expectOnlyProblem(
      two,
      "gateways[1].modbus_server.port",
      "port 5502 is already used by gateways[0].modbus_server.port",
    );
  });

  test("writes without allow", () => {
    expectOnlyProblem(servedFile({ port: 5502, writes: true }), "gateways[0].modbus_server.writes", /^needs allow/);
  });

  test("bad networks, each at its place", () => {
    const problems = problemsOf(
      servedFile({ port: 5502, allow: ["10.0.0.0/8", "10.0.0.300/8", "10.0.0.0/33", "10.1.2.3/8", "lan"] }),
    );
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual([
      [
        "gateways[0].modbus_server.allow[1]",
        'must be an IPv4 or IPv6 network as address/prefix, such as 10.0.0.0/8, 192.168.1.20/32 or fd00::/64; got "10.0.0.300/8"',
      ],
      ["gateways[0].modbus_server.allow[2]", 'has prefix "33"; an IPv4 prefix is 0..32'],
      [
        "gateways[0].modbus_server.allow[3]",
        "has host bits set: 10.1.2.3/8 is not a network (did you mean 10.0.0.0/8, or 10.1.2.3/32?)",
      ],
      [
        "gateways[0].modbus_server.allow[4]",
        'must be an IPv4 or IPv6 network as address/prefix, such as 10.0.0.0/8, 192.168.1.20/32 or fd00::/64; got "lan"',
      ],
    ]);
  });

  test("host bits set are refused for IPv6 as for IPv4, naming the network and the host; networks and hosts of both families pass", () => {
    const allow = ["fd00::1/64", "2001:db8::8000/112", "::ffff:10.0.0.1/120", "fe80::1%eth0/64", "fd00::/64"];
    const problems = problemsOf(servedFile({ port: 5502, allow: [...allow, "2001:DB8::8000/113", "::1", "::/0"] }));
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual([
      [
        "gateways[0].modbus_server.allow[0]",
        "has host bits set: fd00::1/64 is not a network (did you mean fd00::/64, or fd00::1/128?)",
      ],
      [
        "gateways[0].modbus_server.allow[1]",
        "has host bits set: 2001:db8::8000/112 is not a network (did you mean 2001:db8::/112, or 2001:db8::8000/128?)",
      ],
      [
        "gateways[0].modbus_server.allow[2]",
        "has host bits set: ::ffff:10.0.0.1/120 is not a network (did you mean ::ffff:a00:0/120, or ::ffff:10.0.0.1/128?)",
      ],
      [
        "gateways[0].modbus_server.allow[3]",
        'must be an IPv4 or IPv6 network as address/prefix, such as 10.0.0.0/8, 192.168.1.20/32 or fd00::/64; got "fe80::1%eth0/64"',
      ],
    ]);
  });

  test("config check, as a process: each network with host bits set at its path and line, exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fieldhub-allow-"));
    try {
      const file = join(dir, "fieldhub.yaml");
      writeFileSync(
        file,
        [
          "organizations: [{ key: plant, name: Plant }]",
          "gateways:",
          "  - serial: GW-1",
          "    name: Plant gateway",
          "    bus: { type: tcp }",
          "    modbus_server:",
          "      port: 5502",
          "      writes: true",
          '      allow: ["10.0.0.0/8", "10.0.0.5/8", "fd00::/64", "fd00::1/64", "::1"]',
          "    devices:",
          "      - { name: meter, host: 10.0.0.5, slave_id: 1, registers: [{ name: t, address: 0, data_type: int16 }] }",
          "",
        ].join("\n"),
      );
      const result = await runCli(["config", "check", file]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${file}: 2 problems`);
      expect(result.stderr).toContain(
        "gateways[0].modbus_server.allow[1]: has host bits set: 10.0.0.5/8 is not a network (did you mean 10.0.0.0/8, or 10.0.0.5/32?)",
      );
      expect(result.stderr).toContain(
        "gateways[0].modbus_server.allow[3]: has host bits set: fd00::1/64 is not a network (did you mean fd00::/64, or fd00::1/128?)",
      );
      expect(result.stderr).toMatch(new RegExp(`${file}:9:\\d+ .*modbus_server\\.allow\\[3\\]`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("unknown fields and ranges are the schema's", () => {
    expectOnlyProblem(
      servedFile({ port: 5502, max_conections: 3 }),
      "gateways[0].modbus_server.max_conections",
      /unknown field/,
    );
    expectOnlyProblem(
      servedFile({ port: 5502, max_connections: 0 }),
      "gateways[0].modbus_server.max_connections",
      /between 1 and 1024/,
    );
    const file = servedFile();
    at(file, "gateways", 0, "devices", 1).server_unit_id = 256;
    expectOnlyProblem(file, "gateways[0].devices[1].server_unit_id", /between 0 and 255/);
  });
});
