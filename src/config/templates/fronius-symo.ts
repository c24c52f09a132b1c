/**
 * Fronius Symo (and Primo, Galvo, Eco), PV inverter with Fronius Datamanager 2.0, read
 * through its SunSpec Modbus map in "float" mode (SunSpec models 1 and 111/112/113).
 *
 * Source: Fronius, "Fronius Datamanager Modbus TCP & RTU" operating instructions
 * 42,0410,2049, chapters "Common & Inverter Model" and "Register Maps", with Fronius'
 * register map spreadsheet (Inverter_Register_Map_Float), and the SunSpec Alliance model
 * definitions (sunspec/models, models 1 and 113). Fronius lists 1-based register numbers
 * ("40001" = SID); the protocol address is the number minus 1 (SID at 40000, AC current A at
 * 40071), as SunSpec clients read them (e.g. open-source Fronius headers: `reg = 40072 - 1`). Float values
 * are IEEE 754 float32, big-endian (ABCD), function code 03.
 *
 * The Datamanager must be set to Modbus "tcp", "SunSpec Model Type: float" (register F_ModelType
 * 1); with "int + SF" the same block holds integers with scale-factor registers instead,
 * which this template does not describe.
 */
import type { DeviceTemplate, TemplateRegister } from "./types.ts";

/** Float32 at Fronius register `number` (1-based). */
function float(name: string, number: number, unit: string | null, description: string): TemplateRegister {
  return { name, address: number - 1, functionCode: 3, dataType: "float32", unit, scaleFactor: null, description };
}

function text(name: string, number: number, length: number, description: string): TemplateRegister {
  return {
    name,
    address: number - 1,
    functionCode: 3,
    dataType: "string",
    length,
    unit: null,
    scaleFactor: null,
    description,
  };
}

export const froniusSymo: DeviceTemplate = {
  brand: "Fronius",
  model: "Symo",
  kind: "PV inverter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source:
    'Fronius "Fronius Datamanager Modbus TCP & RTU" 42,0410,2049 and its Inverter_Register_Map_Float; SunSpec Alliance models 1 and 113 (sunspec/models)',
  notes:
    'Set the Datamanager\'s Modbus to "tcp" and "SunSpec Model Type: float". The first inverter answers at unit id 1. Phases B and C carry no data on single-phase inverters (SunSpec model 111); the temperature points are not supported by Fronius and are left out.',
  registers: [
    text("manufacturer", 40005, 16, "Manufacturer (SunSpec common model Mn)"),
    text("model", 40021, 16, "Device model (Md)"),
    text("serial_number", 40053, 16, "Serial number (SN)"),
    float("ac_current", 40072, "A", "AC current, sum of all phases"),
    float("ac_current_l1", 40074, "A", "AC current phase A"),
    float("ac_current_l2", 40076, "A", "AC current phase B"),
    float("ac_current_l3", 40078, "A", "AC current phase C"),
    float("voltage_l1_l2", 40080, "V", "AC voltage phase AB"),
    float("voltage_l2_l3", 40082, "V", "AC voltage phase BC"),
    float("voltage_l3_l1", 40084, "V", "AC voltage phase CA"),
    float("voltage_l1", 40086, "V", "AC voltage phase A to neutral"),
    float("voltage_l2", 40088, "V", "AC voltage phase B to neutral"),
    float("voltage_l3", 40090, "V", "AC voltage phase C to neutral"),
    float("ac_power", 40092, "W", "AC power"),
    float("frequency", 40094, "Hz", "AC frequency"),
    float("apparent_power", 40096, "VA", "Apparent power"),
    float("reactive_power", 40098, "var", "Reactive power"),
    float("power_factor", 40100, "%", "Power factor"),
    float("energy_total", 40102, "Wh", "AC lifetime energy production"),
    float("dc_current", 40104, "A", "DC current (not supported with several DC inputs: see SunSpec model 160)"),
    float("dc_voltage", 40106, "V", "DC voltage (not supported with several DC inputs)"),
    float("dc_power", 40108, "W", "DC power, all DC inputs"),
    {
      name: "operating_state",
      address: 40118 - 1,
      functionCode: 3,
      dataType: "uint16",
      unit: null,
      scaleFactor: null,
      description:
        "Operating state (SunSpec St): 1 off, 2 sleeping, 3 starting, 4 MPPT, 5 throttled, 6 shutting down, 7 fault, 8 standby",
    },
    {
      name: "vendor_operating_state",
      address: 40119 - 1,
      functionCode: 3,
      dataType: "uint16",
      unit: null,
      scaleFactor: null,
      description: "Fronius operating state code (StVnd)",
    },
    {
      name: "event_flags",
      address: 40120 - 1,
      functionCode: 3,
      dataType: "uint32",
      unit: null,
      scaleFactor: null,
      description: "SunSpec event flags, bits 0-31 (Evt1)",
    },
  ],
};
