/**
 * Fronius Symo (and Primo, Galvo, Eco), PV inverter with Fronius Datamanager 2.0, read
 * through its SunSpec Modbus map in "float" mode (SunSpec models 1 and 111/112/113).
 *
 * Source: Fronius, "Fronius Datamanager Modbus TCP & RTU" operating instructions
 * 42,0410,2049, edition 031-14062024: "Register addresses" (registers begin at 1: "to read
 * register 40001, use address 40000", so the protocol address is the number minus 1; the
 * SunSpec map starts with SID at 40001 and Mn at 40005), "Changing the Data Type"
 * (F_ModelType 1 = float: inverter model 111/112/113), "Common & Inverter Model" (SunSpec
 * operating codes of St), with the register map of Fronius' "Modbus Register - SunSpec Maps,
 * State Codes and Events" archive, version 1.1.5-1 (Inverter_Register_Map_Float_v1.0_with_
 * SYMOHYBRID_MODEL_124.xlsx, sheets "Complete Map", "C001 Common" and "I11X Inverter"): the
 * register numbers, types and units of every point here. Float values are IEEE 754 float32,
 * big-endian (ABCD), function code 03. The manufacturer example is the operating
 * instructions' own sample answer to a read of 40005 ("Fronius").
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
  source: {
    title:
      "Fronius Datamanager Modbus TCP & RTU, operating instructions, with the register map Inverter_Register_Map_Float (Modbus Register - SunSpec Maps, State Codes and Events)",
    version: "42,0410,2049, edition 031-14062024; register map archive version 1.1.5-1",
    url: "https://www.fronius.com/~/downloads/Solar%20Energy/Operating%20Instructions/42,0410,2049.pdf",
    checkedWith: "SunSpec Alliance model definitions (sunspec/models), models 1 and 113",
    checkedAgainst:
      'Operating instructions sections "Register addresses" (numbering from 1, address = number - 1, examples for Modbus RTU/TCP: read of 40005 Mn), "Unavailable data records" (float32 NaN 0x7FC00000), "Modbus Device ID for Inverters", "Changing the Data Type" (F_ModelType float = 1), "SunSpec Operating Codes" (St 1-8) and "Nameplate Model (120)" (float start 40131). Register map sheet "Complete Map" rows 40005, 40021, 40053 and 40072-40120 (start, size, type, unit, range of values; TmpCab..TmpOt "Not supported", left out)',
  },
  notes:
    'Set the Datamanager\'s Modbus to "tcp" and "SunSpec Model Type: float". An inverter answers at its inverter number as unit id (inverter number 00 at unit id 100); allow a timeout of 10 s and read sequentially. Phases B and C carry no data on single-phase inverters (SunSpec model 111); the temperature points are not supported by Fronius and are left out.',
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
  examples: {
    manufacturer: {
      words: [
        0x4672, 0x6f6e, 0x6975, 0x7300, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000,
      ],
      value: "Fronius",
      fromDocument:
        '"Register addresses", examples for Modbus TCP: read of four registers from 40005 (Mn), answer 46 72 6F 6E 69 75 73 00',
    },
    model: {
      words: [
        0x5379, 0x6d6f, 0x2031, 0x302e, 0x302d, 0x332d, 0x4d00, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000,
      ],
      value: "Symo 10.0-3-M",
    },
    serial_number: {
      words: [
        0x3237, 0x3132, 0x3334, 0x3536, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000,
      ],
      value: "27123456",
    },
    ac_current: { words: [0x40d4, 0x0000], value: 6.625 },
    ac_current_l1: { words: [0x40e4, 0x0000], value: 7.125 },
    ac_current_l2: { words: [0x40f4, 0x0000], value: 7.625 },
    ac_current_l3: { words: [0x4102, 0x0000], value: 8.125 },
    voltage_l1_l2: { words: [0x4369, 0xe666], value: 233.9 },
    voltage_l2_l3: { words: [0x436a, 0x6666], value: 234.4 },
    voltage_l3_l1: { words: [0x436a, 0xe666], value: 234.9 },
    voltage_l1: { words: [0x436b, 0x6666], value: 235.4 },
    voltage_l2: { words: [0x436b, 0xe666], value: 235.9 },
    voltage_l3: { words: [0x436c, 0x6666], value: 236.4 },
    ac_power: { words: [0x45e2, 0x9400], value: 7250.5 },
    frequency: { words: [0x4248, 0x0a3d], value: 50.01 },
    apparent_power: { words: [0x44a3, 0x7666], value: 1307.7 },
    reactive_power: { words: [0xc34a, 0x4ccd], value: -202.3 },
    power_factor: { words: [0x42c7, 0x0000], value: 99.5 },
    energy_total: { words: [0x4c2e, 0x404d], value: 45678900 },
    dc_current: { words: [0x416a, 0x0000], value: 14.625 },
    dc_voltage: { words: [0x4370, 0x6666], value: 240.4 },
    dc_power: { words: [0x45e7, 0x9000], value: 7410 },
    operating_state: { words: [0x0004], value: 4 },
    vendor_operating_state: { words: [0x0004], value: 4 },
    event_flags: { words: [0x0000, 0x0000], value: 0 },
  },
};
