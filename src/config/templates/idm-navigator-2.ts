/**
 * iDM heat pumps (AERO SLM, TERRA) with the NAVIGATOR 2.0 controller, Modbus TCP.
 *
 * Source: iDM Energiesysteme, "Technische Unterlagen, Installationsanleitung: Modbus TCP
 * Navigatorregelung 2.0", 812170 Rev.10 (parameter list "Stand: 20.04.2022", controller
 * software 20.21-101): section 4.1 "Parameterliste" gives the protocol addresses in decimal
 * (read with function code 03), port 502 and unit id 1; section 4.2 "Datentypen": a FLOAT
 * is IEEE 754 in two registers, Reg_L (bits 15..0) first, so low word first (CDAB).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(3, "float32");

export const idmNavigator2: DeviceTemplate = {
  brand: "iDM",
  model: "NAVIGATOR 2.0",
  kind: "heat pump",
  byteOrder: "CDAB",
  pollIntervalMs: 30_000,
  source: {
    title: "Technische Unterlagen, Installationsanleitung: Modbus TCP Navigatorregelung 2.0",
    version: "812170 Rev.10 (parameter list of 20.04.2022, controller software 20.21-101)",
    checkedWith:
      "evcc idm template (1008, 1012, 1014, 4122 as float32, low word first); Home Assistant idm_heatpump integrations",
    checkedAgainst:
      'Section 4.1 "Parameterliste" (header: port 502, unit id 1; rows 1000, 1002, 1008, 1012, 1014, 1050, 1052, 1750 with footnote 1, 4122: address, data type FLOAT, access RO and unit of each) and section 4.2 "Datentypen" (32-bit values Reg_L first)',
  },
  notes:
    "Enable Modbus TCP on the NAVIGATOR (installer level, section 3.1); port 502, unit id 1. The total heat quantity is calculated (heating + hot water) on systems without a Vortex flow sensor.",
  registers: [
    float("outdoor_temperature", 1000, "°C", null, "Outdoor temperature (B32)"),
    float("outdoor_temperature_average", 1002, "°C", null, "Averaged outdoor temperature"),
    float("heat_storage_temperature", 1008, "°C", null, "Heat storage temperature (B38)"),
    float("hot_water_bottom", 1012, "°C", null, "Domestic hot water tank temperature, bottom (B41)"),
    float("hot_water_top", 1014, "°C", null, "Domestic hot water tank temperature, top (B48)"),
    float("flow_temperature", 1050, "°C", null, "Heat pump flow temperature (B33)"),
    float("return_temperature", 1052, "°C", null, "Heat pump return temperature (B34)"),
    float(
      "heat_quantity_total",
      1750,
      "kWh",
      null,
      "Heat quantity, total (note 1: calculated without a Vortex sensor)",
    ),
    float("electrical_power", 4122, "kW", null, "Current power consumption of the heat pump"),
  ],
  examples: {
    outdoor_temperature: { words: [0x0000, 0xc020], value: -2.5 },
    outdoor_temperature_average: { words: [0x0000, 0xbfa0], value: -1.25 },
    heat_storage_temperature: { words: [0x0000, 0x421a], value: 38.5 },
    hot_water_bottom: { words: [0x0000, 0x4231], value: 44.25 },
    hot_water_top: { words: [0x0000, 0x424e], value: 51.5 },
    flow_temperature: { words: [0x0000, 0x4213], value: 36.75 },
    return_temperature: { words: [0x0000, 0x41fc], value: 31.5 },
    heat_quantity_total: { words: [0x7500, 0x468e], value: 18234.5 },
    electrical_power: { words: [0x0000, 0x3ff0], value: 1.875 },
  },
};
