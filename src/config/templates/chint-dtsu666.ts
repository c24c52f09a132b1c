/**
 * CHINT DTSU666, three-phase DIN-rail energy meter, Modbus RTU (the same meter Huawei sells
 * as DTSU666-H; its map differs: use this template for CHINT's own DTSU666).
 *
 * Source: Zhejiang CHINT Instrument & Meter, "Quick operation manual of DTSU666-□series and
 * DSSU666-□series Digital Three-Phase Energy Meter", publication date May 2016, section 5
 * "communication", table 3 "ModBus Register Address": read command 03H, every measured
 * quantity an IEEE 754 float of two registers, high word first; the register address is
 * the protocol address. The conversion table after it gives the scale: U = Ua x (UrAt x 0.1)
 * x 0.1 V, I = Ia x IrAt x 0.001 A, P = Pa x (UrAt x 0.1) x IrAt x 0.1 W, PF x 0.001,
 * F = Freq x 0.01 Hz, energy in kWh (UrAt is 10 for a potential transformer ratio of 1).
 * The document gives no example readings.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(3, "float32");

export const chintDtsu666: DeviceTemplate = {
  brand: "CHINT",
  model: "DTSU666",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title:
      "Quick operation manual of DTSU666-□series and DSSU666-□series Digital Three-Phase Energy Meter, table 3 ModBus Register Address",
    version: "Zhejiang CHINT Instrument & Meter, publication date May 2016",
    url: "https://github.com/salakrzy/DTSU666_CHINT_to_HUAWEI_translator/blob/8743cb5dc9cee85d001ef7e22fc845d38afd82cb/doc/Manual%20and%20address%20map%20for%20DTSUu666_series.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/dtsu666.go",
    checkedAgainst:
      "section 5 (read command 03H, ModBus_RTU n.2 at 9600 bps), table 3 (address, float type, word order of every register: 2006H-2018H, 201AH, 202AH, 2044H, 401EH, 4028H), conversion table after table 3 (scale and unit of each quantity)",
  },
  notes:
    "The meter leaves the factory speaking DL/T 645-2007 (E.1, 9600 bps): switch the protocol (parameter Protocol, register 002CH) to ModBus_RTU, which runs at 9600 bps, no parity, 2 stop bits (n.2). Scales assume current and potential transformer ratio 1 (IrAt 1, UrAt 10): with transformers multiply by the ratios as the manual's conversion table says. Power is signed (negative: export).",
  registers: [
    float("voltage_l1", 0x2006, "V", 0.1, "Ua: phase A voltage"),
    float("voltage_l2", 0x2008, "V", 0.1, "Ub: phase B voltage"),
    float("voltage_l3", 0x200a, "V", 0.1, "Uc: phase C voltage"),
    float("current_l1", 0x200c, "A", 0.001, "Ia: phase A current"),
    float("current_l2", 0x200e, "A", 0.001, "Ib: phase B current"),
    float("current_l3", 0x2010, "A", 0.001, "Ic: phase C current"),
    float("active_power", 0x2012, "W", 0.1, "Pt: combined active power"),
    float("power_l1", 0x2014, "W", 0.1, "Pa: phase A active power"),
    float("power_l2", 0x2016, "W", 0.1, "Pb: phase B active power"),
    float("power_l3", 0x2018, "W", 0.1, "Pc: phase C active power"),
    float("reactive_power", 0x201a, "var", 0.1, "Qt: combined reactive power"),
    float("power_factor", 0x202a, null, 0.001, "PFt: combined power factor"),
    float("frequency", 0x2044, "Hz", 0.01, "Freq: frequency"),
    float("energy_import", 0x401e, "kWh", null, "ImpEp: (current) positive active total energy"),
    float("energy_export", 0x4028, "kWh", null, "ExpEp: (current) negative active total energy"),
  ],
  examples: {
    voltage_l1: { words: [0x4510, 0x0000], value: 230.4 },
    voltage_l2: { words: [0x4510, 0x0800], value: 230.45 },
    voltage_l3: { words: [0x4510, 0x1000], value: 230.5 },
    current_l1: { words: [0x45a0, 0x3400], value: 5.1265 },
    current_l2: { words: [0x45a0, 0x3800], value: 5.127 },
    current_l3: { words: [0x45a0, 0x3c00], value: 5.1275 },
    active_power: { words: [0x4640, 0xf000], value: 1234.8 },
    power_l1: { words: [0x4640, 0xf200], value: 1234.85 },
    power_l2: { words: [0x4640, 0xf400], value: 1234.9 },
    power_l3: { words: [0x4640, 0xf600], value: 1234.95 },
    reactive_power: { words: [0xc503, 0x2000], value: -209.8 },
    power_factor: { words: [0x446d, 0x8000], value: 0.95 },
    frequency: { words: [0x459c, 0x5000], value: 50.02 },
    energy_import: { words: [0x4641, 0x0066], value: 12352.1 },
    energy_export: { words: [0x4641, 0x0266], value: 12352.6 },
  },
};
