/**
 * Belimo VAV-Compact with Modbus RTU (the ...-D3-MOD volumetric flow controllers for VAV
 * boxes; sold under other brands too, e.g. Systemair OPTIMA ...BLC1MOD).
 *
 * Source: Belimo, "VAV-Compact Modbus Register" (en-gb, 2019-03), Modbus register
 * description: "No." counts from 1, "Address" is the protocol address (No. - 1); holding
 * registers (function code 03 to read, 06/16 to write), 16-bit, "Scaling" 0.01 for the
 * percentages (0..10000 = 0..100 %). The defaults the register description gives (Setpoint
 * "Default: 0", Override Control "Default: None(0)") are the examples of those two registers.
 */
import { registersOf, writable } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(3, "uint16");

export const belimoVavCompact: DeviceTemplate = {
  brand: "Belimo",
  model: "VAV-Compact MOD",
  kind: "climate controller",
  byteOrder: "ABCD",
  pollIntervalMs: 10_000,
  source: {
    title: "VAV-Compact Modbus Register (volumetric flow compact control device)",
    version: "en-gb, 2019-03",
    url: "https://www.manualshelf.com/manual/systemair/116727/modbus-registers-optima-blc1mod-english/page-4.html",
    checkedAgainst:
      "Modbus Register Description, page 4 (No. 1-13: address, description, range, default, unit, scaling and access of Setpoint, Override Control, Actuator Type, Relative Position, Relative volumetric flow, Setpoint Analog) and page 6 (No. 119 Setpoint Source: 0 Analog, 1 Bus, default Bus)",
  },
  notes:
    "Set the Modbus address and baud rate with Belimo's Assistant app or ZTH-EU. The setpoint is taken from the bus only when Setpoint Source (No. 119) is Bus; it lies between the Min and Max limits set on the device.",
  registers: [
    writable(
      uint16("setpoint", 0, "%", 0.01, "Setpoint, between the Min and Max limits (0..10000 = 0..100 %)"),
      0,
      100,
    ),
    writable(
      uint16("override_control", 1, null, null, "Override control: 0 none, 1 open, 2 close, 3 Min, 4 Mid, 5 Max"),
      0,
      5,
    ),
    uint16(
      "actuator_type",
      3,
      null,
      null,
      "Actuator type: 0 not connected, 1 air/water, 2 VAV/EPIV, 3 fire, 4 Energy Valve, 5 6-way EPIV",
    ),
    uint16("relative_position", 4, "%", 0.01, "Relative position"),
    uint16("relative_flow", 6, "%", 0.01, "Relative volumetric flow of Vnom"),
    uint16("setpoint_analog", 12, "%", 0.01, "Setpoint from the analog signal, when controlled by it"),
  ],
  examples: {
    setpoint: { words: [0x0000], value: 0, fromDocument: "page 4, No. 1 Setpoint (Default: 0)" },
    override_control: { words: [0x0000], value: 0, fromDocument: "page 4, No. 2 Override Control (Default: None(0))" },
    actuator_type: { words: [0x0002], value: 2 },
    relative_position: { words: [0x12db], value: 48.27 },
    relative_flow: { words: [0x18a8], value: 63.12 },
    setpoint_analog: { words: [0x1388], value: 50 },
  },
};
