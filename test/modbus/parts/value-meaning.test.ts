/**
 * Scale factors read from the device and not-implemented values without sockets
 * (docs/polling.md, "Scale factors read from the device", "Not-implemented values"):
 * the planner reads a scale-factor register in every poll group of a register it
 * scales, and a cycle's values come out scaled by the exponent read with them, null
 * where the device says "not implemented", and left out where the exponent is missing.
 */
import { describe, expect, test } from "bun:test";
import type { PolledValue } from "../../../src/lib/polled-value.ts";
import { scaleValue } from "../../../src/lib/register-scaling.ts";
import { pollGroups } from "../../../src/modbus/plan.ts";
import type { PolledRegister } from "../../../src/modbus/polling-config.ts";
import { powerOfTen, settleValues } from "../../../src/modbus/value-meaning.ts";
import { holdingRegister } from "./polling-fixtures.ts";

const power = holdingRegister("power", 0, { dataType: "uint16", scaleFactorRegisterId: "sf", pollIntervalMs: 1000 });
const energy = holdingRegister("energy", 1, { dataType: "uint16", scaleFactorRegisterId: "sf" });
const sf = holdingRegister("sf", 2, { notImplemented: -0x8000 });
const flag = holdingRegister("flag", 3, { dataType: "uint16", notImplemented: 0xffff });
const registers = new Map<string, PolledRegister>([power, energy, sf, flag].map((register) => [register.id, register]));

const cycle = (raw: Record<string, number | null>): PolledValue[] =>
  Object.entries(raw).map(([registerId, value]) => ({ registerId, ts: 0, raw: value }));

describe("scale factors read from the device", () => {
  test("the scale-factor register is read in every poll group of a register it scales", () => {
    const groups = pollGroups([power, energy, sf, flag], 60_000);
    expect(groups.map((group) => [group.intervalMs, group.registers.map((register) => register.id)])).toEqual([
      [1000, ["power", "sf"]],
      [60_000, ["energy", "sf", "flag"]],
    ]);
  });

  test("value = raw x 10^sf with the exponent of the same cycle; raw stays raw", () => {
    const values = settleValues(cycle({ power: 12345, energy: 7, sf: -1, flag: 3 }), registers);
    expect(values.find((value) => value.registerId === "power")).toMatchObject({ raw: 12345, scaleFactor: 0.1 });
    expect(values.find((value) => value.registerId === "energy")).toMatchObject({ raw: 7, scaleFactor: 0.1 });
    const scaled = values.find((value) => value.registerId === "power");
    expect(scaleValue(scaled?.raw ?? null, scaled?.scaleFactor ?? null)).toBe(1234.5);
    expect(powerOfTen(3)).toBe(1000);
    expect(scaleValue(523, powerOfTen(-2))).toBe(5.23);
  });

  test("a not-implemented exponent makes the value null; a missing one leaves the value out", () => {
    const notImplemented = settleValues(cycle({ power: 12345, sf: -0x8000 }), registers);
    expect(notImplemented.find((value) => value.registerId === "power")?.raw).toBeNull();
    expect(notImplemented.find((value) => value.registerId === "sf")?.raw).toBeNull();
    // The scale-factor request failed this cycle: no value can be told for power.
    expect(settleValues(cycle({ power: 12345, flag: 1 }), registers).map((value) => value.registerId)).toEqual([
      "flag",
    ]);
  });
});

describe("not-implemented values", () => {
  test("a register's not_implemented raw value reads as null; any other value as itself", () => {
    expect(settleValues(cycle({ flag: 0xffff }), registers)[0]?.raw).toBeNull();
    expect(settleValues(cycle({ flag: 0xfffe }), registers)[0]?.raw).toBe(0xfffe);
    // A register without not_implemented keeps 0xFFFF as a number.
    expect(settleValues(cycle({ other: 0xffff }), registers)[0]?.raw).toBe(0xffff);
  });
});
