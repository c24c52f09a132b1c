/**
 * E3/DC S10 home power stations (S10 E, S10 X, S10 E PRO), Modbus TCP in the "E3/DC simple
 * mode".
 *
 * Source: E3/DC, "Modbus/TCP-Schnittstelle der E3/DC-Geräte" (Modbus/TCP interface
 * description), simple mode register table: the document numbers registers from 1
 * ("40068 PV-Leistung"); the protocol address is the number minus 1. INT32 values are sent
 * low word first (CDAB).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const int32 = registersOf(3, "int32");
const uint16 = registersOf(3, "uint16");

export const e3dcS10: DeviceTemplate = {
  brand: "E3/DC",
  model: "S10",
  kind: "hybrid inverter",
  byteOrder: "CDAB",
  pollIntervalMs: 10_000,
  source: {
    title: "Modbus/TCP-Schnittstelle der E3/DC-Geräte (simple mode register table)",
    version: "E3/DC Modbus/TCP interface description, as referenced by evcc's e3dc-modbus template",
    checkedWith: "evcc e3dc-modbus template (0-based addresses 40067, 40069, 40071, 40073, 40082)",
  },
  notes:
    'Enable Modbus in the S10 menu (Smart-Funktionen > Smart Home > Modbus, protocol "E3/DC"), unit id 1. Battery power is positive when charging; grid power is negative when feeding in.',
  registers: [
    int32("pv_power", 40068 - 1, "W", null, "Photovoltaic power"),
    int32("battery_power", 40070 - 1, "W", null, "Battery power (negative: discharging)"),
    int32("house_consumption", 40072 - 1, "W", null, "House consumption"),
    int32("grid_power", 40074 - 1, "W", null, "Grid power (negative: feed-in)"),
    int32("additional_power", 40076 - 1, "W", null, "Power of additional feeders"),
    uint16("battery_soc", 40083 - 1, "%", null, "Battery state of charge"),
  ],
  examples: {
    pv_power: { words: [0x146e, 0x0000], value: 5230 },
    battery_power: { words: [0xf8f8, 0xffff], value: -1800 },
    house_consumption: { words: [0x038e, 0x0000], value: 910 },
    grid_power: { words: [0xf628, 0xffff], value: -2520 },
    additional_power: { words: [0x0000, 0x0000], value: 0 },
    battery_soc: { words: [0x0040], value: 64 },
  },
};
