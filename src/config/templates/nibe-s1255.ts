/**
 * NIBE S1255 (and S1155), inverter-driven ground source heat pump with built-in Modbus TCP
 * (S-series; menu 7.5.9 "Modbus TCP/IP" must be switched on).
 *
 * Source: the pump's own Modbus register export. NIBE's technical information "MODBUS
 * S-SERIES" (M12676EN, print TIF EN 2335; its contents: 2 "General Modbus information",
 * "Export register"; 3 "Modbus registers", "Common registers") has the installer export the
 * register list from the pump itself; the export lists, for every register the installed
 * system has: "Title", "Register type" (MODBUS_INPUT_REGISTER = function 04,
 * MODBUS_HOLDING_REGISTER = function 03), "Register" (the protocol address, as it goes in the
 * request: no -1), "Division factor" (10 = scale 0.1), "Unit", "Size of variable" (1 = s8,
 * 2 = s16, 3 = s32, 4 = u8, 5 = u16, 6 = u32), "Min value", "Max value", "Default value".
 * The export read is the one of an S1155-6 PC at pump software 2.22.6, committed unchanged to
 * yozik04/nibe as nibe/data/s1155_pc.csv (568c602, 2023-10-22, "Modbus register export from
 * NIBE S1155-6 PC EM 3X400V at Software 2.22.6"); the file itself carries no line naming the
 * software that wrote it, its provenance is that commit. Every register below is in it with
 * this type, number, division factor, unit and size; the S1155 and S1255 share the
 * controller and the library's merged S1155/S1255 list (nibe/data/s1155_s1255.csv, exports up
 * to software 2.23.4) has the same rows. The export does not state the word order of 32-bit
 * values: low word first (CDAB), the order yozik04/nibe reads with word_swap set; a pump that
 * sends high word first needs `byte_order: ABCD` on its 32-bit registers. heating_offset's
 * example is the export's default value (0).
 *
 * Fixed this round: the previous template read every register one address low (Register - 1).
 * The export's Register is the address in the request: yozik04/nibe reads Register as the
 * address (its converter's "adjust number offset", 17eef3a, 2022-10-19: id 30000 + Register
 * + 1, read at id % 10000 - 1), as do andrei-tatar/node-red-contrib-nibetcp (tested on an
 * S1155: reads at Register), a Home Assistant S-series integration (outdoor temperature BT1
 * at input register 1, pymodbus) and an openHAB S1155 configuration (pastebin.com/UQHMHJav:
 * BT1 at readStart 1, BT2 at 5, BT3 at 7).
 */
import type { DeviceTemplate, TemplateRegister } from "./types.ts";

/** Input register `number` as the export lists it (the protocol address). */
function input(
  name: string,
  number: number,
  dataType: TemplateRegister["dataType"],
  unit: string | null,
  scaleFactor: number | null,
  description: string,
): TemplateRegister {
  return { name, address: number, functionCode: 4, dataType, unit, scaleFactor, description };
}

/** Holding register `number` as the export lists it (the protocol address). */
function holding(
  name: string,
  number: number,
  dataType: TemplateRegister["dataType"],
  unit: string | null,
  scaleFactor: number | null,
  description: string,
  writeRange?: [min: number, max: number],
): TemplateRegister {
  const register: TemplateRegister = {
    name,
    address: number,
    functionCode: 3,
    dataType,
    unit,
    scaleFactor,
    description,
  };
  return writeRange === undefined ? register : { ...register, writable: true, min: writeRange[0], max: writeRange[1] };
}

export const nibeS1255: DeviceTemplate = {
  brand: "NIBE",
  model: "S1255",
  kind: "heat pump",
  byteOrder: "CDAB",
  pollIntervalMs: 30_000,
  source: {
    title:
      "Modbus register export of a NIBE S1155-6 PC (written by the pump, as NIBE's technical information MODBUS S-SERIES M12676EN describes)",
    version: "pump software 2.22.6 (export committed to yozik04/nibe as nibe/data/s1155_pc.csv, 568c602, 2023-10-22)",
    url: "https://github.com/yozik04/nibe/blob/568c6020cb62b497bc78e168724e50b457851229/nibe/data/s1155_pc.csv",
    checkedWith:
      "yozik04/nibe nibe/data/s1155_s1255.csv (merged S1155/S1255 exports up to software 2.23.4) and its Modbus address mapping; andrei-tatar/node-red-contrib-nibetcp (reads at Register); an openHAB S1155 configuration (pastebin.com/UQHMHJav); NIBE technical information MODBUS S-SERIES, M12676EN (TIF EN 2335), title page and contents",
    checkedAgainst:
      "the export's row of every register: Register type (function code), Register (the protocol address), Division factor (scale), Unit, Size of variable (data type); Min value, Max value and Default value of the holding registers (heating_offset -10..10, default 0; degree_minutes -30000..30000)",
  },
  notes:
    "Modbus TCP on port 502, unit id 1; switch Modbus TCP/IP on in menu 7.5.9. The register list is the pump's own export, which lists only what the installed system has: compare it with this template on site. 32-bit values are read low word first (CDAB); if the pump sends high word first, set byte_order ABCD on those registers. The export's 8-bit sizes (u8, s8) are read as one 16-bit register.",
  registers: [
    input("outdoor_temperature", 1, "int16", "°C", 0.1, "Current outdoor temperature (BT1)"),
    input("flow_temperature", 5, "int16", "°C", 0.1, "Supply line temperature (BT2)"),
    input("return_temperature", 7, "int16", "°C", 0.1, "Return line temperature (BT3)"),
    input("hot_water_top", 8, "int16", "°C", 0.1, "Hot water top temperature (BT7)"),
    input("hot_water_charging", 9, "int16", "°C", 0.1, "Hot water charging temperature (BT6)"),
    input("brine_in", 10, "int16", "°C", 0.1, "Brine in temperature (BT10)"),
    input("brine_out", 11, "int16", "°C", 0.1, "Brine out temperature (BT11)"),
    input("condenser_temperature", 12, "int16", "°C", 0.1, "Condenser temperature (BT12)"),
    input("discharge_temperature", 13, "int16", "°C", 0.1, "Discharge temperature (BT14)"),
    input("liquid_line_temperature", 14, "int16", "°C", 0.1, "Liquid line temperature (BT15)"),
    input("suction_gas_temperature", 16, "int16", "°C", 0.1, "Suction gas temperature (BT17)"),
    input("outdoor_temperature_average", 37, "int16", "°C", 0.1, "Average outdoor temperature (BT1)"),
    input("calculated_flow_temperature", 1017, "int16", "°C", 0.1, "Calculated supply temperature, climate system 1"),
    input(
      "priority",
      1028,
      "uint16",
      null,
      null,
      "Operating priority: 10 off, 20 hot water, 30 heating, 40 pool, 60 cooling",
    ),
    input("compressor_frequency", 1046, "uint16", "Hz", 0.1, "Compressor frequency, current"),
    input("inverter_temperature", 1047, "int16", "°C", 0.1, "Inverter temperature"),
    input("compressor_power", 1048, "uint16", "W", null, "Compressor power input"),
    input("compressor_starts", 1083, "int32", null, null, "Number of compressor starts"),
    input("compressor_hours", 1087, "int32", "h", null, "Total run time compressor"),
    input("compressor_hours_hot_water", 1091, "int32", "h", null, "Total run time compressor, hot water"),
    input("compressor_status", 1100, "uint16", null, null, "Compressor status"),
    input("heating_pump_speed", 1102, "uint16", "%", null, "Heating medium pump speed (GP1)"),
    input("brine_pump_speed", 1104, "uint16", "%", null, "Brine pump speed (GP2)"),
    input("energy_hot_water", 1575, "uint32", "kWh", 0.1, "Energy for hot water, including internal additional heat"),
    input("energy_heating", 1577, "uint32", "kWh", 0.1, "Energy for heating, including internal additional heat"),
    input("energy_hot_water_compressor", 1583, "uint32", "kWh", 0.1, "Energy for hot water, compressor only"),
    input("energy_heating_compressor", 1585, "uint32", "kWh", 0.1, "Energy for heating, compressor only"),
    input("alarm_number", 1975, "int16", null, null, "Active alarm number (0: none)"),
    holding("degree_minutes", 11, "int32", "DM", 0.1, "Degree minutes"),
    holding("heating_offset", 30, "int16", null, null, "Heating offset, climate system 1 (-10..10)", [-10, 10]),
  ],
  examples: {
    outdoor_temperature: { words: [0xffe0], value: -3.2 },
    flow_temperature: { words: [0x0162], value: 35.4 },
    return_temperature: { words: [0x012d], value: 30.1 },
    hot_water_top: { words: [0x01f2], value: 49.8 },
    hot_water_charging: { words: [0x01d8], value: 47.2 },
    brine_in: { words: [0x0029], value: 4.1 },
    brine_out: { words: [0x000d], value: 1.3 },
    condenser_temperature: { words: [0x0171], value: 36.9 },
    discharge_temperature: { words: [0x02aa], value: 68.2 },
    liquid_line_temperature: { words: [0x014f], value: 33.5 },
    suction_gas_temperature: { words: [0x0004], value: 0.4 },
    outdoor_temperature_average: { words: [0xfff1], value: -1.5 },
    calculated_flow_temperature: { words: [0x0168], value: 36 },
    priority: { words: [0x001e], value: 30 },
    compressor_frequency: { words: [0x0271], value: 62.5 },
    inverter_temperature: { words: [0x01a1], value: 41.7 },
    compressor_power: { words: [0x073a], value: 1850 },
    compressor_starts: { words: [0x101f, 0x0000], value: 4127 },
    compressor_hours: { words: [0x2f02, 0x0000], value: 12034 },
    compressor_hours_hot_water: { words: [0x08a2, 0x0000], value: 2210 },
    compressor_status: { words: [0x003c], value: 60 },
    heating_pump_speed: { words: [0x0037], value: 55 },
    brine_pump_speed: { words: [0x0046], value: 70 },
    energy_hot_water: { words: [0xd42d, 0x0000], value: 5431.7 },
    energy_heating: { words: [0xa4ac, 0x0003], value: 23876.4 },
    energy_hot_water_compressor: { words: [0xc74f, 0x0000], value: 5102.3 },
    energy_heating_compressor: { words: [0x708a, 0x0003], value: 22541.8 },
    alarm_number: { words: [0x0000], value: 0 },
    degree_minutes: { words: [0xfb4b, 0xffff], value: -120.5 },
    heating_offset: { words: [0x0000], value: 0, fromDocument: "the export's Default value column (register 30)" },
  },
};
