/**
 * SMA Sunny Boy Storage (SBS 2.5, SBS 3.7-6.0-10) battery inverter, Modbus TCP with the SMA
 * Modbus profile.
 *
 * Source: SMA, "SMA Modbus Interface" technical description, SMA_Modbus-TB-US-en-13
 * (version 1.3), SMA Modbus profile, with the device's "Modbus parameters and measured
 * values" list (battery group Bat.*): addresses are protocol addresses, unit id 3, big-endian
 * 32/64-bit values; FIX1/FIX2/FIX3 give the decimals. The SMA NaN of U32 (0xFFFFFFFF) and
 * S32 (0x80000000) measurements reads as null (not_implemented).
 */
import { noValueAt, registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint64 = registersOf(3, "uint64");
/** TAGLIST values (a status code); their NaN differs from a U32 measurement's. */
const tagList = registersOf(3, "uint32");
// The SMA Modbus profile's NaN ("no value") of U32 and S32 measurements: read as null.
const uint32 = noValueAt(registersOf(3, "uint32"), 0xffffffff);
const int32 = noValueAt(registersOf(3, "int32"), -0x80000000);

export const smaSunnyBoyStorage: DeviceTemplate = {
  brand: "SMA",
  model: "Sunny Boy Storage",
  kind: "battery",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "SMA Modbus Interface, technical description (SMA Modbus profile and the device's Modbus parameter list)",
    version: "SMA_Modbus-TB-US-en-13, version 1.3",
    url: "https://vdokumen.com/sma-modbus-tb-us-en-13.html",
    checkedWith: "evcc sma-sbs-modbus template (30775, 30513, 30845)",
  },
  notes:
    "Enable Modbus TCP on the device (installer); unit id 3. A value the device does not have (the SMA NaN) reads as null.",
  registers: [
    tagList("condition", 30201, null, null, "Condition: 35 fault, 303 off, 307 OK, 455 warning"),
    uint64("energy_total", 30513, "Wh", null, "Total yield (Metering.TotWhOut)"),
    int32("active_power", 30775, "W", null, "AC power (GridMs.TotW; positive: discharging into the grid)"),
    int32("battery_current", 30843, "A", 0.001, "Battery current (Bat.Amp)"),
    uint32("battery_soc", 30845, "%", null, "Current battery state of charge (Bat.ChaStt)"),
    int32("battery_temperature", 30849, "°C", 0.1, "Battery temperature (Bat.TmpVal)"),
    uint32("battery_voltage", 30851, "V", 0.01, "Battery voltage (Bat.Vol)"),
  ],
  examples: {
    condition: { words: [0x0000, 0x0133], value: 307 },
    energy_total: { words: [0x0000, 0x0000, 0x000f, 0x1207], value: 987655 },
    active_power: { words: [0xffff, 0xf6a0], value: -2400 },
    battery_current: { words: [0xffff, 0xe043], value: -8.125 },
    battery_soc: { words: [0x0000, 0x0043], value: 67 },
    battery_temperature: { words: [0x0000, 0x00ea], value: 23.4 },
    battery_voltage: { words: [0x0000, 0x9f6c], value: 408.12 },
  },
};
