/** A small inventory for the domain tests: two organisations, customers, gateways, devices (one with a template) and registers. */
import type { Inventory, InventoryGateway, InventoryRegister } from "../../../src/lib/inventory.ts";

const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

export const ids = {
  acme: id(0x1),
  beta: id(0x2),
  customer: id(0x10),
  gatewayA: id(0x100),
  gatewayB: id(0x101),
  gatewayC: id(0x102),
  deviceA1: id(0x200),
  deviceA2: id(0x201),
  deviceB1: id(0x202),
  deviceC1: id(0x203),
  template: id(0x300),
  register: (n: number) => id(0x1000 + n),
};

function register(n: number, writable = false): InventoryRegister {
  return {
    id: ids.register(n),
    name: `r${n}`,
    address: 100 + n,
    functionCode: 3,
    dataType: "uint16",
    unit: n % 2 === 0 ? "V" : null,
    scaleFactor: n % 2 === 0 ? 0.1 : null,
    isWritable: writable,
    writeMin: writable ? 0 : null,
    writeMax: writable ? 50 : null,
    description: null,
  };
}

function gateway(uuid: string, serial: string, name: string, customer: string | null): InventoryGateway {
  return {
    id: uuid,
    serial,
    name,
    customer,
    heartbeatMs: 60_000,
    firmwareVer: "1.2.3",
    ipEth: "10.0.0.2",
    ipWifi: null,
    ip4g: null,
    signal4g: null,
    modbusDevices: [],
  };
}

/** The inventory; `without` leaves gateways or organisations out (as a config that dropped them). */
export function inventory(without: { gateways?: string[]; organizations?: string[] } = {}): Inventory {
  const a = gateway(ids.gatewayA, "SN-A", "Alpha", "north");
  a.modbusDevices = [
    {
      id: ids.deviceA1,
      name: "meter",
      slaveId: 1,
      protocol: "tcp",
      ipAddress: "10.0.0.9",
      port: 502,
      pollIntervalMs: 1000,
      storageIntervalMs: 60_000,
      template: { id: ids.template, brand: "Acme", model: "M1" },
      registers: [register(2), register(1, true), register(3)],
    },
    {
      id: ids.deviceA2,
      name: null,
      slaveId: 2,
      protocol: "rtu",
      ipAddress: null,
      port: null,
      pollIntervalMs: null,
      template: null,
      registers: [register(4)],
    },
  ];
  const b = gateway(ids.gatewayB, "SN-B", "Bravo", null);
  b.modbusDevices = [
    {
      id: ids.deviceB1,
      name: "pump",
      slaveId: 3,
      protocol: "tcp",
      ipAddress: "10.0.0.10",
      port: 502,
      pollIntervalMs: 5000,
      template: null,
      registers: [register(5)],
    },
  ];
  const c = gateway(ids.gatewayC, "SN-C", "Charlie", null);
  c.modbusDevices = [
    {
      id: ids.deviceC1,
      name: "other",
      slaveId: 1,
      protocol: "tcp",
      ipAddress: "10.0.1.1",
      port: 502,
      pollIntervalMs: 1000,
      template: null,
      registers: [register(6)],
    },
  ];
  const gateways = (list: InventoryGateway[]) => list.filter((g) => !(without.gateways ?? []).includes(g.id));
  const organizations = [
    {
      id: ids.acme,
      key: "acme",
      name: "Acme",
      writesEnabled: true,
      customers: [{ id: ids.customer, key: "north", name: "North Ltd", city: "Oslo" }],
      gateways: gateways([a, b]),
    },
    { id: ids.beta, key: "beta", name: "Beta", writesEnabled: false, customers: [], gateways: gateways([c]) },
  ];
  return { organizations: organizations.filter((o) => !(without.organizations ?? []).includes(o.id)) };
}
