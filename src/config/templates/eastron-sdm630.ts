/**
 * Eastron SDM630-Modbus, three-phase DIN-rail energy meter, Modbus RTU.
 *
 * Source: Eastron, "Eastron SDM630Modbus Smart Meter Modbus Protocol Implementation V1.8",
 * section 1.2.1 "SDM630Modbus Input Registers" (function code 04, pages 2-4). Every value is
 * an IEEE 754 float32 in two registers, high register first (section 3.7, page 16; section
 * 3.8.1, page 19: the answer 43 66 33 34 is Volts 1 = 230.2). The table lists 1-based
 * "30001"-style register numbers; the addresses here are the hex protocol start addresses it
 * gives beside them (30001 -> 0x0000, 30053 -> 0x0034).
 */
import type { DeviceTemplate, TemplateRegister } from "./types.ts";

function float(name: string, address: number, unit: string | null, description: string): TemplateRegister {
  return { name, address, functionCode: 4, dataType: "float32", unit, scaleFactor: null, description };
}

export const eastronSdm630: DeviceTemplate = {
  brand: "Eastron",
  model: "SDM630",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  // "Each request for data must be restricted to 40 parameters or less" (section 1.2):
  // 80 registers; more is answered with an exception.
  maxRegistersPerRequest: 80,
  source: {
    title: "Eastron SDM630Modbus Smart Meter Modbus Protocol Implementation",
    version: "V1.8",
    url: "https://github.com/plebann/eastron_SDM_HA_integration/blob/main/docs/SDM630_MODBUS_Protocol.pdf",
    checkedWith: "the Eastron Modbus maps at ob121.com and lamaplc.com",
    checkedAgainst:
      "Section 1.2.1 SDM630Modbus Input Registers (pages 2-4): register number, hex start address and units of each; section 1.1 data coding (float32, at most 40 values a request); section 3.7 IEEE floating point format (page 16) and 3.8.1 Read Input Registers (page 19): high register first; section 1.3.1 holding registers 40019/40029 for the factory settings",
  },
  notes:
    "Factory settings (section 1.3.1): 9600 baud, 8 data bits, no parity, 1 stop bit, slave id 1. At most 40 values (80 registers) per request, always in register pairs. Values not valid for the wiring system (3P4W, 3P3W, 1P2W) read as 0. Total kWh / kvarh are import + export. The table gives VA as the unit of 30087 (maximum total system power demand), a power demand like 30085 (W): it is read in W here.",
  registers: [
    float("voltage_l1", 0x0000, "V", "Phase 1 line to neutral voltage"),
    float("voltage_l2", 0x0002, "V", "Phase 2 line to neutral voltage"),
    float("voltage_l3", 0x0004, "V", "Phase 3 line to neutral voltage"),
    float("current_l1", 0x0006, "A", "Phase 1 current"),
    float("current_l2", 0x0008, "A", "Phase 2 current"),
    float("current_l3", 0x000a, "A", "Phase 3 current"),
    float("power_l1", 0x000c, "W", "Phase 1 active power"),
    float("power_l2", 0x000e, "W", "Phase 2 active power"),
    float("power_l3", 0x0010, "W", "Phase 3 active power"),
    float("apparent_power_l1", 0x0012, "VA", "Phase 1 apparent power"),
    float("apparent_power_l2", 0x0014, "VA", "Phase 2 apparent power"),
    float("apparent_power_l3", 0x0016, "VA", "Phase 3 apparent power"),
    float("reactive_power_l1", 0x0018, "var", "Phase 1 reactive power"),
    float("reactive_power_l2", 0x001a, "var", "Phase 2 reactive power"),
    float("reactive_power_l3", 0x001c, "var", "Phase 3 reactive power"),
    float("power_factor_l1", 0x001e, null, "Phase 1 power factor (sign shows the direction of the current)"),
    float("power_factor_l2", 0x0020, null, "Phase 2 power factor"),
    float("power_factor_l3", 0x0022, null, "Phase 3 power factor"),
    float("voltage_ln_average", 0x002a, "V", "Average line to neutral voltage"),
    float("current_average", 0x002e, "A", "Average line current"),
    float("current_sum", 0x0030, "A", "Sum of line currents"),
    float("active_power", 0x0034, "W", "Total system active power"),
    float("apparent_power", 0x0038, "VA", "Total system apparent power"),
    float("reactive_power", 0x003c, "var", "Total system reactive power"),
    float("power_factor", 0x003e, null, "Total system power factor"),
    float("frequency", 0x0046, "Hz", "Frequency of the supply voltages"),
    float("energy_import", 0x0048, "kWh", "Total imported active energy"),
    float("energy_export", 0x004a, "kWh", "Total exported active energy"),
    float("reactive_energy_import", 0x004c, "kvarh", "Total imported reactive energy"),
    float("reactive_energy_export", 0x004e, "kvarh", "Total exported reactive energy"),
    float("power_demand", 0x0054, "W", "Total system power demand"),
    float("power_demand_max", 0x0056, "W", "Maximum total system power demand"),
    float("voltage_l1_l2", 0x00c8, "V", "Line 1 to line 2 voltage"),
    float("voltage_l2_l3", 0x00ca, "V", "Line 2 to line 3 voltage"),
    float("voltage_l3_l1", 0x00cc, "V", "Line 3 to line 1 voltage"),
    float("current_neutral", 0x00e0, "A", "Neutral current"),
    float("energy_total", 0x0156, "kWh", "Total active energy (import + export)"),
    float("reactive_energy_total", 0x0158, "kvarh", "Total reactive energy (import + export)"),
  ],
  examples: {
    voltage_l1: {
      words: [0x4366, 0x3334],
      value: 230.20001,
      fromDocument: "section 3.8.1 Read Input Registers, page 19 (Volts 1 = 230.2)",
    },
    voltage_l2: {
      words: [0x4370, 0x8000],
      value: 240.5,
      fromDocument: "section 3.7 IEEE floating point format, page 16 (43708000 hex = 240.5)",
    },
    voltage_l3: { words: [0x4367, 0x6666], value: 231.4 },
    current_l1: { words: [0x40d4, 0x0000], value: 6.625 },
    current_l2: { words: [0x40e4, 0x0000], value: 7.125 },
    current_l3: { words: [0x40f4, 0x0000], value: 7.625 },
    power_l1: { words: [0x449a, 0xb000], value: 1237.5 },
    power_l2: { words: [0x449a, 0xc000], value: 1238 },
    power_l3: { words: [0x449a, 0xd000], value: 1238.5 },
    apparent_power_l1: { words: [0x44a3, 0x1666], value: 1304.7 },
    apparent_power_l2: { words: [0x44a3, 0x2666], value: 1305.2 },
    apparent_power_l3: { words: [0x44a3, 0x3666], value: 1305.7 },
    reactive_power_l1: { words: [0xc34c, 0x4ccd], value: -204.3 },
    reactive_power_l2: { words: [0xc34b, 0xcccd], value: -203.8 },
    reactive_power_l3: { words: [0xc34b, 0x4ccd], value: -203.3 },
    power_factor_l1: { words: [0x3f7c, 0x28f6], value: 0.985 },
    power_factor_l2: { words: [0xbf78, 0x51ec], value: -0.97 },
    power_factor_l3: { words: [0x3f7d, 0x70a4], value: 0.99 },
    voltage_ln_average: { words: [0x436f, 0x6666], value: 239.4 },
    current_average: { words: [0x416a, 0x0000], value: 14.625 },
    current_sum: { words: [0x4172, 0x0000], value: 15.125 },
    active_power: { words: [0x449b, 0xa000], value: 1245 },
    apparent_power: { words: [0x44a3, 0xe666], value: 1311.2 },
    reactive_power: { words: [0xc346, 0xcccd], value: -198.8 },
    power_factor: { words: [0x3f7b, 0x645a], value: 0.982 },
    frequency: { words: [0x4247, 0xeb85], value: 49.98 },
    energy_import: { words: [0x4641, 0x1a66], value: 12358.6 },
    energy_export: { words: [0x4641, 0x1c66], value: 12359.1 },
    reactive_energy_import: { words: [0x43a7, 0xd99a], value: 335.7 },
    reactive_energy_export: { words: [0x43a8, 0x199a], value: 336.2 },
    power_demand: { words: [0x449c, 0x3000], value: 1249.5 },
    power_demand_max: { words: [0x449c, 0x4000], value: 1250 },
    voltage_l1_l2: { words: [0x43c7, 0x8ccd], value: 399.1 },
    voltage_l2_l3: { words: [0x43c8, 0x199a], value: 400.2 },
    voltage_l3_l1: { words: [0x43c7, 0x599a], value: 398.7 },
    current_neutral: { words: [0x3e80, 0x0000], value: 0.25 },
    energy_total: { words: [0x4641, 0x2e66], value: 12363.6 },
    reactive_energy_total: { words: [0x43aa, 0x199a], value: 340.2 },
  },
};
