/**
 * Eastron SDM72D-M (the first version, without V2), three-phase four-wire DIN-rail energy
 * meter, Modbus RTU.
 *
 * Source: "B+G e-tech EASTRON SDM72D-M User Manual V1.5" (2017, Eastron's German arm B+G
 * e-tech GmbH), part 3 "Modbus Protocol". Input registers (function code 04, page 14): nine
 * values, each "4 bytes, Float", at the hex protocol start addresses the table gives beside
 * the 3xxxx register numbers (30053 -> 0x0034); at most 30 parameters a request. Holding
 * registers (function code 03, pages 15-16): parity/stop bits, Modbus address and baud rate
 * as floats, with the defaults the table gives. The manual does not say which register of a
 * float comes first ("Hi/Lo byte order is set automatically", page 4); high register first
 * is Eastron's order in its SDM630/SDM120 protocol documents, as in the SDM72D-M V2 template.
 * The manual lists no phase values (voltage, current, power per phase): the V2 template has them.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");
const setting = registersOf(3, "float32");

export const eastronSdm72dM: DeviceTemplate = {
  brand: "Eastron",
  model: "SDM72D-M",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  // "Each request for data must be restricted to 30 parameters or less" (page 14): 60 registers.
  maxRegistersPerRequest: 60,
  source: {
    title: "B+G e-tech EASTRON SDM72D-M User Manual",
    version: "V1.5 (2017)",
    url: "https://github.com/nmakel/sdm_modbus/blob/master/documents/sdm72d-m-manual_v1.5.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/sdm72.go; nmakel/sdm_modbus src/sdm_modbus/sdm.py (SDM72)",
    checkedAgainst:
      "Part 3 Modbus Protocol, Input Registers table (page 14): register number, hex start address (Hi/Lo byte), length 4 bytes, Float and units of each of its nine rows, the note that total kWh is import + export, and the 30-parameter limit above it; Holding Registers table (pages 15-16): 40019 Parity / Stop, 40021 Modbus Address, 40029 Network Baud Rate with their defaults (function code 03, 4 bytes, Float); RS485 output for Modbus RTU (page 4) and set-up menu (pages 9-10) for the factory settings",
  },
  notes:
    "Factory settings (pages 15-16): 9600 baud, no parity, 1 stop bit, slave id 1. Read the measurements with function code 04, at most 30 values (60 registers) a request; the settings are holding registers (function code 03, read here, not written). The first SDM72D-M has only total power and energy registers; for the SDM72D-M-2 use the SDM72D-M V2 template. Total kWh is import + export.",
  registers: [
    float("active_power", 0x0034, "W", null, "Total system power"),
    float("energy_import", 0x0048, "kWh", null, "Total import active energy"),
    float("energy_export", 0x004a, "kWh", null, "Total export active energy"),
    float("energy_total", 0x0156, "kWh", null, "Total active energy (import + export)"),
    float("resettable_energy_total", 0x0180, "kWh", null, "Resettable total active energy (import + export)"),
    float("resettable_energy_import", 0x0184, "kWh", null, "Resettable import active energy"),
    float("resettable_energy_export", 0x0186, "kWh", null, "Resettable export active energy"),
    float("import_power", 0x0500, "W", null, "Total import active power"),
    float("export_power", 0x0502, "W", null, "Total export active power"),
    setting(
      "parity_stop",
      0x0012,
      null,
      null,
      "Network port parity / stop bits: 0 = one stop bit, no parity; 1 = one stop bit, even parity; 2 = one stop bit, odd parity; 3 = two stop bits, no parity",
    ),
    setting("modbus_address", 0x0014, null, null, "Network port node address (1 to 247)"),
    setting("baud_rate", 0x001c, null, null, "Network port baud rate: 0 = 2400, 1 = 4800, 2 = 9600, 5 = 1200 baud"),
  ],
  examples: {
    active_power: { words: [0x449a, 0xe000], value: 1239 },
    energy_import: { words: [0x461a, 0x4ccd], value: 9875.2 },
    energy_export: { words: [0x451a, 0xd666], value: 2477.4 },
    energy_total: { words: [0x4641, 0x0266], value: 12352.6 },
    resettable_energy_total: { words: [0x4338, 0x0000], value: 184 },
    resettable_energy_import: { words: [0x4318, 0x4ccd], value: 152.3 },
    resettable_energy_export: { words: [0x41fd, 0x999a], value: 31.7 },
    import_power: { words: [0x449c, 0x7000], value: 1251.5 },
    export_power: { words: [0x4148, 0x0000], value: 12.5 },
    parity_stop: {
      words: [0x0000, 0x0000],
      value: 0,
      fromDocument: "Holding Registers, 40019 Parity / Stop, page 15 (0 = one stop bit and no parity, default)",
    },
    modbus_address: {
      words: [0x3f80, 0x0000],
      value: 1,
      fromDocument: "Holding Registers, 40021 Modbus Address, page 15 (1 to 247, default 1)",
    },
    baud_rate: {
      words: [0x4000, 0x0000],
      value: 2,
      fromDocument: "Holding Registers, 40029 Network Baud Rate, page 16 (2 = 9600 baud, default)",
    },
  },
};
