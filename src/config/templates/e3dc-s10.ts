/**
 * E3/DC S10 home power stations (S10 E, S10 E PRO, S10 E AIO, S10 X; Quattroporte), Modbus
 * TCP in the "E3/DC Simple-Mode".
 *
 * Source: HagerEnergy GmbH (E3/DC), "Modbus/TCP-Schnittstelle der HagerEnergy GmbH -
 * Anleitung für Fachkräfte", V1.90 of 28.01.2022, section 3.1 "E3/DC Simple Mode": read
 * with function 03H. The tables number registers from 40001 (the magic byte 0xE3DC, which
 * section 4.1 uses to find the offset); the protocol address is the number minus 1. Int32
 * values are sent low word first (CDAB), as the worked example of section 4.2 shows
 * (grid supply of 400 W: register 40074 = 400, 40075 = 0). The identification block's
 * examples are the document's own ("z. B."), and so is the grid power example.
 */
import { registersOf, textRegister } from "./define.ts";
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
    title:
      "Modbus/TCP-Schnittstelle der HagerEnergy GmbH, Anleitung für Fachkräfte (E3/DC Simple-Mode register mapping)",
    version: "V1.90, 28.01.2022",
    checkedWith: "evcc e3dc-modbus template (0-based addresses 40067, 40069, 40071, 40073, 40082)",
    checkedAgainst:
      'Section 3 (Simple-Mode: function 03H), 3.1.1 "Identifikationsblock" (40001-40052), 3.1.2 "Leistungsdaten abfragen" (40068-40083: length, data type and sign of each), 4.1 (register offset found with the magic byte), 4.2 (Int32 in two registers, low word first, worked example for 40074/40075)',
  },
  notes:
    'Enable Modbus in the S10 menu (Smart-Funktionen > Smart Home > Modbus, Modbus TCP with protocol "E3/DC"), TCP port 502, unit id 1. Battery power is negative when discharging; grid power is negative when feeding in. If the magic byte does not read 58332 (0xE3DC), the device counts registers with another offset (section 4.1).',
  registers: [
    uint16("magic_byte", 40001 - 1, null, null, "Magic byte, Modbus ID (always 0xE3DC)"),
    textRegister(3, "manufacturer", 40004 - 1, 16, "Manufacturer"),
    textRegister(3, "model", 40020 - 1, 16, "Model"),
    textRegister(3, "serial_number", 40036 - 1, 16, "Serial number"),
    textRegister(3, "firmware_release", 40052 - 1, 16, "Firmware release"),
    int32("pv_power", 40068 - 1, "W", null, "Photovoltaic power"),
    int32("battery_power", 40070 - 1, "W", null, "Battery power (negative: discharging)"),
    int32("house_consumption", 40072 - 1, "W", null, "House consumption"),
    int32("grid_power", 40074 - 1, "W", null, "Power at the grid connection point (negative: feed-in)"),
    int32("additional_power", 40076 - 1, "W", null, "Power of all additional feeders"),
    uint16("battery_soc", 40083 - 1, "%", null, "Battery state of charge"),
  ],
  examples: {
    magic_byte: { words: [0xe3dc], value: 58332, fromDocument: "3.1.1 (40001: always 0xE3DC) and 4.1 (58332 DEC)" },
    manufacturer: {
      words: [
        0x4861, 0x6765, 0x7245, 0x6e65, 0x7267, 0x7920, 0x476d, 0x6248, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000,
      ],
      value: "HagerEnergy GmbH",
      fromDocument: "3.1.1 (40004: Hersteller „HagerEnergy GmbH“)",
    },
    model: {
      words: [
        0x5331, 0x3020, 0x4520, 0x4149, 0x4f00, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000,
      ],
      value: "S10 E AIO",
      fromDocument: "3.1.1 (40020: Modell, z. B. „S10 E AIO“)",
    },
    serial_number: {
      words: [
        0x5331, 0x302d, 0x3132, 0x3334, 0x3536, 0x3738, 0x3931, 0x3200, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000,
      ],
      value: "S10-12345678912",
      fromDocument: "3.1.1 (40036: Seriennummer, z. B. „S10-12345678912“)",
    },
    firmware_release: {
      words: [
        0x5331, 0x305f, 0x3230, 0x3231, 0x5f30, 0x3400, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000, 0x0000,
      ],
      value: "S10_2021_04",
      fromDocument: "3.1.1 (40052: Firmware Release, z. B. “S10_2021_04”)",
    },
    pv_power: { words: [0x146e, 0x0000], value: 5230 },
    battery_power: { words: [0xf8f8, 0xffff], value: -1800 },
    house_consumption: { words: [0x038e, 0x0000], value: 910 },
    grid_power: { words: [0x0190, 0x0000], value: 400, fromDocument: "4.2 worked example: Netzbezug = 400 Watt" },
    additional_power: { words: [0x0064, 0x0000], value: 100 },
    battery_soc: { words: [0x0040], value: 64 },
  },
};
