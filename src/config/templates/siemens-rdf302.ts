/**
 * Siemens RDF302, flush-mounted room thermostat for fan coils and other HVAC terminal units
 * (2-pipe, 4-pipe, electric heater), Modbus RTU.
 *
 * Source: Siemens, "RDF302 Basic documentation" CE1P3079en (2020-12-01), section 3.12.2
 * "Description of communication objects": address (decimal), function code 0x04 (read input
 * registers) or 0x03/0x06 (holding, read/write), "Special process x50" = the value times 50.
 * (Siemens download center, document CE1P3079en; pages 45-48 hold the object table).
 * The table's addresses are 1-based: object "Room operating mode: State" at 1001 is read at
 * protocol address 1000 (0x03E8), plant type 0109 at 108 (0x006C), as Wiren Board's
 * wb-mqtt-serial template config-siemens-rdf302.json reads them.
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

export const siemensRdf302: DeviceTemplate = {
  brand: "Siemens",
  model: "RDF302",
  kind: "climate controller",
  byteOrder: "ABCD",
  pollIntervalMs: 30_000,
  source: {
    title: "RDF302 Basic documentation, section 3.12.2 (description of communication objects)",
    version: "CE1P3079en, 2020-12-01",
    checkedWith: "wirenboard/wb-mqtt-serial templates/config-siemens-rdf302.json",
  },
  notes:
    "Factory settings: 19200 baud, 8 data bits, even parity, 1 stop bit (parameters P68..P70); set the slave id with P81. Temperatures are sent times 50 (scale 0.02); a failed sensor reads 0xFFFF (-0.02 °C).",
  registers: [
    object("operating_mode", 1001, 4, null, null, "Room operating mode: 1 Comfort, 3 Economy, 4 Protection"),
    object("fan_output", 1002, 4, "%", null, "Fan output: 0 off, 33 low, 66 medium, 100 high"),
    object("room_temperature", 1003, 4, "°C", 0.02, "Room temperature"),
    object("current_setpoint", 1004, 4, "°C", 0.02, "Room temperature: current setpoint"),
    object("heating_output", 1005, 4, "%", null, "Heating output"),
    object("cooling_output", 1006, 4, "%", null, "Cooling output"),
    object("electric_heater_output", 1007, 4, "%", null, "Electric heater output"),
    object("x1_temperature", 1008, 4, "°C", 0.02, "X1 input temperature (when X1 is a temperature input)"),
    object("x2_temperature", 1009, 4, "°C", 0.02, "X2 input temperature (when X2 is a temperature input)"),
    object("fan_operation", 1010, 4, null, null, "Fan operation: 0 automatic, 1 manual"),
    object("comfort_setpoint", 103, 3, "°C", 0.02, "Room temperature: comfort setpoint (5..40 °C)", [5, 40]),
    object("outside_temperature", 104, 3, "°C", 0.02, "Outside temperature (written via the bus)", [-50, 50]),
    object("window_state", 105, 3, null, null, "Window state: 0 closed, 1 open", [0, 1]),
    object("heating_cooling", 107, 3, null, null, "Heating/cooling changeover: 0 cooling, 1 heating", [0, 1]),
  ],
  examples: {
    operating_mode: { words: [0x0001], value: 1 },
    fan_output: { words: [0x0021], value: 33 },
    room_temperature: { words: [0x0433], value: 21.5 },
    current_setpoint: { words: [0x041a], value: 21 },
    heating_output: { words: [0x0028], value: 40 },
    cooling_output: { words: [0x0000], value: 0 },
    electric_heater_output: { words: [0x0000], value: 0 },
    x1_temperature: { words: [0x0390], value: 18.24 },
    x2_temperature: { words: [0xff1f], value: -4.5 },
    fan_operation: { words: [0x0000], value: 0 },
    comfort_setpoint: { words: [0x041a], value: 21 },
    outside_temperature: { words: [0xff1f], value: -4.5 },
    window_state: { words: [0x0000], value: 0 },
    heating_cooling: { words: [0x0001], value: 1 },
  },
};
