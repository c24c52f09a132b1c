import { describe, expect, test } from "bun:test";
import { exampleConfigYaml, type PollingGateway } from "../../src/config/index.ts";
import { stableUuid } from "../../src/lib/ids.ts";
import { at, configOf, expectOnlyProblem, minimalFile, problemsOf } from "./helpers.ts";

const threeBuses = `
organizations: [{ key: acme, name: Acme }]
gateways:
  - serial: TCP-1
    name: Greenhouse
    heartbeat_s: 60
    storage_interval_s: 600
    bus: { type: tcp }
    devices:
      - name: Climate
        host: 10.0.0.5
        slave_id: 1
        poll_interval_ms: 5000
        timeout_ms: 250
        retries: 3
        max_registers_per_request: 60
        max_gap: 0
        pause_ms: 10
        storage_interval_s: 60
        registers:
          - { name: temperature, address: 0, function_code: 4, data_type: int16, scale_factor: 0.1 }
          - { name: alarm, address: 7, data_type: bool, bit: 5 }
          - { name: label, address: 20, data_type: string, length: 4, byte_order: BADC }
      - host: 10.0.0.6
        port: 5020
        slave_id: 0
  - serial: RTU-1
    name: Boiler room
    bus: { type: rtu, path: /dev/ttyUSB0, baud: 19200, parity: even }
    devices:
      - name: Pump
        slave_id: 3
        registers:
          - { name: running, address: 10, function_code: 1, data_type: bool }
          - { name: energy, address: 100, data_type: uint32, byte_order: CDAB }
  - serial: RTU-TCP-1
    name: Office
    bus: { type: rtu_over_tcp, host: 10.0.0.20, port: 4001 }
    devices:
      - slave_id: 7
        template: { brand: Siemens, model: RDF302 }
        exclude: [x1_temperature, x2_temperature, outside_temperature, window_state, heating_cooling,
                  electric_heater_output, fan_operation, fan_output, heating_output, cooling_output, operating_mode]
`;

describe("polling", () => {
  const config = configOf(threeBuses);

  test("one entry per gateway in file order, for TCP, RTU and RTU-over-TCP buses", () => {
    const reg = (serial: string, device: string, name: string) => stableUuid("register", serial, device, name);
    const expected: PollingGateway[] = [
      {
        id: stableUuid("gateway", "TCP-1"),
        serial: "TCP-1",
        name: "Greenhouse",
        bus: { type: "tcp" },
        heartbeatMs: 60_000,
        devices: [
          {
            id: stableUuid("modbus-device", "TCP-1", "Climate"),
            name: "Climate",
            slaveId: 1,
            host: "10.0.0.5",
            port: 502,
            pollIntervalMs: 5000,
            timeoutMs: 250,
            retries: 3,
            maxRegistersPerRequest: 60,
            maxGap: 0,
            pauseMs: 10,
            storageIntervalMs: 60_000,
            registers: [
              {
                id: reg("TCP-1", "Climate", "temperature"),
                name: "temperature",
                functionCode: 4,
                address: 0,
                dataType: "int16",
                byteOrder: "ABCD",
                bit: null,
                length: null,
              },
              {
                id: reg("TCP-1", "Climate", "alarm"),
                name: "alarm",
                functionCode: 3,
                address: 7,
                dataType: "bool",
                byteOrder: "ABCD",
                bit: 5,
                length: null,
              },
              {
                id: reg("TCP-1", "Climate", "label"),
                name: "label",
                functionCode: 3,
                address: 20,
                dataType: "string",
                byteOrder: "BADC",
                bit: null,
                length: 4,
              },
            ],
          },
          {
            id: stableUuid("modbus-device", "TCP-1", "10.0.0.6:5020/0"),
            name: null,
            slaveId: 0,
            host: "10.0.0.6",
            port: 5020,
            pollIntervalMs: 60_000,
            timeoutMs: 1000,
            retries: 1,
            maxRegistersPerRequest: 125,
            maxGap: 8,
            pauseMs: 0,
            // The gateway's storage interval.
            storageIntervalMs: 600_000,
            registers: [],
          },
        ],
      },
      {
        id: stableUuid("gateway", "RTU-1"),
        serial: "RTU-1",
        name: "Boiler room",
        bus: { type: "rtu", path: "/dev/ttyUSB0", baud: 19200, dataBits: 8, parity: "even", stopBits: 1 },
        heartbeatMs: 300_000,
        devices: [
          {
            id: stableUuid("modbus-device", "RTU-1", "Pump"),
            name: "Pump",
            slaveId: 3,
            host: null,
            port: null,
            pollIntervalMs: 60_000,
            timeoutMs: 1000,
            retries: 1,
            maxRegistersPerRequest: 125,
            maxGap: 8,
            pauseMs: 0,
            storageIntervalMs: 300_000,
            registers: [
              {
                id: reg("RTU-1", "Pump", "running"),
                name: "running",
                functionCode: 1,
                address: 10,
                dataType: "bool",
                byteOrder: "ABCD",
                bit: null,
                length: null,
              },
              {
                id: reg("RTU-1", "Pump", "energy"),
                name: "energy",
                functionCode: 3,
                address: 100,
                dataType: "uint32",
                byteOrder: "CDAB",
                bit: null,
                length: null,
              },
            ],
          },
        ],
      },
      {
        id: stableUuid("gateway", "RTU-TCP-1"),
        serial: "RTU-TCP-1",
        name: "Office",
        bus: { type: "rtu_over_tcp", host: "10.0.0.20", port: 4001 },
        heartbeatMs: 300_000,
        devices: [
          {
            id: stableUuid("modbus-device", "RTU-TCP-1", ":/7"),
            name: null,
            slaveId: 7,
            host: null,
            port: null,
            // The template's suggestion.
            pollIntervalMs: 30_000,
            timeoutMs: 1000,
            retries: 1,
            maxRegistersPerRequest: 125,
            maxGap: 8,
            pauseMs: 0,
            storageIntervalMs: 300_000,
            registers: [
              {
                id: reg("RTU-TCP-1", ":/7", "room_temperature"),
                name: "room_temperature",
                functionCode: 4,
                address: 1002,
                dataType: "int16",
                byteOrder: "ABCD",
                bit: null,
                length: null,
                // The template documents 0xffff (-1 as int16) as "out of service".
                notImplemented: -1,
              },
              {
                id: reg("RTU-TCP-1", ":/7", "current_setpoint"),
                name: "current_setpoint",
                functionCode: 4,
                address: 1003,
                dataType: "int16",
                byteOrder: "ABCD",
                bit: null,
                length: null,
              },
              {
                id: reg("RTU-TCP-1", ":/7", "comfort_setpoint"),
                name: "comfort_setpoint",
                functionCode: 3,
                address: 102,
                dataType: "int16",
                byteOrder: "ABCD",
                bit: null,
                length: null,
                // The template documents it writable, 5..40 °C; default write function 6.
                write: { functionCode: 6, min: 5, max: 40, scaleFactor: 0.02 },
              },
            ],
          },
        ],
      },
    ];
    expect(config.polling).toEqual(expected);
  });

  test("the bus objects are the ones in buses", () => {
    expect(config.polling.map((g) => [g.serial, g.bus])).toEqual([...config.buses]);
  });

  test("gateway, device and register ids equal the inventory's", () => {
    for (const yaml of [threeBuses, exampleConfigYaml]) {
      const { inventory, polling } = configOf(yaml);
      const gateways = new Map(
        inventory.organizations.flatMap((org) => org.gateways).map((gateway) => [gateway.serial, gateway]),
      );
      for (const gateway of polling) {
        const inInventory = gateways.get(gateway.serial);
        expect(gateway.id).toBe(inInventory?.id as string);
        expect(gateway.heartbeatMs).toBe(inInventory?.heartbeatMs as number);
        expect(gateway.devices.map((d) => d.id)).toEqual(inInventory?.modbusDevices.map((d) => d.id) ?? []);
        gateway.devices.forEach((device, i) => {
          const devices = inInventory?.modbusDevices[i];
          expect(device.registers.map((r) => r.id)).toEqual(devices?.registers.map((r) => r.id) ?? []);
          expect(device.pollIntervalMs).toBe(devices?.pollIntervalMs as number);
          const shape = (r: { address: number; functionCode: number | null; dataType: string }) =>
            `${r.functionCode}/${r.address}/${r.dataType}`;
          expect(device.registers.map(shape)).toEqual(devices?.registers.map(shape) ?? []);
        });
      }
    }
  });
});

describe("device polling fields", () => {
  const device = (file: Record<string, unknown>) => at(file, "gateways", 0, "devices", 0);

  test("defaults", () => {
    expect(configOf(minimalFile()).polling[0]?.devices[0]).toMatchObject({
      pollIntervalMs: 60_000,
      timeoutMs: 1000,
      retries: 1,
      maxRegistersPerRequest: 125,
      maxGap: 8,
      pauseMs: 0,
      storageIntervalMs: 300_000,
    });
  });

  test("the device's storage interval defaults to its gateway's", () => {
    const file = minimalFile();
    at(file, "gateways", 0).storage_interval_s = 900;
    expect(configOf(file).polling[0]?.devices[0]?.storageIntervalMs).toBe(900_000);
    device(file).storage_interval_s = 60;
    expect(configOf(file).polling[0]?.devices[0]?.storageIntervalMs).toBe(60_000);
  });

  test.each([
    ["timeout_ms", 49, "must be between 50 and 60000; got 49"],
    ["timeout_ms", 60_001, "must be between 50 and 60000; got 60001"],
    ["retries", -1, "must be between 0 and 5; got -1"],
    ["retries", 6, "must be between 0 and 5; got 6"],
    ["max_registers_per_request", 0, "must be between 1 and 125; got 0"],
    ["max_registers_per_request", 126, "must be between 1 and 125; got 126"],
    ["max_gap", -1, "must be between 0 and 125; got -1"],
    ["max_gap", 126, "must be between 0 and 125; got 126"],
    ["pause_ms", -1, "must be between 0 and 10000; got -1"],
    ["pause_ms", 10_001, "must be between 0 and 10000; got 10001"],
    ["storage_interval_s", 59, "must be between 60 and 86400; got 59"],
    ["storage_interval_s", 86_401, "must be between 60 and 86400; got 86401"],
    ["timeout_ms", 1.5, "must be a whole number; got 1.5"],
  ])("devices[].%s = %p", (field, value, message) => {
    const file = minimalFile();
    device(file)[field] = value;
    expectOnlyProblem(file, `gateways[0].devices[0].${field}`, message);
  });

  test("the edges of each range are accepted", () => {
    const file = minimalFile();
    Object.assign(device(file), {
      timeout_ms: 50,
      retries: 0,
      max_registers_per_request: 125,
      max_gap: 125,
      pause_ms: 10_000,
      storage_interval_s: 86_400,
    });
    expect(configOf(file).polling[0]?.devices[0]).toMatchObject({
      timeoutMs: 50,
      retries: 0,
      maxRegistersPerRequest: 125,
      maxGap: 125,
      pauseMs: 10_000,
      storageIntervalMs: 86_400_000,
    });
  });

  test("gateways[].storage_interval_s is 60..86400", () => {
    const low = minimalFile();
    at(low, "gateways", 0).storage_interval_s = 30;
    expectOnlyProblem(low, "gateways[0].storage_interval_s", "must be between 60 and 86400; got 30");
    const high = minimalFile();
    at(high, "gateways", 0).storage_interval_s = 86_401;
    expect(problemsOf(high)).toEqual([
      { path: "gateways[0].storage_interval_s", message: "must be between 60 and 86400; got 86401" },
    ]);
  });

  test("a register may set its own poll_interval_ms (100..86400000), given to the poller; others have none", () => {
    const file = minimalFile();
    device(file).registers = [
      { name: "power", address: 0, data_type: "int16", poll_interval_ms: 1000 },
      { name: "nameplate", address: 10, data_type: "string", length: 4, poll_interval_ms: 86_400_000 },
      { name: "energy", address: 2, data_type: "uint32" },
    ];
    const registers = configOf(file).polling[0]?.devices[0]?.registers ?? [];
    expect(registers.map((register) => [register.name, register.pollIntervalMs])).toEqual([
      ["power", 1000],
      ["nameplate", 86_400_000],
      ["energy", undefined],
    ]);
    for (const [value, message] of [
      [99, "must be between 100 and 86400000; got 99"],
      [86_400_001, "must be between 100 and 86400000; got 86400001"],
      [1.5, "must be a whole number; got 1.5"],
    ] as const) {
      const refused = minimalFile();
      at(refused, "gateways", 0, "devices", 0, "registers", 0).poll_interval_ms = value;
      expectOnlyProblem(refused, "gateways[0].devices[0].registers[0].poll_interval_ms", message);
    }
  });

  test("a misspelt polling field gets a suggestion", () => {
    const file = minimalFile();
    device(file).timeout = 500;
    expectOnlyProblem(file, "gateways[0].devices[0].timeout", 'unknown field "timeout" (did you mean "timeout_ms"?)');
  });
});
