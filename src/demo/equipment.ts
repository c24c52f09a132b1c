/**
 * The demo's equipment: simulated Modbus TCP devices on free loopback ports,
 * and the demo config pointing at them, polled by the real pollers.
 */
import { type FieldhubConfig, parseConfig } from "../config/index.ts";
import type { InventoryRegister } from "../lib/inventory.ts";
import { type DemoPorts, demoConfigYaml, demoGatewaySerials } from "./demo-config.ts";
import { demoRawValue, demoText } from "./history.ts";
import { type SimulatedDevice, startSimulatedDevice } from "./simulator.ts";

/** Which simulated device serves which demo device (by gateway serial and device name). */
const simulatedDevices: { port: keyof DemoPorts; serial: string; device: string }[] = [
  { port: "climateComputer", serial: demoGatewaySerials.greenhouse, device: "Climate computer" },
  { port: "thermostat", serial: demoGatewaySerials.greenhouse, device: "Fan-coil thermostat" },
  { port: "energyMeter", serial: demoGatewaySerials.energy, device: "Energy meter" },
  { port: "inverter", serial: demoGatewaySerials.energy, device: "PV inverter" },
];

function parseDemoConfig(ports: DemoPorts): FieldhubConfig {
  const parsed = parseConfig(demoConfigYaml(ports));
  if (!parsed.ok) throw new Error(`embedded demo config is invalid: ${JSON.stringify(parsed.problems)}`);
  return parsed.config;
}

/** Every register of the config's inventory, by id. */
export function registersOf(config: FieldhubConfig): Map<string, InventoryRegister> {
  const byId = new Map<string, InventoryRegister>();
  for (const organization of config.inventory.organizations) {
    for (const gateway of organization.gateways) {
      for (const device of gateway.modbusDevices)
        for (const register of device.registers) byId.set(register.id, register);
    }
  }
  return byId;
}

/**
 * Starts the simulated devices on free loopback ports and returns the demo
 * config pointing at them. (Register maps do not depend on ports, so the maps
 * come from a first reading of the config.)
 */
export async function startDemoEquipment(): Promise<{ config: FieldhubConfig; simulators: SimulatedDevice[] }> {
  const draft = parseDemoConfig({ climateComputer: 1, thermostat: 1, energyMeter: 1, inverter: 1 });
  const registers = registersOf(draft);
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
  return { config: parseDemoConfig(ports as DemoPorts), simulators };
}
