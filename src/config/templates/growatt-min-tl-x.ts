/**
 * Growatt MIN TL-X and MIC TL-X string inverters (the protocol's "TL-X (MIN Type)"), Modbus RTU
 * on the RS485 port (also through a ShineLAN-X gateway as Modbus TCP).
 *
 * Source: Growatt, "Growatt Inverter Modbus RTU Protocol", V1.24. Its instruction page says
 * the TL-X (MIN type) answers function 04 at input registers 3000~3124 (and 3125~3249), not at
 * 0~124 (the TL3-X and storage types' first group, where this template read before); section
 * 4.2 Input Reg, group "Use for TL-X and TL-XH", gives each register's number (the protocol
 * address, no offset), name and unit. Every register is a 16-bit unsigned integer (sections 1
 * and 4); 32-bit values are an H register followed by its L register (high word first);
 * "0.1W", "0.1kWh", "0.1V", "0.1A", "0.01Hz" and "0.1℃" units are scales. At most 125 words
 * a read; at least 850 ms between commands (section 3).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(4, "uint16");
const uint32 = registersOf(4, "uint32");

export const growattMinTlX: DeviceTemplate = {
  brand: "Growatt",
  model: "MIN TL-X",
  kind: "PV inverter",
  byteOrder: "ABCD",
  pollIntervalMs: 30_000,
  source: {
    title: "Growatt Inverter Modbus RTU Protocol (input registers)",
    version: "V1.24",
    url: "https://github.com/0xAHA/Growatt_ModbusTCP/blob/d370a22800b16b9d19b092e7c78842ac57a7b6c1/Protocols/Growatt-Inverter-Modbus-RTU-Protocol-II-V1-24-English-new.xlsx",
    checkedWith: "0xAHA/Growatt_ModbusTCP docs/developer/protocol-v139.md (TL-X/TL-XH register ranges)",
    checkedAgainst:
      'instruction page 3 (TL-X/TL-XH (MIN type): function 04 register range 3000~3124), section 1 and 4 (16-bit unsigned registers), section 3 (9600 bps default, 850 ms between commands, at most 125 words a read), section 4.2 Input Reg, group "Use for TL-X and TL-XH" (3000 status, 3001-3006 Ppv/Vpv1/Ipv1/Ppv1, 3023-3027 Pac/Fac/Vac1/Iac1, 3049-3052 Eac today/total, 3093 Temp1: number, H/L order and unit of each), read in the document\'s tables as converted to a spreadsheet (0xAHA/Growatt_ModbusTCP Protocols/)',
  },
  notes:
    "RS485: 9600 baud, 8 data bits, no parity, 1 stop bit; address 1 by default. The TL-X answers these input registers at 3000-3124 (function 04); at most 125 registers per request, and the protocol asks for at least 850 ms (better 1 s) between commands.",
  registers: [
    uint16(
      "status",
      3000,
      null,
      null,
      "Inverter run state: high 8 bits mode, low 8 bits status (0 standby, 1 normal, 3 fault, 4 flash)",
    ),
    uint32("pv_power", 3001, "W", 0.1, "PV total power (Ppv)"),
    uint16("pv1_voltage", 3003, "V", 0.1, "PV1 voltage (Vpv1)"),
    uint16("pv1_current", 3004, "A", 0.1, "PV1 input current (Ipv1)"),
    uint32("pv1_power", 3005, "W", 0.1, "PV1 power (Ppv1)"),
    uint32("active_power", 3023, "W", 0.1, "Output power (Pac)"),
    uint16("frequency", 3025, "Hz", 0.01, "Grid frequency (Fac)"),
    uint16("voltage_l1", 3026, "V", 0.1, "Three/single phase grid voltage (Vac1)"),
    uint16("current_l1", 3027, "A", 0.1, "Three/single phase grid output current (Iac1)"),
    uint32("energy_today", 3049, "kWh", 0.1, "Today generate energy (Eac today)"),
    uint32("energy_total", 3051, "kWh", 0.1, "Total generate energy (Eac total)"),
    uint16("inverter_temperature", 3093, "°C", 0.1, "Inverter temperature (Temp1)"),
  ],
  examples: {
    status: { words: [0x0501], value: 1281 },
    pv_power: { words: [0x0000, 0x303a], value: 1234.6 },
    pv1_voltage: { words: [0x0902], value: 230.6 },
    pv1_current: { words: [0x0036], value: 5.4 },
    pv1_power: { words: [0x0000, 0x303d], value: 1234.9 },
    active_power: { words: [0x0000, 0x303e], value: 1235 },
    frequency: { words: [0x138a], value: 50.02 },
    voltage_l1: { words: [0x0907], value: 231.1 },
    current_l1: { words: [0x003b], value: 5.9 },
    energy_today: { words: [0x0001, 0xe249], value: 12346.5 },
    energy_total: { words: [0x0001, 0xe24a], value: 12346.6 },
    inverter_temperature: { words: [0x019c], value: 41.2 },
  },
};
