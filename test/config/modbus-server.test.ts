/** A gateway's `modbus_server` (docs/config.md): defaults, and every problem at its path. */
import { describe, expect, test } from "bun:test";
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
        'must be an IPv4 or IPv6 network as address/prefix, such as 10.0.0.0/8 or 192.168.1.20/32; got "10.0.0.300/8"',
      ],
      ["gateways[0].modbus_server.allow[2]", 'has prefix "33"; an IPv4 prefix is 0..32'],
      [
        "gateways[0].modbus_server.allow[3]",
        "has host bits set: 10.1.2.3/8 is not a network (did you mean 10.0.0.0/8, or 10.1.2.3/32?)",
      ],
      [
        "gateways[0].modbus_server.allow[4]",
        'must be an IPv4 or IPv6 network as address/prefix, such as 10.0.0.0/8 or 192.168.1.20/32; got "lan"',
      ],
    ]);
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
