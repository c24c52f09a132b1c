/**
 * SMA Sunny Tripower (STP x000TL-20, STP X) and Sunny Boy (SB x.0-1AV-41) PV inverters,
 * Modbus TCP with the SMA Modbus profile.
 *
 * Source: SMA, "SMA Modbus Interface" technical description, SMA_Modbus-TB-US-en-13
 * (version 1.3), SMA Modbus profile, with the inverter's own "Modbus parameters and
 * measured values" list: register addresses are the protocol addresses (no offset), read
 * from unit id 3; U32/S32/U64 values big-endian (ABCD); FIX0/FIX1/FIX2/FIX3 give the
 * decimals (FIX2 is scale 0.01). "NaN" (no value) is 0x80000000 for S32 and 0xFFFFFFFF
 * for U32 (the registers say so: not_implemented) and 0xFFFFFFFFFFFFFFFF for U64 (beyond
 * an exact number: left to the reader).
 */
import { noValueAt, registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint64 = registersOf(3, "uint64");
/** TAGLIST values (a status code); their NaN differs from a U32 measurement's. */
const tagList = registersOf(3, "uint32");
// The SMA Modbus profile's NaN ("no value") of U32 and S32 measurements: read as null.
const uint32 = noValueAt(registersOf(3, "uint32"), 0xffffffff);
const int32 = noValueAt(registersOf(3, "int32"), -0x80000000);

export const smaSunnyTripower: DeviceTemplate = {
  brand: "SMA",
  model: "Sunny Tripower",
  kind: "PV inverter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "SMA Modbus Interface, technical description (SMA Modbus profile and the inverter's Modbus parameter list)",
    version: "SMA_Modbus-TB-US-en-13, version 1.3",
    url: "https://vdokumen.com/sma-modbus-tb-us-en-13.html",
    checkedWith: "evcc sma-inverter-modbus template; ioBroker SMA register lists",
  },
  notes:
    "Enable Modbus TCP on the inverter (installer). SMA devices answer at unit id 3. A value the device does not have (the SMA NaN, e.g. DC values at night) reads as null.",
  registers: [
    tagList("condition", 30201, null, null, "Condition: 35 fault, 303 off, 307 OK, 455 warning"),
    uint64("energy_total", 30513, "Wh", null, "Total yield (Metering.TotWhOut)"),
    uint64("energy_today", 30517, "Wh", null, "Daily yield (Metering.DyWhOut)"),
    int32("dc_current_a", 30769, "A", 0.001, "DC current input A"),
    int32("dc_voltage_a", 30771, "V", 0.01, "DC voltage input A"),
    int32("dc_power_a", 30773, "W", null, "DC power input A"),
    int32("active_power", 30775, "W", null, "Power (GridMs.TotW)"),
    uint32("voltage_l1", 30783, "V", 0.01, "Grid voltage phase L1"),
    uint32("frequency", 30803, "Hz", 0.01, "Grid frequency"),
    int32("internal_temperature", 30953, "°C", 0.1, "Internal temperature"),
  ],
  examples: {
    condition: { words: [0x0000, 0x0133], value: 307 },
    energy_total: { words: [0x0000, 0x0000, 0x02b9, 0x0135], value: 45678901 },
    energy_today: { words: [0x0000, 0x0000, 0x0000, 0x5ba0], value: 23456 },
    dc_current_a: { words: [0x0000, 0x1408], value: 5.128 },
    dc_voltage_a: { words: [0x0000, 0x5a04], value: 230.44 },
    dc_power_a: { words: [0x0000, 0x0f3c], value: 3900 },
    active_power: { words: [0x0000, 0x1d1a], value: 7450 },
    voltage_l1: { words: [0x0000, 0x5a07], value: 230.47 },
    frequency: { words: [0x0000, 0x138a], value: 50.02 },
    internal_temperature: { words: [0x0000, 0x01b9], value: 44.1 },
  },
};
