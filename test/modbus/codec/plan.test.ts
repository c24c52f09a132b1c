import { describe, expect, test } from "bun:test";
import {
  breakKey,
  type PlanOptions,
  planReadRequests,
  type ReadRequest,
  splitRequest,
} from "../../../src/modbus/plan.ts";
import {
  type DataType,
  type FunctionCode,
  type RegisterDecoding,
  registerSpan,
} from "../../../src/modbus/register-model.ts";
import { seededRandom } from "../../harness/seeded-random.ts";

let nextId = 0;
function reg(
  functionCode: FunctionCode,
  address: number,
  dataType: DataType = functionCode <= 2 ? "bool" : "uint16",
  extra: Partial<RegisterDecoding> = {},
): RegisterDecoding {
  return {
    id: `r${nextId++}`,
    functionCode,
    address,
    dataType,
    byteOrder: "ABCD",
    bit: dataType === "bool" && functionCode >= 3 ? 0 : null,
    length: dataType === "string" ? 1 : null,
    ...extra,
  };
}

const defaults: PlanOptions = { maxRegisters: 125, maxBits: 2000, maxGap: 0 };
const shape = (requests: ReadRequest[]) => requests.map((r) => [r.functionCode, r.start, r.count]);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

// --- The rules, written again from the brief, independently of the planner. ---

function maxFor(functionCode: FunctionCode, options: PlanOptions): number {
  return functionCode <= 2 ? options.maxBits : options.maxRegisters;
}

function breaksOf(functionCode: FunctionCode, options: PlanOptions): number[] {
  return [...(options.breaks ?? [])]
    .filter((key) => key.startsWith(`${functionCode}:`))
    .map((key) => Number(key.split(":")[1]));
}

/** Whether one request may read exactly this group of registers. */
function validGroup(group: readonly RegisterDecoding[], options: PlanOptions): boolean {
  if (group.length === 0) return false;
  const functionCode = group[0]!.functionCode;
  if (group.some((r) => r.functionCode !== functionCode)) return false;
  const max = maxFor(functionCode, options);
  // An oversize register is read alone.
  if (group.some((r) => registerSpan(r) > max)) return group.length === 1;
  const start = Math.min(...group.map((r) => r.address));
  const end = Math.max(...group.map((r) => r.address + registerSpan(r)));
  if (end - start > max) return false;
  const needed = new Array<boolean>(end - start).fill(false);
  for (const r of group) for (let a = r.address; a < r.address + registerSpan(r); a++) needed[a - start] = true;
  let run = 0;
  for (const isNeeded of needed) {
    run = isNeeded ? 0 : run + 1;
    if (run > options.maxGap) return false;
  }
  // A break separates registers starting before it from those starting at or after it.
  for (const b of breaksOf(functionCode, options)) {
    if (group.some((r) => r.address < b) && group.some((r) => r.address >= b)) return false;
  }
  return true;
}

/** Exhaustive reference: the fewest valid groups partitioning `registers` (DP over subsets; small n only). */
function fewestRequests(registers: readonly RegisterDecoding[], options: PlanOptions): number {
  const n = registers.length;
  const full = (1 << n) - 1;
  const valid = new Array<boolean>(full + 1).fill(false);
  for (let mask = 1; mask <= full; mask++) {
    valid[mask] = validGroup(
      registers.filter((_, i) => mask & (1 << i)),
      options,
    );
  }
  const best = new Array<number>(full + 1).fill(Number.POSITIVE_INFINITY);
  best[0] = 0;
  for (let mask = 1; mask <= full; mask++) {
    const lowest = mask & -mask;
    // Every subset of mask holding its lowest member: the group that member belongs to.
    for (let sub = mask; sub > 0; sub = (sub - 1) & mask) {
      if (sub & lowest && valid[sub]) best[mask] = Math.min(best[mask]!, best[mask ^ sub]! + 1);
    }
  }
  return best[full]!;
}

/** Everything a plan must satisfy, whatever its size. */
function expectValidPlan(registers: readonly RegisterDecoding[], options: PlanOptions, plan: ReadRequest[]): void {
  const seen = new Map<RegisterDecoding, number>();
  for (const request of plan) {
    expect(request.registers.length).toBeGreaterThan(0);
    expect(request.registers.every((r) => r.functionCode === request.functionCode)).toBe(true);
    expect(validGroup(request.registers, options)).toBe(true);
    // Tight: starts at its first register and ends with its last.
    expect(request.start).toBe(Math.min(...request.registers.map((r) => r.address)));
    expect(request.start + request.count).toBe(Math.max(...request.registers.map((r) => r.address + registerSpan(r))));
    const addresses = request.registers.map((r) => r.address);
    expect(addresses).toEqual([...addresses].sort((a, b) => a - b));
    // The break rule as the brief words it: a request reads across a break only
    // when one of its registers itself straddles it.
    for (const b of breaksOf(request.functionCode, options)) {
      if (request.start < b && b < request.start + request.count) {
        expect(request.registers.some((r) => r.address < b && b < r.address + registerSpan(r))).toBe(true);
      }
    }
    for (const r of request.registers) seen.set(r, (seen.get(r) ?? 0) + 1);
  }
  // Every register exactly once (by identity, so duplicates by value count separately).
  expect(seen.size).toBe(registers.length);
  for (const r of registers) expect(seen.get(r)).toBe(1);
  for (let i = 1; i < plan.length; i++) {
    const a = plan[i - 1]!;
    const b = plan[i]!;
    expect(a.functionCode < b.functionCode || (a.functionCode === b.functionCode && a.start <= b.start)).toBe(true);
  }
}

describe("planReadRequests: the physics examples", () => {
  test("125 contiguous holding registers are one request", () => {
    const registers = range(0, 125).map((a) => reg(3, a));
    const plan = planReadRequests(registers, defaults);
    expect(shape(plan)).toEqual([[3, 0, 125]]);
    expect(plan[0]!.registers).toEqual(registers);
  });

  test("126 contiguous holding registers are two", () => {
    const plan = planReadRequests(
      range(0, 126).map((a) => reg(3, a)),
      defaults,
    );
    expect(shape(plan)).toEqual([
      [3, 0, 125],
      [3, 125, 1],
    ]);
  });

  test("62 float32 fill 124 words; a 63rd does not fit and starts the next request", () => {
    const plan = planReadRequests(
      range(0, 63).map((i) => reg(4, 100 + 2 * i, "float32")),
      defaults,
    );
    expect(shape(plan)).toEqual([
      [4, 100, 124],
      [4, 224, 2],
    ]);
  });

  test("2000 coils are one request, 2001 two; maxBits bounds bits, not maxRegisters", () => {
    expect(
      shape(
        planReadRequests(
          range(0, 2000).map((a) => reg(1, a)),
          defaults,
        ),
      ),
    ).toEqual([[1, 0, 2000]]);
    expect(
      shape(
        planReadRequests(
          range(0, 2001).map((a) => reg(2, a)),
          defaults,
        ),
      ),
    ).toEqual([
      [2, 0, 2000],
      [2, 2000, 1],
    ]);
    expect(
      shape(
        planReadRequests(
          range(0, 20).map((a) => reg(1, a)),
          { ...defaults, maxBits: 8 },
        ),
      ),
    ).toEqual([
      [1, 0, 8],
      [1, 8, 8],
      [1, 16, 4],
    ]);
  });
});

describe("planReadRequests: gaps", () => {
  const options = { ...defaults, maxGap: 3 };
  const withGap = (gap: number) => [reg(3, 10), reg(3, 11 + gap)];

  test("a gap below maxGap is read through", () => {
    expect(shape(planReadRequests(withGap(2), options))).toEqual([[3, 10, 4]]);
  });

  test("a gap of exactly maxGap is read through", () => {
    expect(shape(planReadRequests(withGap(3), options))).toEqual([[3, 10, 5]]);
  });

  test("a gap above maxGap splits", () => {
    expect(shape(planReadRequests(withGap(4), options))).toEqual([
      [3, 10, 1],
      [3, 15, 1],
    ]);
  });

  test("maxGap 0 reads only adjacent registers together", () => {
    expect(shape(planReadRequests([reg(3, 0), reg(3, 1, "float32"), reg(3, 4)], defaults))).toEqual([
      [3, 0, 3],
      [3, 4, 1],
    ]);
  });

  test("the gap is measured from the end of a wide register, not its start", () => {
    const registers = [reg(3, 0, "float64"), reg(3, 7)]; // float64 ends at 4: gap 3
    expect(shape(planReadRequests(registers, options))).toEqual([[3, 0, 8]]);
    expect(shape(planReadRequests(registers, { ...options, maxGap: 2 }))).toEqual([
      [3, 0, 4],
      [3, 7, 1],
    ]);
  });
});

describe("planReadRequests: overlaps, function codes, breaks", () => {
  test("all sixteen bits of one word and the word itself are one read of one word", () => {
    const bits = range(0, 16).map((bit) => reg(3, 40, "bool", { bit }));
    const word = reg(3, 40, "uint16");
    const plan = planReadRequests([...bits, word], defaults);
    expect(shape(plan)).toEqual([[3, 40, 1]]);
    expect(plan[0]!.registers).toEqual([...bits, word]);
  });

  test("duplicates and overlapping registers are each read once", () => {
    const a = reg(3, 5, "float32");
    const b = reg(3, 5, "float32");
    const c = reg(3, 6, "int16"); // the low word of a and b
    const plan = planReadRequests([c, b, a], defaults);
    expect(shape(plan)).toEqual([[3, 5, 2]]);
    expect(plan[0]!.registers).toEqual([b, a, c]);
  });

  test("function codes are never merged, and come out in function-code order", () => {
    const registers = [reg(4, 0), reg(3, 1), reg(2, 0), reg(1, 1), reg(3, 0), reg(4, 1), reg(1, 0)];
    expect(shape(planReadRequests(registers, defaults))).toEqual([
      [1, 0, 2],
      [2, 0, 1],
      [3, 0, 2],
      [4, 0, 2],
    ]);
  });

  test("a break makes a request start at its address", () => {
    const registers = range(0, 10).map((a) => reg(3, a));
    const breaks = new Set([breakKey(3, 5)]);
    expect(shape(planReadRequests(registers, { ...defaults, breaks }))).toEqual([
      [3, 0, 5],
      [3, 5, 5],
    ]);
  });

  test("a break of another function code changes nothing", () => {
    const registers = range(0, 10).map((a) => reg(3, a));
    const breaks = new Set([breakKey(4, 5), breakKey(1, 5)]);
    expect(shape(planReadRequests(registers, { ...defaults, breaks }))).toEqual([[3, 0, 10]]);
  });

  test("a break inside a gap or inside a register", () => {
    const options = { ...defaults, maxGap: 10 };
    // In a gap: the right part starts at its first register.
    expect(shape(planReadRequests([reg(3, 0), reg(3, 8)], { ...options, breaks: new Set([breakKey(3, 4)]) }))).toEqual([
      [3, 0, 1],
      [3, 8, 1],
    ]);
    // Inside a float32 at 4..5: that register is unavoidably read across it, nothing else joins it across.
    const registers = [reg(3, 3), reg(3, 4, "float32"), reg(3, 6)];
    expect(shape(planReadRequests(registers, { ...options, breaks: new Set([breakKey(3, 5)]) }))).toEqual([
      [3, 3, 3],
      [3, 6, 1],
    ]);
  });
});

describe("planReadRequests: oversize registers and tiny limits", () => {
  test("a string wider than maxRegisters gets a request of exactly its span, alone", () => {
    const long = reg(3, 0, "string", { length: 130 });
    const inside = reg(3, 20);
    const after = reg(3, 130);
    const plan = planReadRequests([after, inside, long], defaults);
    expect(shape(plan)).toEqual([
      [3, 0, 130],
      [3, 20, 1],
      [3, 130, 1],
    ]);
    expect(plan[0]!.registers).toEqual([long]);
  });

  test("maxRegisters 1: one request per word-sized register, wider ones alone at their span", () => {
    const registers = [reg(3, 0), reg(3, 1), reg(3, 2), reg(3, 10, "float32"), reg(3, 10, "bool", { bit: 3 })];
    expect(shape(planReadRequests(registers, { ...defaults, maxRegisters: 1, maxGap: 5 }))).toEqual([
      [3, 0, 1],
      [3, 1, 1],
      [3, 2, 1],
      [3, 10, 1],
      [3, 10, 2],
    ]);
  });

  test("a wide register that sticks out of the window does not hold back the narrow ones inside it", () => {
    // Window from 0 is [0, 4): the float64 at 1 ends at 5, but 2 and 3 still fit with 0 (gap 1 at address 1).
    const registers = [reg(3, 0), reg(3, 1, "float64"), reg(3, 2), reg(3, 3)];
    const options = { ...defaults, maxRegisters: 4, maxGap: 1 };
    const plan = planReadRequests(registers, options);
    expect(shape(plan)).toEqual([
      [3, 0, 4],
      [3, 1, 4],
    ]);
    expect(plan[0]!.registers.map((r) => r.address)).toEqual([0, 2, 3]);
    expectValidPlan(registers, options, plan);
  });

  test("no registers, no requests", () => {
    expect(planReadRequests([], defaults)).toEqual([]);
  });

  test("options outside their ranges are refused", () => {
    const registers = [reg(3, 0)];
    expect(() => planReadRequests(registers, { ...defaults, maxRegisters: 0 })).toThrow(RangeError);
    expect(() => planReadRequests(registers, { ...defaults, maxRegisters: 126 })).toThrow(RangeError);
    expect(() => planReadRequests(registers, { ...defaults, maxBits: 2001 })).toThrow(RangeError);
    expect(() => planReadRequests(registers, { ...defaults, maxGap: -1 })).toThrow(RangeError);
    expect(() => planReadRequests(registers, { ...defaults, maxGap: 1.5 })).toThrow(RangeError);
  });

  test("the caller's array is left as it was", () => {
    const registers = [reg(3, 9), reg(3, 1)];
    const copy = [...registers];
    planReadRequests(registers, defaults);
    expect(registers).toEqual(copy);
  });
});

describe("splitRequest", () => {
  test("splits at the middle register, each half tight around its registers", () => {
    const registers = [reg(3, 0), reg(3, 1, "float32"), reg(3, 10), reg(3, 11)];
    const [request] = planReadRequests(registers, { ...defaults, maxGap: 10 });
    expect(shape([request!])).toEqual([[3, 0, 12]]);
    const halves = splitRequest(request!);
    expect(halves).not.toBeNull();
    const [left, right] = halves!;
    expect(shape([left, right])).toEqual([
      [3, 0, 3],
      [3, 10, 2],
    ]);
    expect(left.registers).toEqual(registers.slice(0, 2));
    expect(right.registers).toEqual(registers.slice(2));
  });

  test("odd counts, and registers handed over out of order", () => {
    const [a, b, c] = [reg(4, 7), reg(4, 3), reg(4, 5)];
    const halves = splitRequest({ functionCode: 4, start: 3, count: 5, registers: [a, b, c] })!;
    expect(halves.map((h) => h.registers.map((r) => r.address))).toEqual([[3], [5, 7]]);
    expect(shape(halves)).toEqual([
      [4, 3, 1],
      [4, 5, 3],
    ]);
  });

  test("never cuts between registers at the same address", () => {
    const bits = range(0, 3).map((bit) => reg(3, 20, "bool", { bit }));
    const word = reg(3, 21);
    const halves = splitRequest({ functionCode: 3, start: 20, count: 2, registers: [...bits, word] })!;
    expect(halves.map((h) => h.registers)).toEqual([bits, [word]]);
  });

  test("null for one register, or for registers all at one address", () => {
    expect(splitRequest({ functionCode: 3, start: 0, count: 1, registers: [reg(3, 0)] })).toBeNull();
    const bits = range(0, 4).map((bit) => reg(3, 0, "bool", { bit }));
    expect(splitRequest({ functionCode: 3, start: 0, count: 1, registers: bits })).toBeNull();
  });

  test("a break at the right half's first address makes the next plan keep the halves apart", () => {
    const registers = range(0, 8).map((a) => reg(3, a));
    const [request] = planReadRequests(registers, defaults);
    const [, right] = splitRequest(request!)!;
    const breaks = new Set([breakKey(right.functionCode, right.start)]);
    expect(shape(planReadRequests(registers, { ...defaults, breaks }))).toEqual([
      [3, 0, 4],
      [3, 4, 4],
    ]);
  });

  test("splitting again and again reaches single registers", () => {
    const registers = range(0, 37).map((a) => reg(3, a * 2, a % 3 === 0 ? "float32" : "uint16"));
    const pending = planReadRequests(registers, { ...defaults, maxGap: 2 });
    const singles: ReadRequest[] = [];
    while (pending.length > 0) {
      const request = pending.pop()!;
      const halves = splitRequest(request);
      if (halves === null) singles.push(request);
      else pending.push(...halves);
    }
    expect(singles).toHaveLength(37);
    expect(new Set(singles.flatMap((r) => r.registers))).toEqual(new Set(registers));
  });
});

// --- Random register maps against the exhaustive reference. ---

function randomMap(random: () => number, n: number): { registers: RegisterDecoding[]; options: PlanOptions } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const mixedCodes = random() < 0.3;
  const registers: RegisterDecoding[] = [];
  let address = Math.floor(random() * 4);
  for (let i = 0; i < n; i++) {
    const functionCode: FunctionCode = mixedCodes ? pick([1, 2, 3, 4] as const) : 3;
    const dataType =
      functionCode <= 2
        ? "bool"
        : pick(["uint16", "int16", "bool", "bool", "float32", "int32", "int64", "string"] as const);
    registers.push(
      reg(functionCode, address, dataType, {
        bit: dataType === "bool" && functionCode >= 3 ? Math.floor(random() * 16) : null,
        length: dataType === "string" ? 1 + Math.floor(random() * 7) : null,
      }),
    );
    // Next address: the same (overlap, duplicate), just after, or a random gap; sometimes a step back.
    address = Math.max(0, address + pick([0, 0, 1, 1, 2, 3, 4, 6, 9, -1, -2]));
  }
  // Shuffle: the planner must not rely on the caller's order.
  for (let i = registers.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [registers[i], registers[j]] = [registers[j]!, registers[i]!];
  }
  const breaks = new Set<string>();
  const breakCount = pick([0, 0, 1, 2, 3]);
  for (let i = 0; i < breakCount; i++)
    breaks.add(breakKey(pick([1, 2, 3, 3, 4] as const), Math.floor(random() * (address + 3))));
  const options: PlanOptions = {
    maxRegisters: 1 + Math.floor(random() * 8),
    maxBits: 1 + Math.floor(random() * 8),
    maxGap: Math.floor(random() * 4),
    ...(breaks.size > 0 ? { breaks } : {}),
  };
  return { registers, options };
}

describe("planReadRequests: minimal on random register maps", () => {
  test("matches the exhaustive minimum on 4000 small random maps", () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 4000; trial++) {
      const { registers, options } = randomMap(random, 1 + Math.floor(random() * 10));
      const plan = planReadRequests(registers, options);
      expectValidPlan(registers, options, plan);
      const fewest = fewestRequests(registers, options);
      if (plan.length !== fewest) {
        throw new Error(
          `trial ${trial}: ${plan.length} requests, ${fewest} possible: ${JSON.stringify({ registers, options, breaks: [...(options.breaks ?? [])] })}`,
        );
      }
    }
  });

  test("valid on 300 larger random maps", () => {
    const random = seededRandom(11);
    for (let trial = 0; trial < 300; trial++) {
      const { registers, options } = randomMap(random, 20 + Math.floor(random() * 200));
      expectValidPlan(registers, options, planReadRequests(registers, options));
    }
  });
});
