/**
 * Lambda Wärmepumpen EU-L air/water heat pumps (EU08L .. EU20L) with the Lambda controller,
 * Modbus TCP (or RTU on the control unit's RS485 port).
 *
 * Source: Lambda Wärmepumpen, "Modbus Beschreibung und Protokoll", dated 13.02.2025:
 * section 3 gives the register address as index (module type) x 1000 + subindex (module
 * number) x 100 + number (data point), used as is (its own example: heat pump 2's flow line
 * temperature is 1104); General/Ambient is index 0, heat pump 1 is 1000, boiler 1 is 2000.
 * Sections 2 and 5.2: read with function code 0x03 (holding registers). Every point here is
 * one 16-bit register; the unit in brackets gives the scale ([0.01°C] is 0.01 °C per count,
 * [0.1kW] 0.1 kW).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(3, "uint16");
const int16 = registersOf(3, "int16");

export const lambdaEuL: DeviceTemplate = {
  brand: "Lambda",
  model: "EU-L",
  kind: "heat pump",
  byteOrder: "ABCD",
  pollIntervalMs: 30_000,
  source: {
    title: "Modbus Beschreibung und Protokoll (Modbus description and protocol)",
    version: "13.02.2025 (Datum on the title page and every page)",
    url: "https://lambda-wp.at/wp-content/uploads/2025/02/Modbus-Beschreibung-und-Protokoll.pdf",
    checkedWith:
      "openhab/openhab-addons binding modbus.lambda (HeatpumpBlockParser, HeatpumpHandler); evcc lambda-zewotherm template",
    checkedAgainst:
      "Sections 2 (function code 0x03), 3-3.2 (index/subindex/number addressing, example 1104), 5.1 (unit id 1, port 502); holding register tables: General Ambient (index 0, numbers 00-04), Heat pump (index 1, numbers 00-13), Boiler (index 2, numbers 02-03): name, data format and unit of each",
  },
  notes:
    "Modbus TCP on port 502, unit id 1; keep the connection open (the controller closes it after 1 min without a request, and one connection per request disturbs it). The addresses are those of the first heat pump and boiler (subindex 0); a second heat pump starts at 1100.",
  registers: [
    int16("ambient_error_number", 0, null, null, "General ambient: error number (0 = no error)"),
    uint16("ambient_operating_state", 1, null, null, "General ambient: 0 off, 1 automatic, 2 manual, 3 error"),
    int16("ambient_temperature", 2, "°C", 0.1, "Actual ambient temperature"),
    int16("ambient_temperature_average", 3, "°C", 0.1, "Arithmetic average ambient temperature of the last 60 minutes"),
    int16(
      "ambient_temperature_calculated",
      4,
      "°C",
      0.1,
      "Ambient temperature for calculations in heat distribution modules",
    ),
    uint16("error_state", 1000, null, null, "Heat pump error state: 0 none, 1 message, 2 warning, 3 alarm, 4 fault"),
    int16("error_number", 1001, null, null, "Heat pump error number (scrolls through all active errors)"),
    uint16("state", 1002, null, null, "Heat pump state (see the state table)"),
    uint16("operating_state", 1003, null, null, "Heat pump operating state (see the operating state table)"),
    int16("flow_temperature", 1004, "°C", 0.01, "Flow line temperature"),
    int16("return_temperature", 1005, "°C", 0.01, "Return line temperature"),
    int16("source_inlet_temperature", 1007, "°C", 0.01, "Energy source inlet temperature"),
    int16("source_outlet_temperature", 1008, "°C", 0.01, "Energy source outlet temperature"),
    uint16("compressor_rating", 1010, "%", 0.01, "Compressor unit rating"),
    int16("heating_capacity", 1011, "kW", 0.1, "Actual heating capacity"),
    int16("inverter_power", 1012, "W", null, "Frequency inverter actual power consumption"),
    int16(
      "cop",
      1013,
      null,
      0.01,
      "Coefficient of performance (the table prints its unit as [0.01%]: 426 is a COP of 4.26)",
    ),
    int16("boiler_temperature_high", 2002, "°C", 0.1, "Boiler 1: actual temperature, high sensor"),
    int16("boiler_temperature_low", 2003, "°C", 0.1, "Boiler 1: actual temperature, low sensor"),
  ],
  examples: {
    ambient_error_number: { words: [0x0000], value: 0 },
    ambient_operating_state: { words: [0x0001], value: 1 },
    ambient_temperature: { words: [0xffde], value: -3.4 },
    ambient_temperature_average: { words: [0xffe3], value: -2.9 },
    ambient_temperature_calculated: { words: [0xffe1], value: -3.1 },
    error_state: { words: [0x0002], value: 2 },
    error_number: { words: [0x0007], value: 7 },
    state: { words: [0x0005], value: 5 },
    operating_state: { words: [0x0002], value: 2 },
    flow_temperature: { words: [0x0d80], value: 34.56 },
    return_temperature: { words: [0x0bab], value: 29.87 },
    source_inlet_temperature: { words: [0xfec8], value: -3.12 },
    source_outlet_temperature: { words: [0xfd78], value: -6.48 },
    compressor_rating: { words: [0x109a], value: 42.5 },
    heating_capacity: { words: [0x003f], value: 6.3 },
    inverter_power: { words: [0x05c8], value: 1480 },
    cop: { words: [0x01aa], value: 4.26 },
    boiler_temperature_high: { words: [0x01e7], value: 48.7 },
    boiler_temperature_low: { words: [0x019c], value: 41.2 },
  },
};
