/**
 * One poll cycle of one poll group of a device (its registers of one poll interval,
 * docs/polling.md "Poll groups"), and what the device taught the poller about its
 * register map (docs/polling.md, "The reading plan"): the planner's fewest requests;
 * a block the device refuses with exception 2 or 3 is split and the split remembered;
 * a register still refused on its own is set aside and tried again after
 * `failingRegisterRetryMs`. Each request is one turn on the channel (a higher-priority
 * job may go on the wire between two of them). A device with SunSpec registers has its
 * model chain read first, each cycle until it has been (docs/sunspec.md, "Polling");
 * its registers that are not SunSpec points are polled meanwhile.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { decodeBits, decodeWords } from "./decode.ts";
import type { DeviceHealthBoard } from "./device-health.ts";
import type { ReadOutcome } from "./link.ts";
import { breakKey, planReadRequests, type ReadRequest, splitRequest } from "./plan.ts";
import type { PolledRegister, PollingDevice } from "./polling-config.ts";
import type { ReadData } from "./read-cache.ts";
import type { RegisterDecoding } from "./register-model.ts";
import type { ChainRead, SunSpecBinding } from "./sunspec/binding.ts";
import { settleValues } from "./value-meaning.ts";

/** `answered` in full, `partial` (answered, but a request failed), `silent`, or `disconnected`. */
export type CycleResult = "answered" | "partial" | "silent" | "disconnected";

export interface CycleParts {
  /** Sends one request as a poll on the device's channel, after `pause_ms` when `pause` is set. */
  read(request: ReadRequest, pause: boolean): Promise<ReadOutcome>;
  /** Keeps a request's words as the device sent them, read at monotonic time `at` (read-cache.ts). */
  keep?(request: ReadRequest, data: ReadData, at: number): void;
  clock: Clock;
  log: Logger;
  health: DeviceHealthBoard;
  readings(values: PolledValue[]): void;
  answered(at: number): void;
  /** A request is sent again (counted in the device's bus counters). */
  retried(): void;
  failingRegisterRetryMs: number;
}

const largestBitRead = 2000;
const exceptionIllegalAddress = 2;
const exceptionIllegalValue = 3;
/** A gateway in front of the device answers these when the device itself does not (Modbus application protocol, section 7). */
const exceptionsMeaningNoAnswer = new Set([10, 11]);
const exceptionNames: Record<number, string> = {
  1: "illegal function",
  2: "illegal data address",
  3: "illegal data value",
  4: "server device failure",
  5: "acknowledge",
  6: "server device busy",
  8: "memory parity error",
  10: "gateway path unavailable",
  11: "gateway target device failed to respond",
};

export class DeviceCycle {
  /** Where a request must start, after the device refused a block across it. */
  private readonly breaks = new Set<string>();
  /** Registers set aside after failing on their own: id -> when to try again (monotonic). */
  private readonly setAside = new Map<string, number>();
  /** The plan of the last cycle, reused while nothing it depends on changed. */
  private plan: ReadRequest[] | null = null;
  /** The last failure in words, for the log line that says the device went silent. */
  lastError: string | null = null;
  /** The registers as placed on the device's map: before its SunSpec chain is read, those that are not SunSpec points. */
  private placed: readonly PolledRegister[];
  private placedGeneration = 0;
  private readonly byId: ReadonlyMap<string, PolledRegister>;

  constructor(
    readonly device: PollingDevice,
    private readonly parts: CycleParts,
    /** The registers this cycle reads: one poll group of the device (all of them by default). */
    private readonly registers: readonly PolledRegister[] = device.registers,
    /** Where the device's SunSpec registers are, shared by its poll groups; absent when it has none. */
    private readonly sunspec?: SunSpecBinding,
  ) {
    this.placed = sunspec === undefined ? registers : sunspec.polled(registers);
    this.byId = new Map(registers.map((register) => [register.id, register]));
  }

  /** One cycle: every planned request, or only the first (a quarantined device's probe). */
  async run(shape: { firstRequestOnly: boolean; retries: number }): Promise<CycleResult> {
    const { device, parts } = this;
    const { clock } = parts;
    const chain = await this.readChain(shape.retries);
    // A lost connection is the channel's to report, as in the requests below.
    if (chain === "disconnected") return "disconnected";
    let requests = this.currentPlan(clock.monotonic());
    if (shape.firstRequestOnly) requests = requests.slice(0, 1);
    let answered = chain === "failed";
    let partial = chain !== "placed";
    const values: PolledValue[] = [];
    const pending = [...requests];
    let first = true;
    while (pending.length > 0) {
      const request = pending.shift() as ReadRequest;
      const pause = !first && device.pauseMs > 0;
      first = false;
      let attempt = 0;
      const outcome = await readWithRetries(
        () => parts.read(request, pause && attempt++ === 0),
        shape.retries,
        parts.retried,
      );
      if (outcome.ok) {
        answered = true;
        const ts = clock.now();
        const monotonic = clock.monotonic();
        parts.keep?.(request, outcome, monotonic);
        for (const register of request.registers) {
          values.push(decodeValue(register, request, outcome, ts, monotonic));
          if (this.setAside.delete(register.id)) this.readsAgain(register);
        }
        continue;
      }
      if (outcome.kind === "disconnected") {
        this.report(values);
        return "disconnected";
      }
      const error = failureText(outcome, request.start, request.functionCode, device.timeoutMs);
      if (outcome.kind === "timeout" || outcome.kind === "bad_frame") {
        // That request got no answer (or, a broken frame, not the answer: line noise, two
        // masters); the rest of the cycle goes on.
        this.failed(error);
        partial = true;
        continue;
      }
      if (exceptionsMeaningNoAnswer.has(outcome.code)) {
        // The gateway answered for a device that did not: the device is as silent as on a timeout.
        this.failed(error);
        partial = true;
        continue;
      }
      answered = true;
      if (outcome.code === exceptionIllegalAddress || outcome.code === exceptionIllegalValue) {
        const halves = splitRequest(request);
        if (halves !== null) {
          // Remember the split, so the next cycles read the halves directly.
          this.breaks.add(breakKey(halves[1].functionCode, halves[1].start));
          this.plan = null;
          pending.unshift(...halves);
          continue;
        }
      }
      this.failed(error);
      partial = true;
      this.putAside(request, error);
    }
    this.report(values);
    if (answered) parts.answered(clock.now());
    if (!answered) return "silent";
    return partial ? "partial" : "answered";
  }

  /** The cycle's values with not-implemented values and scale-factor registers applied (value-meaning.ts). */
  private report(values: PolledValue[]): void {
    const settled = settleValues(values, this.byId);
    if (settled.length > 0) this.parts.readings(settled);
  }

  /**
   * Reads the SunSpec model chain while it has not been read; `placed` when the
   * SunSpec registers are on the map (or the device has none), else how the walk failed.
   */
  private async readChain(retries: number): Promise<"placed" | "silent" | "failed" | "disconnected"> {
    const binding = this.sunspec;
    if (binding === undefined) return "placed";
    let result: "placed" | "silent" | "failed" | "disconnected" = "placed";
    if (!binding.bound) {
      let disconnected = false;
      const read = await binding.readChain(this.chainReader(retries, () => (disconnected = true)));
      if (disconnected) return "disconnected";
      if (read.kind !== "bound") {
        this.failed(read.error);
        result = read.kind;
      }
    }
    if (binding.generation !== this.placedGeneration) {
      this.placedGeneration = binding.generation;
      this.placed = binding.polled(this.registers);
      this.plan = null;
    }
    return result;
  }

  /** Holding-register reads for the chain walk, each a poll on the channel; `lost` is called when the connection is. */
  private chainReader(retries: number, lost: () => void): ChainRead {
    return async (address, count) => {
      const request: ReadRequest = { functionCode: 3, start: address, count, registers: [] };
      const outcome = await readWithRetries(() => this.parts.read(request, false), retries, this.parts.retried);
      if (outcome.ok) return { words: outcome.words ?? [] };
      if (outcome.kind === "disconnected") lost();
      const answered = outcome.kind === "exception" && !exceptionsMeaningNoAnswer.has(outcome.code);
      return { error: failureText(outcome, address, 3, this.device.timeoutMs), answered };
    };
  }

  /** The plan changes only when a block is split or a register is set aside or due again. */
  private currentPlan(now: number): ReadRequest[] {
    if (this.plan !== null && this.setAside.size === 0) return this.plan;
    const due: RegisterDecoding[] = [];
    for (const register of this.placed) {
      const retryAt = this.setAside.get(register.id);
      if (retryAt === undefined || retryAt <= now) due.push(register);
    }
    this.plan = planReadRequests(due, {
      maxRegisters: this.device.maxRegistersPerRequest,
      maxBits: largestBitRead,
      maxGap: this.device.maxGap,
      breaks: this.breaks,
    });
    return this.plan;
  }

  /** A failure in words, for the health board and the log: `timeout after 1000 ms at 3:40010`. */
  private failed(error: string): void {
    this.lastError = error;
    this.parts.health.failed(this.device.id, this.parts.clock.now(), error);
  }

  private putAside(request: ReadRequest, error: string): void {
    const { clock, health, log, failingRegisterRetryMs } = this.parts;
    const since = clock.now();
    // Set aside on the monotonic clock; the board shows the wall time of the retry.
    const retryAt = clock.monotonic() + failingRegisterRetryMs;
    for (const register of request.registers) {
      if (!this.setAside.has(register.id)) {
        log.warn(
          { ...deviceFields(this.device), ...registerFields(register), error },
          "register refused by the device; set aside",
        );
      }
      this.setAside.set(register.id, retryAt);
      health.setAside(this.device.id, register.id, { reason: error, since, retryAt: since + failingRegisterRetryMs });
    }
    this.plan = null;
  }

  private readsAgain(register: PolledRegister): void {
    this.plan = null;
    this.parts.health.readsAgain(this.device.id, register.id);
    this.parts.log.info({ ...deviceFields(this.device), ...registerFields(register) }, "register reads again");
  }
}

/** A failed request in words, for the health board and the log: `timeout after 1000 ms at 3:40010`. */
function failureText(
  outcome: Exclude<ReadOutcome, { ok: true }>,
  start: number,
  functionCode: number,
  timeoutMs: number,
): string {
  const at = `${functionCode}:${start}`;
  switch (outcome.kind) {
    case "timeout":
      return `timeout after ${timeoutMs} ms at ${at}`;
    case "bad_frame":
      return `${outcome.fault === "crc" ? "CRC error" : "broken frame"} in the answer at ${at}`;
    case "exception":
      return `exception ${outcome.code} (${exceptionNames[outcome.code] ?? "unknown exception"}) at ${at}`;
    case "disconnected":
      return outcome.message;
  }
}

/**
 * Reads until an answer, an exception or a lost connection; a timeout or a broken
 * answer is tried again `retries` times, each retry reported to `retried`.
 */
export async function readWithRetries(
  readOnce: () => Promise<ReadOutcome>,
  retries: number,
  retried?: () => void,
): Promise<ReadOutcome> {
  let outcome: ReadOutcome = { ok: false, kind: "timeout" };
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) retried?.();
    outcome = await readOnce();
    if (outcome.ok || (outcome.kind !== "timeout" && outcome.kind !== "bad_frame")) return outcome;
  }
  return outcome;
}

/** The value of `register` in the answer to `request`. */
export function decodeValue(
  register: RegisterDecoding,
  request: ReadRequest,
  outcome: { words: number[] | null; bits: boolean[] | null },
  ts: number,
  monotonic: number,
): PolledValue {
  const offset = register.address - request.start;
  if (outcome.bits !== null) return { registerId: register.id, ts, monotonic, raw: decodeBits(outcome.bits, offset) };
  const decoded = decodeWords(register, outcome.words ?? [], offset);
  if (typeof decoded === "string") return { registerId: register.id, ts, monotonic, raw: null, text: decoded };
  return { registerId: register.id, ts, monotonic, raw: decoded };
}

/** A device in log lines: by name (or unit id) and by id. */
export function deviceFields(device: PollingDevice) {
  return { device: device.name ?? `unit ${device.slaveId}`, device_id: device.id };
}

/** A register in log lines: by name, id and where it is read. */
function registerFields(register: PolledRegister) {
  return {
    register: register.name ?? null,
    register_id: register.id,
    address: `${register.functionCode}:${register.address}`,
  };
}
