/**
 * The read planner: which Modbus requests read a device's registers in the fewest
 * round trips. On a 9600-baud bus one request costs ~23 ms of overhead however
 * little it reads, so coalescing neighbouring registers is what lets a bus keep up.
 *
 * Rules, per function code (requests never mix function codes):
 * - a register occupies the address interval [address, address + registerSpan);
 *   intervals may overlap (several bool bits of one word) or repeat;
 * - a request reads one contiguous range of at most `maxRegisters` words
 *   (`maxBits` bits for function codes 1/2), tight around its registers;
 * - inside a request, no run of addresses that none of its registers needs is
 *   longer than `maxGap` (reading through a small gap is cheaper than a second
 *   request; a large one wastes the bus, or hits addresses the device refuses);
 * - a break at address b (see `breakKey`) separates registers starting before b
 *   from those starting at or after b, so a request starts at b. A register that
 *   itself straddles b is necessarily read across it;
 * - a register wider than the maximum (a long string) gets a request of its own,
 *   of exactly its span, larger than the maximum: dropping it silently would be
 *   worse, and the device's answer (or exception) tells the truth.
 *
 * The plan is minimal in the number of requests (see `greedyRequests` for why).
 *
 * A device's registers are first divided into poll groups, one per poll interval
 * (`pollGroups`); each group is planned on its own, so a request never mixes
 * intervals and each group's requests are the planner's minimum for that group.
 */
import { type FunctionCode, functionCodes, type RegisterDecoding, registerSpan } from "./register-model.ts";

export interface ReadRequest {
  functionCode: FunctionCode;
  /** First address read (0-based protocol address). */
  start: number;
  /** Number of words (function codes 3/4) or bits (1/2) read. */
  count: number;
  /** The registers decoded from this request's answer, in address order. */
  registers: RegisterDecoding[];
}

export interface PlanOptions {
  /** Most words in one request for function codes 3/4: 1..125 (the protocol's limit is 125). */
  maxRegisters: number;
  /** Most bits in one request for function codes 1/2: 1..2000 (the protocol's limit is 2000). */
  maxBits: number;
  /** Longest run of unneeded addresses worth reading through, >= 0. Applies to bits and words alike. */
  maxGap: number;
  /** `breakKey(functionCode, address)` values: a request must start at each such address. */
  breaks?: ReadonlySet<string>;
}

/** The registers of a device read at one poll interval (docs/polling.md, "Poll groups"). */
export interface PollGroup<R extends RegisterDecoding> {
  intervalMs: number;
  registers: R[];
}

/**
 * A device's registers by poll interval: each register's own `pollIntervalMs`, its
 * device's (`deviceIntervalMs`) when it has none. Fastest first; registers keep
 * their order within a group. One group (all registers) when none sets its own.
 * A register's scale-factor register (`scaleFactorRegisterId`) is read in every group
 * of a register it scales, so both come from the same cycle.
 */
export function pollGroups<R extends RegisterDecoding & { pollIntervalMs?: number; scaleFactorRegisterId?: string }>(
  registers: readonly R[],
  deviceIntervalMs: number,
): PollGroup<R>[] {
  const byInterval = new Map<number, R[]>();
  for (const register of registers) {
    const intervalMs = register.pollIntervalMs ?? deviceIntervalMs;
    const group = byInterval.get(intervalMs);
    if (group === undefined) byInterval.set(intervalMs, [register]);
    else group.push(register);
  }
  if (byInterval.size === 0) return [{ intervalMs: deviceIntervalMs, registers: [] }];
  const byId = new Map(registers.map((register) => [register.id, register]));
  for (const group of byInterval.values()) {
    const ids = new Set(group.map((register) => register.id));
    for (const register of [...group]) {
      const scale = register.scaleFactorRegisterId === undefined ? undefined : byId.get(register.scaleFactorRegisterId);
      if (scale !== undefined && !ids.has(scale.id)) {
        ids.add(scale.id);
        group.push(scale);
      }
    }
  }
  return [...byInterval]
    .map(([intervalMs, grouped]) => ({ intervalMs, registers: grouped }))
    .sort((a, b) => a.intervalMs - b.intervalMs);
}

/** The key of a break in `PlanOptions.breaks`: no request may read across this address; one starts at it. */
export function breakKey(functionCode: FunctionCode, address: number): string {
  return `${functionCode}:${address}`;
}

/**
 * The fewest requests that read every register once. Sorted by function code then
 * start; each register appears in exactly one request.
 * Throws RangeError on options outside their documented ranges.
 */
export function planReadRequests(registers: readonly RegisterDecoding[], options: PlanOptions): ReadRequest[] {
  checkOptions(options);
  const requests: ReadRequest[] = [];
  for (const functionCode of functionCodes) {
    const own = registers.filter((register) => register.functionCode === functionCode);
    if (own.length === 0) continue;
    const max = functionCode === 1 || functionCode === 2 ? options.maxBits : options.maxRegisters;
    const breaks = breakAddresses(options.breaks, functionCode);
    for (const segment of splitAtBreaks(sortByAddress(own), breaks)) {
      requests.push(...greedyRequests(functionCode, segment, max, options.maxGap));
    }
  }
  return requests.sort((a, b) => a.functionCode - b.functionCode || a.start - b.start || a.count - b.count);
}

/**
 * Splits a request the device refused (exception 2 or 3: some address in it is not
 * readable) into two, at the register boundary nearest the middle of its register
 * list; each half is tight around its registers. Only boundaries where the address
 * changes count, so that `breakKey(right.functionCode, right.start)` separates the
 * halves in the next plan. Null when the request cannot be divided: one register,
 * or all of them at one address (bits of one word).
 */
export function splitRequest(request: ReadRequest): [ReadRequest, ReadRequest] | null {
  const registers = sortByAddress(request.registers);
  const middle = registers.length / 2;
  let cut = -1;
  for (let i = 1; i < registers.length; i++) {
    if (registers[i]!.address === registers[i - 1]!.address) continue;
    if (cut === -1 || Math.abs(i - middle) < Math.abs(cut - middle)) cut = i;
  }
  if (cut === -1) return null;
  return [
    tightRequest(request.functionCode, registers.slice(0, cut)),
    tightRequest(request.functionCode, registers.slice(cut)),
  ];
}

/**
 * Requests for registers of one function code with no break between them, sorted
 * by address. Each round opens a request at the lowest remaining address s and takes,
 * in address order, every register that fits in [s, s + max) and is reachable from
 * what was taken through gaps of at most maxGap; registers that stick out past
 * s + max are left for later rounds. Oversize registers are alone from the start.
 *
 * Why that is the fewest: some request of an optimal plan holds the lowest
 * register, so it lies inside [s, s + max) and everything in it is reachable from
 * there, hence it is a subset of this round's request. Removing this round's
 * registers from the optimal plan's other requests leaves each of them valid (range
 * and breaks hold for any subset; for gaps: a gap opened by removing a register
 * this round took has, on its left, a register this round did not take, yet that
 * one ends before the taken one ends, so it lay inside the window and within reach,
 * and would have been taken). By induction the rounds are no more
 * than the optimal plan's requests. test/modbus/codec/plan.test.ts checks this
 * against an exhaustive search.
 */
function greedyRequests(
  functionCode: FunctionCode,
  sorted: readonly RegisterDecoding[],
  max: number,
  maxGap: number,
): ReadRequest[] {
  const requests: ReadRequest[] = [];
  let remaining: RegisterDecoding[] = [];
  for (const register of sorted) {
    if (registerSpan(register) > max) requests.push(tightRequest(functionCode, [register]));
    else remaining.push(register);
  }

  while (remaining.length > 0) {
    const first = remaining[0]!;
    const windowEnd = first.address + max;
    let reachedEnd = first.address + registerSpan(first);
    const taken: RegisterDecoding[] = [first];
    const left: RegisterDecoding[] = [];
    let i = 1;
    for (; i < remaining.length; i++) {
      const register = remaining[i]!;
      // Sorted by address: once one is out of reach, all the rest are too.
      if (register.address - reachedEnd > maxGap) break;
      const end = register.address + registerSpan(register);
      if (end > windowEnd) {
        left.push(register);
        continue;
      }
      taken.push(register);
      reachedEnd = Math.max(reachedEnd, end);
    }
    requests.push(tightRequest(functionCode, taken));
    remaining = left.concat(remaining.slice(i));
  }
  return requests;
}

/** Groups sorted registers so that none of a group starts before a break and another at or after it. */
function splitAtBreaks(sorted: readonly RegisterDecoding[], breaks: readonly number[]): RegisterDecoding[][] {
  const segments: RegisterDecoding[][] = [];
  let current: RegisterDecoding[] = [];
  let nextBreak = 0;
  for (const register of sorted) {
    let crossed = false;
    while (nextBreak < breaks.length && breaks[nextBreak]! <= register.address) {
      nextBreak++;
      crossed = true;
    }
    if (crossed && current.length > 0) {
      segments.push(current);
      current = [];
    }
    current.push(register);
  }
  if (current.length > 0) segments.push(current);
  return segments;
}

function breakAddresses(breaks: ReadonlySet<string> | undefined, functionCode: FunctionCode): number[] {
  if (!breaks) return [];
  const prefix = `${functionCode}:`;
  const addresses: number[] = [];
  for (const key of breaks) {
    if (!key.startsWith(prefix)) continue;
    const address = Number(key.slice(prefix.length));
    if (Number.isInteger(address)) addresses.push(address);
  }
  return addresses.sort((a, b) => a - b);
}

/** The smallest request reading all of `registers` (non-empty). */
function tightRequest(functionCode: FunctionCode, registers: RegisterDecoding[]): ReadRequest {
  const sorted = sortByAddress(registers);
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const register of sorted) {
    start = Math.min(start, register.address);
    end = Math.max(end, register.address + registerSpan(register));
  }
  return { functionCode, start, count: end - start, registers: sorted };
}

/** Stable: registers at one address keep the caller's order. */
function sortByAddress(registers: readonly RegisterDecoding[]): RegisterDecoding[] {
  return [...registers].sort((a, b) => a.address - b.address);
}

function checkOptions(options: PlanOptions): void {
  const { maxRegisters, maxBits, maxGap } = options;
  if (!Number.isInteger(maxRegisters) || maxRegisters < 1 || maxRegisters > 125) {
    throw new RangeError(`maxRegisters must be an integer 1..125, got ${maxRegisters}`);
  }
  if (!Number.isInteger(maxBits) || maxBits < 1 || maxBits > 2000) {
    throw new RangeError(`maxBits must be an integer 1..2000, got ${maxBits}`);
  }
  if (!Number.isInteger(maxGap) || maxGap < 0) {
    throw new RangeError(`maxGap must be an integer >= 0, got ${maxGap}`);
  }
}
