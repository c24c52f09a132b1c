/**
 * SMA Sunny Boy Storage (SBS 3.7-10, SBS 5.0-10, SBS 6.0-10) battery inverter, Modbus TCP with
 * the SMA Modbus profile.
 *
 * Source: SMA, "Modbus® Parameters and Measured Values" for SBS3.7-10 / SBS5.0-10 /
 * SBS6.0-10, valid from firmware 3.12.33.R (SMA download MODBUS-HTML_SBS3.7-6.0-10_GG10-V13),
 * with SMA's "SMA and SunSpec Modbus Interface" technical information
 * SMA-Modbus-general-TI-en-10, version 1.0: register addresses of the SMA profile are protocol
 * addresses, unit id 3 by default, "Big Endian" (high word first, ABCD); FIX2/FIX3 give the
 * decimals, TEMP one decimal. NaN ("no value") is 0x80000000 for S32, 0xFFFFFFFF for U32 and
 * 0xFFFFFD for a status value (only its lower 24 bits are used): those read as null.
 */
import { noValueAt, registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint64 = registersOf(3, "uint64");
/** TAGLIST values (a status code): only the lower 24 bits are used, so their NaN is 0xFFFFFD. */
const tagList = noValueAt(registersOf(3, "uint32"), 0xfffffd);
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
    title:
      "Modbus Parameters and Measured Values, SBS3.7-10 / SBS5.0-10 / SBS6.0-10, with the technical information SMA and SunSpec Modbus Interface",
    version:
      "list MODBUS-HTML_SBS3.7-6.0-10_GG10-V13 (firmware from 3.12.33.R); SMA-Modbus-general-TI-en-10, version 1.0",
    checkedWith: "evcc sma-sbs-modbus template (30775, 30513, 30845)",
    checkedAgainst:
      "The list's rows 30201, 30513, 30775, 30843, 30845, 30849, 30851 (number of registers, SMA data type, format, access, unit, value range); technical information sections 3.5.1 (unit id 3), 3.5.3 (SunSpec offset only), 3.5.4 (Big Endian), 3.5.7 (data types and NaN values), 3.5.8 (data formats FIXn, TEMP, TAGLIST)",
  },
  notes:
    "Enable Modbus TCP on the device (installer); unit id 3. A value the device does not have (the SMA NaN) reads as null.",
  registers: [
    tagList("condition", 30201, null, null, "Condition (Operation.Health): 35 fault, 303 off, 307 Ok, 455 warning"),
    uint64("energy_total", 30513, "Wh", null, "Total yield (Metering.TotWhOut)"),
    int32("active_power", 30775, "W", null, "AC power (GridMs.TotW; positive: discharging into the grid)"),
    int32("battery_current", 30843, "A", 0.001, "Battery current (Bat.Amp)"),
    uint32("battery_soc", 30845, "%", null, "Current battery state of charge (Bat.ChaStt)"),
    int32("battery_temperature", 30849, "°C", 0.1, "Battery temperature (Bat.TmpVal, S32 TEMP)"),
    uint32("battery_voltage", 30851, "V", 0.01, "Battery voltage (Bat.Vol)"),
  ],
  examples: {
    condition: { words: [0x0000, 0x0133], value: 307, fromDocument: "row 30201, value range: 307: Ok (Ok)" },
    energy_total: { words: [0x0000, 0x0000, 0x000f, 0x1207], value: 987655 },
    active_power: { words: [0xffff, 0xf6a0], value: -2400 },
    battery_current: { words: [0xffff, 0xe043], value: -8.125 },
    battery_soc: { words: [0x0000, 0x0043], value: 67 },
    battery_temperature: { words: [0x0000, 0x00ea], value: 23.4 },
    battery_voltage: { words: [0x0000, 0x9f6c], value: 408.12 },
  },
};
