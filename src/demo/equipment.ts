/**
 * The demo's equipment: simulated Modbus TCP devices on free loopback ports,
 * polled by the real pollers once the demo config points at them.
 */
import type { Inventory, InventoryRegister } from "../lib/inventory.ts";
import type { PollingGateway } from "../modbus/polling-config.ts";
import { type DemoPorts, demoGatewaySerials } from "./demo-config.ts";
import { demoRawValue, demoText } from "./history.ts";
import { type SimulatedDevice, startSimulatedDevice } from "./simulator.ts";

/** Which simulated device serves which demo device (by gateway serial and device name). */
const simulatedDevices: { port: keyof DemoPorts; serial: string; device: string }[] = [
  { port: "climateComputer", serial: demoGatewaySerials.greenhouse, device: "Climate computer" },
  { port: "thermostat", serial: demoGatewaySerials.greenhouse, device: "Fan-coil thermostat" },
  { port: "energyMeter", serial: demoGatewaySerials.energy, device: "Energy meter" },
  { port: "inverter", serial: demoGatewaySerials.energy, device: "PV inverter" },
];

/** Every register of the inventory, by id. */
export function registersOf(inventory: Inventory): Map<string, InventoryRegister> {
  const byId = new Map<string, InventoryRegister>();
  for (const organization of inventory.organizations) {
    for (const gateway of organization.gateways) {
      for (const device of gateway.modbusDevices)
        for (const register of device.registers) byId.set(register.id, register);
    }
  }
  return byId;
}

/**
 * Starts the simulated devices on free loopback ports for the demo config read
 * with any ports (register maps do not depend on them); the config to run is the
 * one read again with the ports returned.
 */
export async function startDemoEquipment(draft: {
  polling: readonly PollingGateway[];
  inventory: Inventory;
}): Promise<{ ports: DemoPorts; simulators: SimulatedDevice[] }> {
  const registers = registersOf(draft.inventory);
  const ports: Partial<DemoPorts> = {};
  const simulators: SimulatedDevice[] = [];
  for (const simulated of simulatedDevices) {
    const gateway = draft.polling.find((candidate) => candidate.serial === simulated.serial);
    const device = gateway?.devices.find((candidate) => candidate.name === simulated.device);
    if (device === undefined) throw new Error(`demo device ${simulated.device} missing`);
    const simulator = await startSimulatedDevice({
      registers: device.registers.map((decoding) => {
        const register = registers.get(decoding.id);
        return {
          ...decoding,
          valueAt: (ts: number) =>
            register === undefined
              ? 0
              : decoding.dataType === "string"
                ? demoText(register)
                : demoRawValue(register, ts),
        };
      }),
    });
    simulators.push(simulator);
    ports[simulated.port] = simulator.port;
  }
  return { ports: ports as DemoPorts, simulators };
}
