/**
 * One connection to Modbus equipment: a TCP device (Modbus TCP), a serial server
 * (RTU frames over TCP), or a local serial bus (RTU). The protocol is
 * modbus-serial's; each read comes back as an outcome the poller can act on,
 * never as a thrown error.
 */
import ModbusRTU from "modbus-serial";
import type { FunctionCode, WriteFunctionCode } from "./register-model.ts";
import { openSerialRtu } from "./serial/index.ts";

export type LinkTarget =
  | { kind: "tcp"; host: string; port: number }
  | { kind: "rtu_over_tcp"; host: string; port: number }
  | {
      kind: "serial";
      path: string;
      baudRate: number;
      dataBits: 7 | 8;
      parity: "none" | "even" | "odd";
      stopBits: 1 | 2;
    };

export type ReadOutcome =
  | { ok: true; words: number[]; bits: null }
  | { ok: true; words: null; bits: boolean[] }
  /** The device answered with a Modbus exception (2 illegal address, 3 illegal value, ...). */
  | { ok: false; kind: "exception"; code: number }
  | { ok: false; kind: "timeout" }
  /** An answer came back broken: a bad CRC, or a frame of the wrong length or for another unit (RTU). */
  | BadFrame
  /** The connection or port is gone; the link must be opened again. */
  | { ok: false; kind: "disconnected"; message: string };

/** An answer that failed modbus-serial's RTU checks (docs/polling.md, "Bus diagnostics"): retried like a timeout. */
export type BadFrame = { ok: false; kind: "bad_frame"; fault: "crc" | "framing" };

/** What a write request came back with; a timeout leaves the outcome unknown. */
export type WriteOutcome =
  | { ok: true }
  | { ok: false; kind: "exception"; code: number }
  | { ok: false; kind: "timeout" }
  | BadFrame
  | { ok: false; kind: "disconnected"; message: string };

/** What one write request carries: words for 6/16 (one for 6), bits for 5/15 (one for 5). */
export type WritePayload = { words: number[]; bits: null } | { words: null; bits: boolean[] };

export interface ModbusLink {
  read(
    functionCode: FunctionCode,
    unitId: number,
    start: number,
    count: number,
    timeoutMs: number,
  ): Promise<ReadOutcome>;
  /** Optional so that links built for tests of reading need not write. */
  write?(
    functionCode: WriteFunctionCode,
    unitId: number,
    start: number,
    payload: WritePayload,
    timeoutMs: number,
  ): Promise<WriteOutcome>;
  readonly isOpen: boolean;
  close(): Promise<void>;
}

export type LinkOpener = (target: LinkTarget, connectTimeoutMs: number) => Promise<ModbusLink>;

export function describeTarget(target: LinkTarget): string {
  return target.kind === "serial"
    ? target.path
    : `${target.kind === "tcp" ? "tcp" : "rtu-over-tcp"}://${target.host}:${target.port}`;
}

/** Opens a link with modbus-serial (and fieldhub's own serial port for RTU). Throws when it cannot connect. */
export const openModbusLink: LinkOpener = async (target, connectTimeoutMs) => {
  if (target.kind === "serial") {
    const serial = await openSerialRtu({ ...target, timeoutMs: connectTimeoutMs });
    return new ModbusSerialLink(serial.client, serial.port);
  }
  const client = new ModbusRTU();
  client.setTimeout(connectTimeoutMs);
  // RTU over TCP is modbus-serial's "telnet" port: raw RTU frames (with CRC) on a
  // TCP stream, as serial servers pass them. (Its "TcpRTUBuffered" port speaks
  // Modbus TCP framing instead, despite the name.)
  const connect =
    target.kind === "tcp"
      ? client.connectTCP(target.host, { port: target.port, timeout: connectTimeoutMs })
      : client.connectTelnet(target.host, { port: target.port });
  await withTimeout(connect, connectTimeoutMs, `connecting to ${describeTarget(target)} timed out`);
  return new ModbusSerialLink(client);
};

/** What a serial port can say that modbus-serial cannot: an answer began but never completed. */
interface AnswerWatcher {
  answerBegun(): boolean;
}

class ModbusSerialLink implements ModbusLink {
  private closed = false;
  constructor(
    private readonly client: ModbusRTU,
    /** The serial port under the client (RTU on a local line only). */
    private readonly port: AnswerWatcher | null = null,
  ) {}

  /** An error as an outcome; on a serial line a timeout after the start of an answer is a broken frame. */
  private outcomeOf(error: unknown): ReadOutcome {
    const outcome = classify(error, this.client.isOpen);
    if (!outcome.ok && outcome.kind === "timeout" && this.port?.answerBegun()) return framingError;
    return outcome;
  }

  get isOpen(): boolean {
    return !this.closed && this.client.isOpen;
  }

  async read(
    functionCode: FunctionCode,
    unitId: number,
    start: number,
    count: number,
    timeoutMs: number,
  ): Promise<ReadOutcome> {
    if (!this.isOpen) return { ok: false, kind: "disconnected", message: "not connected" };
    this.client.setID(unitId);
    this.client.setTimeout(timeoutMs);
    try {
      switch (functionCode) {
        case 1:
          return { ok: true, words: null, bits: (await this.client.readCoils(start, count)).data.slice(0, count) };
        case 2:
          return {
            ok: true,
            words: null,
            bits: (await this.client.readDiscreteInputs(start, count)).data.slice(0, count),
          };
        case 3:
          return { ok: true, words: (await this.client.readHoldingRegisters(start, count)).data, bits: null };
        case 4:
          return { ok: true, words: (await this.client.readInputRegisters(start, count)).data, bits: null };
      }
    } catch (error) {
      return this.outcomeOf(error);
    } finally {
      this.forgetSettledTransactions();
    }
  }

  /**
   * modbus-serial keeps each transaction it sent (request, answer, callbacks: about
   * 2.5 KB) under its id until the id comes round again: 256 ids on a TCP connection,
   * so a connection polled every 10 s held 43 minutes of them. One transaction is on
   * the wire at a time (channel-queue.ts), so once it has settled none is waiting; a
   * late answer finds no transaction and is ignored, as it was after its timeout.
   */
  private forgetSettledTransactions(): void {
    (this.client as unknown as { _transactions: Record<number, unknown> })._transactions = {};
  }

  async write(
    functionCode: WriteFunctionCode,
    unitId: number,
    start: number,
    payload: WritePayload,
    timeoutMs: number,
  ): Promise<WriteOutcome> {
    if (!this.isOpen) return { ok: false, kind: "disconnected", message: "not connected" };
    this.client.setID(unitId);
    this.client.setTimeout(timeoutMs);
    try {
      if (functionCode === 5) await this.client.writeCoil(start, payload.bits?.[0] ?? false);
      else if (functionCode === 15) await this.client.writeCoils(start, payload.bits ?? []);
      else if (functionCode === 6) await this.client.writeRegister(start, payload.words?.[0] ?? 0);
      else await this.client.writeRegisters(start, payload.words ?? []);
      return { ok: true };
    } catch (error) {
      const outcome = this.outcomeOf(error);
      return outcome.ok ? { ok: true } : outcome;
    } finally {
      this.forgetSettledTransactions();
    }
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => {
      try {
        this.client.close(() => resolve());
      } catch {
        resolve();
      }
      // A port that never answers its close callback must not hold the poller.
      setTimeout(resolve, 1000).unref?.();
    });
  }
}

const crcError: BadFrame = { ok: false, kind: "bad_frame", fault: "crc" };
const framingError: BadFrame = { ok: false, kind: "bad_frame", fault: "framing" };

/**
 * An error of modbus-serial as an outcome. Its RTU receive path (serial ports and
 * serial servers alike) rejects an answer whose CRC does not match with "CRC error",
 * and one of the wrong length, unit or function code with "Data length error" or
 * "Unexpected data error": the line delivered something, but not the answer.
 */
export function classify(error: unknown, stillOpen: boolean): ReadOutcome {
  const details = error as { modbusCode?: number; errno?: string; message?: string };
  if (typeof details.modbusCode === "number") return { ok: false, kind: "exception", code: details.modbusCode };
  if (details.errno === "ETIMEDOUT" && stillOpen) return { ok: false, kind: "timeout" };
  const message = details.message ?? "";
  if (stillOpen && message === "CRC error") return crcError;
  if (stillOpen && (message.startsWith("Data length error") || message.startsWith("Unexpected data error"))) {
    return framingError;
  }
  return { ok: false, kind: "disconnected", message: details.message ?? String(error) };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
