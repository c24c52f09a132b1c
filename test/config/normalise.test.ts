import { describe, expect, test } from "bun:test";
import { parseDocument } from "yaml";
import { stableUuid } from "../../src/lib/ids.ts";
import type { Inventory } from "../../src/lib/inventory.ts";
import { at, configOf, minimalFile, toYaml } from "./helpers.ts";

const explicitRegisterId = "0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40";

const fullFile = `
server:
  host: 127.0.0.1
  port: 9090
  public_url: https://fieldhub.example.com/base
retention:
  readings_days: 30
api:
  rate_limit_per_minute: 500
organizations:
  - key: acme
    name: Acme Greenhouses
    customers:
      - key: north
        name: North site
        city: Venlo
      - key: south
        name: South site
  - key: beta
    name: Beta Farms
gateways:
  - serial: FH-0001
    name: Greenhouse 1
    organization: acme
    customer: north
    heartbeat_s: 60
    firmware_ver: "1.2.3"
    ip_eth: 10.0.0.2
    ip_wifi: 192.168.1.2
    ip_4g: 100.64.0.2
    signal_4g: -71
    bus: { type: tcp }
    devices:
      - name: Climate computer
        host: 10.0.0.5
        slave_id: 1
        poll_interval_ms: 30000
        registers:
          - name: temperature
            id: ${explicitRegisterId.toUpperCase()}
            address: 0
            function_code: 3
            data_type: int16
            unit: "°C"
            scale_factor: 0.1
            writable: true
            min: -20
            max: 50
            description: Air temperature
      - host: 10.0.0.6
        port: 5020
        slave_id: 0
  - serial: FH-0002
    name: Boiler room
    organization: beta
    bus:
      type: rtu
      path: /dev/ttyUSB0
    devices:
      - slave_id: 3
  - serial: FH-0003
    name: Greenhouse 2
    organization: acme
    bus: { type: rtu_over_tcp, host: 10.0.0.9, port: 4001 }
`;

describe("a full valid file", () => {
  const config = configOf(fullFile);

  test("keeps the server, retention and api settings", () => {
    expect(config.server).toEqual({
      host: "127.0.0.1",
      port: 9090,
      publicUrl: "https://fieldhub.example.com/base",
    });
    expect(config.retention).toEqual({ readingsDays: 30 });
    expect(config.api).toEqual({ rateLimitPerMinute: 500 });
  });

  test("normalises into the expected inventory, gateways grouped under their organisation", () => {
    const climateKey = "Climate computer";
    const meterKey = "10.0.0.6:5020/0";
    const expected: Inventory = {
      organizations: [
        {
          id: stableUuid("organization", "acme"),
          key: "acme",
          name: "Acme Greenhouses",
          writesEnabled: false,
          customers: [
            {
              id: stableUuid("customer", "acme", "north"),
              key: "north",
              name: "North site",
              city: "Venlo",
            },
            {
              id: stableUuid("customer", "acme", "south"),
              key: "south",
              name: "South site",
              city: null,
            },
          ],
          gateways: [
            {
              id: stableUuid("gateway", "FH-0001"),
              serial: "FH-0001",
              name: "Greenhouse 1",
              customer: "north",
              heartbeatMs: 60_000,
              firmwareVer: "1.2.3",
              ipEth: "10.0.0.2",
              ipWifi: "192.168.1.2",
              ip4g: "100.64.0.2",
              signal4g: -71,
              modbusDevices: [
                {
                  id: stableUuid("modbus-device", "FH-0001", climateKey),
                  name: "Climate computer",
                  slaveId: 1,
                  protocol: "tcp",
                  ipAddress: "10.0.0.5",
                  port: 502,
                  pollIntervalMs: 30_000,
                  storageIntervalMs: 300_000,
                  template: null,
                  registers: [
                    {
                      id: explicitRegisterId,
                      name: "temperature",
                      address: 0,
                      functionCode: 3,
                      dataType: "int16",
                      unit: "°C",
                      scaleFactor: 0.1,
                      isWritable: true,
                      writeMin: -20,
                      writeMax: 50,
                      description: "Air temperature",
                    },
                  ],
                },
                {
                  id: stableUuid("modbus-device", "FH-0001", meterKey),
                  name: null,
                  slaveId: 0,
                  protocol: "tcp",
                  ipAddress: "10.0.0.6",
                  port: 5020,
                  pollIntervalMs: 60_000,
                  storageIntervalMs: 300_000,
                  template: null,
                  registers: [],
                },
              ],
            },
            {
              id: stableUuid("gateway", "FH-0003"),
              serial: "FH-0003",
              name: "Greenhouse 2",
              customer: null,
              heartbeatMs: 300_000,
              firmwareVer: null,
              ipEth: null,
              ipWifi: null,
              ip4g: null,
              signal4g: null,
              modbusDevices: [],
            },
          ],
        },
        {
          id: stableUuid("organization", "beta"),
          key: "beta",
          name: "Beta Farms",
          writesEnabled: false,
          customers: [],
          gateways: [
            {
              id: stableUuid("gateway", "FH-0002"),
              serial: "FH-0002",
              name: "Boiler room",
              customer: null,
              heartbeatMs: 300_000,
              firmwareVer: null,
              ipEth: null,
              ipWifi: null,
              ip4g: null,
              signal4g: null,
              modbusDevices: [
                {
                  id: stableUuid("modbus-device", "FH-0002", ":/3"),
                  name: null,
                  slaveId: 3,
                  protocol: "rtu",
                  ipAddress: null,
                  port: null,
                  pollIntervalMs: 60_000,
                  storageIntervalMs: 300_000,
                  template: null,
                  registers: [],
                },
              ],
            },
          ],
        },
      ],
    };
    expect(config.inventory).toEqual(expected);
  });

  test("keeps every gateway's bus settings, with defaults, by serial in file order", () => {
    expect([...config.buses]).toEqual([
      ["FH-0001", { type: "tcp" }],
      [
        "FH-0002",
        {
          type: "rtu",
          path: "/dev/ttyUSB0",
          baud: 9600,
          dataBits: 8,
          parity: "none",
          stopBits: 1,
        },
      ],
      ["FH-0003", { type: "rtu_over_tcp", host: "10.0.0.9", port: 4001 }],
    ]);
  });
});

describe("stable ids", () => {
  function allIds(inventory: Inventory): Record<string, string> {
    const ids: Record<string, string> = {};
    for (const org of inventory.organizations) {
      ids[`org ${org.key}`] = org.id;
      for (const customer of org.customers) ids[`customer ${org.key}/${customer.key}`] = customer.id;
      for (const gateway of org.gateways) {
        ids[`gateway ${gateway.serial}`] = gateway.id;
        for (const device of gateway.modbusDevices) {
          const deviceKey = `${gateway.serial}/${device.name ?? `${device.ipAddress}:${device.port}/${device.slaveId}`}`;
          ids[`device ${deviceKey}`] = device.id;
          for (const register of device.registers) ids[`register ${deviceKey}/${register.name}`] = register.id;
        }
      }
    }
    return ids;
  }

  test("the same file gives the same ids every time", () => {
    expect(allIds(configOf(fullFile).inventory)).toEqual(allIds(configOf(fullFile).inventory));
  });

  test("reordering gateways, devices and registers keeps every id", () => {
    const doc = parseDocument(fullFile);
    const reordered = doc.toJS() as { gateways: { devices?: unknown[] }[] };
    reordered.gateways.reverse();
    for (const gateway of reordered.gateways) gateway.devices?.reverse();
    expect(allIds(configOf(toYaml(reordered)).inventory)).toEqual(allIds(configOf(fullFile).inventory));
  });

  test("an explicit id is kept (in lower case)", () => {
    const register = configOf(fullFile).inventory.organizations[0]?.gateways[0]?.modbusDevices[0]?.registers[0];
    expect(register?.id).toBe(explicitRegisterId);
  });

  test("writing the default port or leaving it out gives the same device id", () => {
    const withPort = minimalFile();
    at(withPort, "gateways", 0, "devices", 0).port = 502;
    const deviceId = (file: Record<string, unknown>) =>
      configOf(file).inventory.organizations[0]?.gateways[0]?.modbusDevices[0]?.id;
    expect(deviceId(withPort)).toBe(deviceId(minimalFile()) as string);
    expect(deviceId(minimalFile())).toBe(stableUuid("modbus-device", "FH-1", "10.0.0.5:502/1"));
  });

  test("renaming a gateway keeps its id; changing its serial does not", () => {
    const renamed = minimalFile();
    at(renamed, "gateways", 0).name = "Another name";
    const gatewayId = (file: Record<string, unknown>) => configOf(file).inventory.organizations[0]?.gateways[0]?.id;
    expect(gatewayId(renamed)).toBe(gatewayId(minimalFile()) as string);
    const reserialled = minimalFile();
    at(reserialled, "gateways", 0).serial = "FH-2";
    expect(gatewayId(reserialled)).not.toBe(gatewayId(minimalFile()) as string);
  });
});

describe("defaults", () => {
  test("a file with only organisations gets every default", () => {
    const config = configOf({ organizations: [{ key: "acme", name: "Acme" }] });
    expect(config.server).toEqual({
      host: "0.0.0.0",
      port: 8080,
      publicUrl: null,
    });
    expect(config.retention).toEqual({ readingsDays: 365 });
    expect(config.api).toEqual({ rateLimitPerMinute: 100 });
    expect(config.inventory.organizations).toEqual([
      {
        id: stableUuid("organization", "acme"),
        key: "acme",
        name: "Acme",
        writesEnabled: false,
        customers: [],
        gateways: [],
      },
    ]);
    expect(config.buses.size).toBe(0);
  });

  test("gateway, device and register defaults; the only organisation is the gateway's", () => {
    const config = configOf(minimalFile());
    const gateway = config.inventory.organizations[0]?.gateways[0];
    expect(gateway?.heartbeatMs).toBe(300_000);
    expect(gateway?.customer).toBeNull();
    const device = gateway?.modbusDevices[0];
    expect(device).toMatchObject({
      name: null,
      port: 502,
      pollIntervalMs: 60_000,
      storageIntervalMs: 300_000,
      template: null,
      protocol: "tcp",
    });
    expect(device?.registers[0]).toMatchObject({
      functionCode: 3,
      unit: null,
      scaleFactor: null,
      isWritable: false,
      writeMin: null,
      writeMax: null,
      description: null,
    });
  });

  test("keys written with no value count as left out", () => {
    const config = configOf(`
server:
retention:
organizations:
  - key: acme
    name: Acme
    customers:
gateways:
`);
    expect(config.server.port).toBe(8080);
    expect(config.inventory.organizations[0]?.customers).toEqual([]);
  });

  test("top-level x- keys are ignored, so they can hold anchors for merges", () => {
    const config = configOf(`
x-meter: &meter
  poll_interval_ms: 5000
  registers:
    - { name: power, address: 0, data_type: float32 }
organizations: [{ key: acme, name: Acme }]
gateways:
  - serial: G
    name: G
    bus: { type: rtu, path: /dev/ttyUSB0 }
    devices:
      - { <<: *meter, name: Meter 1, slave_id: 1 }
      - { <<: *meter, name: Meter 2, slave_id: 2 }
`);
    const devices = config.inventory.organizations[0]?.gateways[0]?.modbusDevices ?? [];
    expect(devices.map((d) => [d.name, d.pollIntervalMs, d.registers.map((r) => r.name)])).toEqual([
      ["Meter 1", 5000, ["power"]],
      ["Meter 2", 5000, ["power"]],
    ]);
    expect(devices[0]?.registers[0]?.id).not.toBe(devices[1]?.registers[0]?.id as string);
  });

  test("rtu_over_tcp port defaults to 502 and its devices are rtu without address", () => {
    const config = configOf({
      organizations: [{ key: "acme", name: "Acme" }],
      gateways: [
        {
          serial: "G",
          name: "G",
          bus: { type: "rtu_over_tcp", host: "conv" },
          devices: [{ slave_id: 7 }],
        },
      ],
    });
    expect(config.buses.get("G")).toEqual({
      type: "rtu_over_tcp",
      host: "conv",
      port: 502,
    });
    expect(config.inventory.organizations[0]?.gateways[0]?.modbusDevices[0]).toMatchObject({
      protocol: "rtu",
      ipAddress: null,
      port: null,
      slaveId: 7,
    });
  });
});
