/**
 * Eastron SDM630 (SDM630-Modbus V2 / SDM630MCT), three-phase DIN-rail energy meter, Modbus RTU.
 *
 * Source: Eastron, "SDM630-Modbus V2 user manual", part "Modbus Protocol Input Registers"
 * (function code 04), published by B+G e-tech (Eastron Germany); consulted at
 * https://manualshive.com/en/manual/eastron/sdm630-modbus-mid-v2/522581 .
 * Every value is an IEEE 754 float32 in two registers, high word first (ABCD). The manual
 * lists 1-based "30001"-style register numbers; the addresses here are the PDU addresses it
 * gives in hex (30001 -> 0x0000, 30053 -> 0x0034). Cross-checked against the register tables
 * at ob121.com ("Eastron Modbus maps") and lamaplc.com ("Eastron SDM").
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
  // "Each request for data must be restricted to 40 parameters or less" (80 registers);
  // more is answered with an exception.
  maxRegistersPerRequest: 80,
  source:
    'Eastron "SDM630-Modbus V2 user manual", Modbus protocol input registers (function code 04); cross-checked with the tables at ob121.com and lamaplc.com (Eastron Modbus maps)',
  notes:
    "Factory settings: 9600 baud, 8 data bits, even parity, 1 stop bit, slave id 1. At most 40 values (80 registers) per request. Values not valid for the wiring system (3P4W, 3P3W, 1P2W) read as 0.",
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
};
