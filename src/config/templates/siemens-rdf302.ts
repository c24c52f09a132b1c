/**
 * Siemens RDF302, flush-mounted room thermostat for fan coils and other HVAC terminal units
 * (2-pipe, 4-pipe, electric heater), Modbus RTU.
 *
 * Source: Siemens, "RDF302 Basic documentation" CE1P3079en (2020-12-01), section 3.12.2
 * "Description of communication objects" (pages 45-46): address (decimal), function code
 * 0x04 (read input registers) or 0x03/0x06 (holding, read/write), "Special process x50" =
 * the value times 50, default and value range of each object. The edition of 2020-02-21
 * writes the same objects as Modicon register numbers (31001, 40103): the addresses are
 * 1-based, so object "Room operating mode: State" at 1001 is read at protocol address 1000
 * and "Comfort setpoint" 0103 at 102. A temperature input out of service reads 0xffff.
 * The examples of objects with a documented default (Comfort, Close, heating, automatic
 * fan) are those defaults.
 */
import type { DeviceTemplate, TemplateRegister } from "./types.ts";

/** Object at `documented` address (1-based) in the Siemens table. */
function object(
  name: string,
  documented: number,
  functionCode: 3 | 4,
  unit: string | null,
  scaleFactor: number | null,
  description: string,
  writeRange?: [min: number, max: number],
): TemplateRegister {
  const register: TemplateRegister = {
    name,
    address: documented - 1,
    functionCode,
    dataType: "int16",
    unit,
    scaleFactor,
    description,
  };
  return writeRange === undefined ? register : { ...register, writable: true, min: writeRange[0], max: writeRange[1] };
}

/** A temperature object whose 0xffff (-1 as int16) means "out of service". */
function temperature(name: string, documented: number, description: string): TemplateRegister {
  return { ...object(name, documented, 4, "°C", 0.02, description), notImplemented: -1 };
}

const table = "section 3.12.2";

export const siemensRdf302: DeviceTemplate = {
  brand: "Siemens",
  model: "RDF302",
  kind: "climate controller",
  byteOrder: "ABCD",
  pollIntervalMs: 30_000,
  source: {
    title: "RDF302 Basic documentation, section 3.12.2 (description of communication objects)",
    version: "CE1P3079en, 2020-12-01",
    url: "https://sid.siemens.com/r/A6V10350339/83f1ef79adfa53cd8703a4a587eb2d712ed3f74e9acaec874c79234c97413a99-description-of-communication-objects",
    checkedWith: "wirenboard/wb-mqtt-serial templates/config-siemens-rdf302.json",
    checkedAgainst:
      "section 3.11 (address, baud rate, parity); section 3.12.2, objects 2-8 and 10-12 (input registers 1001-1010: function code 0x04, x50, defaults, ranges, 0xffff out of service) and objects 17-19 and 21 (holding registers 0103-0105, 0107: function codes 0x03/0x06, x50, ranges, defaults); the 2020-02-21 edition's Modicon numbers (31001, 40103) for the 1-based addressing",
  },
  notes:
    "Factory settings (section 3.11): 19200 bps (parameter P68), even parity (P70), device address 1 (P81); a change takes effect after the supply is switched off and on. Temperatures are sent times 50 (scale 0.02); a temperature input out of service reads 0xffff and is stored as no value.",
  registers: [
    object("operating_mode", 1001, 4, null, null, "Room operating mode: State (1 Comfort, 3 Economy, 4 Protection)"),
    object("fan_output", 1002, 4, "%", null, "Fan output: 0 off, 33 low, 66 medium, 100 high"),
    temperature("room_temperature", 1003, "Room temperature (0 ... 49 °C)"),
    object("current_setpoint", 1004, 4, "°C", 0.02, "Room temperature: current setpoint (5 ... 40 °C)"),
    object("heating_output", 1005, 4, "%", null, "Heating output (0 ... 100)"),
    object("cooling_output", 1006, 4, "%", null, "Cooling output (0 ... 100)"),
    object("electric_heater_output", 1007, 4, "%", null, "Electric heater output (0 ... 100)"),
    temperature("x1_temperature", 1008, "X1 input temperature, when X1 is a temperature input (0 ... 49 °C)"),
    temperature("x2_temperature", 1009, "X2 input temperature, when X2 is a temperature input (0 ... 49 °C)"),
    object("fan_operation", 1010, 4, null, null, "Fan operation: 0 automatic, 1 manual"),
    object("comfort_setpoint", 103, 3, "°C", 0.02, "Room temperature: Comfort setpoint (5 ... 40 °C)", [5, 40]),
    object(
      "outside_temperature",
      104,
      3,
      "°C",
      0.02,
      "Outside temperature, written via the bus (0 ... 49 °C)",
      [0, 49],
    ),
    object("window_state", 105, 3, null, null, "Room operating mode: Window state (0 close, 1 open)", [0, 1]),
    object("heating_cooling", 107, 3, null, null, "Heating/cooling changeover (0 cooling, 1 heating)", [0, 1]),
  ],
  examples: {
    operating_mode: { words: [0x0001], value: 1, fromDocument: `${table}, object 2, default Comfort` },
    fan_output: { words: [0x0021], value: 33 },
    room_temperature: { words: [0x0433], value: 21.5 },
    current_setpoint: { words: [0x041a], value: 21 },
    heating_output: { words: [0x0028], value: 40 },
    cooling_output: { words: [0x0019], value: 25 },
    electric_heater_output: { words: [0x003c], value: 60 },
    x1_temperature: { words: [0x0390], value: 18.24 },
    x2_temperature: { words: [0x0109], value: 5.3 },
    fan_operation: { words: [0x0000], value: 0, fromDocument: `${table}, object 12, default 0 (automatic)` },
    comfort_setpoint: { words: [0x0410], value: 20.8 },
    outside_temperature: { words: [0x00e1], value: 4.5 },
    window_state: { words: [0x0000], value: 0, fromDocument: `${table}, object 19, default 0 = Close` },
    heating_cooling: { words: [0x0001], value: 1, fromDocument: `${table}, object 21, default heating (1)` },
  },
};
