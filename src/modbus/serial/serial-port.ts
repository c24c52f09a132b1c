/**
 * A Modbus RTU serial port that Bun can run, for modbus-serial's ModbusRTU.
 *
 * ModbusRTU takes any port object that is an EventEmitter with open(cb), close(cb),
 * write(buffer) and isOpen, and that emits one 'data' event per complete response
 * frame. This one opens and configures the tty through ./termios.ts (bun:ffi),
 * reads it with Bun.file(fd).stream() and writes it with fs.writeSync. The
 * serialport package cannot be used: its native binding crashes under Bun.
 *
 * Why not node:tty.ReadStream (measured, Bun 1.4.5): it needs a blocking fd (on a
 * non-blocking one its first read fails with EAGAIN and it closes), and then each
 * open port holds one of Bun's worker-pool threads in a blocking read() for as long
 * as it is open. The pool has as many threads as cores: on a 2-core box two idle
 * ports left fs.promises.readFile hanging for good, and a destroyed stream's read
 * stayed behind and swallowed the next answer after a reopen. Bun.file(fd).stream()
 * on the non-blocking fd is polled (epoll) on the event loop instead: no thread per
 * port, and cancelling it leaves nothing behind.
 */
import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import {
  EXCEPTION_RESPONSE_LENGTH,
  type ExpectedResponse,
  expectedResponse,
  hasValidCrc,
  interFrameSilenceMs,
  transmitMs,
} from "./frame.ts";
import {
  type AppliedSettings,
  closeTty,
  type LineSettings,
  type OpenTty,
  openTty,
  SerialError,
  validateLineSettings,
} from "./termios.ts";

export interface SerialRtuPortOptions extends LineSettings {
  /** The tty, e.g. /dev/ttyUSB0, /dev/ttyAMA0, /dev/serial/by-id/... */
  path: string;
}

/** Counters and times (performance.now() milliseconds) of what the port did. */
export interface SerialRtuPortStats {
  framesEmitted: number;
  bytesDiscarded: number;
  writes: number;
  /** Writes held back to keep the inter-frame silence. */
  delayedWrites: number;
  /** Requests the kernel would not take whole (output queue full); they time out. */
  writeStalls: number;
  /** When the last byte of the last emitted frame was read (0: never). */
  lastFrameAt: number;
  /** When the last request was handed to the kernel (0: never). */
  lastWriteAt: number;
}

type State = "closed" | "open" | "closing";
/** The part of a ReadableStream reader the port uses. */
interface Reader {
  read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
  cancel(reason?: unknown): Promise<void>;
}

/** Most bytes kept while looking for a frame (an RTU frame is at most 256). */
const MAX_BUFFER = 512;
/**
 * The part of the inter-frame silence waited out on the CPU rather than by a timer,
 * whose wake-up comes at a whole millisecond or later.
 */
const SPIN_BELOW_MS = 1;
/** How long closing waits for the reader to let go before closing the fd anyway. */
const CLOSE_GRACE_MS = 1000;

export class SerialRtuPort extends EventEmitter {
  readonly path: string;
  readonly settings: Readonly<LineSettings>;
  /** Silence kept between the end of a response and the next request (3.5 characters; 1.75 ms above 19200 baud). */
  readonly silenceMs: number;
  /**
   * How long the line must stay quiet before the port hands over a frame it could
   * not confirm: one with a bad CRC (so ModbusRTU reports "CRC error" at once rather
   * than a timeout) or one whose length the request does not fix. Generous, because
   * USB adapters deliver bytes in bursts (FTDI's latency timer is 16 ms).
   */
  readonly quietMs: number;
  readonly stats: SerialRtuPortStats = {
    framesEmitted: 0,
    bytesDiscarded: 0,
    writes: 0,
    delayedWrites: 0,
    writeStalls: 0,
    lastFrameAt: 0,
    lastWriteAt: 0,
  };
  /** Why the port last closed by itself (device gone), if it did. */
  lastError: Error | undefined;
  /** The line settings the kernel holds, read back after the last open. */
  applied: AppliedSettings | undefined;
  /** The last open was of a pseudo-terminal (kept at 8 data bits without parity by the kernel). */
  pseudoTerminal = false;

  private state: State = "closed";
  private fd = -1;
  private reader: Reader | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private expected: ExpectedResponse | undefined;
  /** performance.now() before which no request may start (end of last traffic + silence). */
  private quietUntil = 0;
  /** performance.now() when bytes were last read. */
  private lastReadAt = 0;
  private readonly queue: Buffer[] = [];
  private writeTimer: ReturnType<typeof setTimeout> | undefined;
  private quietTimer: ReturnType<typeof setTimeout> | undefined;
  private closeCallbacks: ((error: Error | null) => void)[] = [];

  constructor(options: SerialRtuPortOptions) {
    super();
    const { path, baudRate, dataBits, parity, stopBits } = options;
    this.settings = Object.freeze({ baudRate, dataBits, parity, stopBits });
    validateLineSettings(this.settings);
    this.path = path;
    this.silenceMs = interFrameSilenceMs(this.settings);
    this.quietMs = Math.max(50, 2 * this.silenceMs);
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  open(callback?: (error: Error | null) => void): void {
    const done = (error: Error | null) => process.nextTick(() => callback?.(error));
    if (this.state !== "closed") {
      done(new SerialError("EBUSY", this.path, `port is already ${this.state === "open" ? "open" : "closing"}`));
      return;
    }
    let opened: OpenTty;
    try {
      opened = openTty(this.path, this.settings);
    } catch (error) {
      done(error as Error);
      return;
    }
    this.fd = opened.fd;
    this.pseudoTerminal = opened.pseudoTerminal;
    this.applied = opened.applied;
    this.state = "open";
    this.lastError = undefined;
    this.buffer = Buffer.alloc(0);
    this.expected = undefined;
    this.quietUntil = performance.now() + this.silenceMs;
    const reader = Bun.file(opened.fd).stream().getReader();
    this.reader = reader;
    void this.readLoop(reader);
    done(null);
  }

  /** Closes the port; safe to call at any time and any number of times. */
  close(callback?: (error: Error | null) => void): void {
    if (this.state === "closed") {
      process.nextTick(() => callback?.(null));
      return;
    }
    if (callback) this.closeCallbacks.push(callback);
    if (this.state === "closing") return;
    this.teardown();
  }

  /** For ModbusRTU.destroy(): close without a callback. */
  destroy(): void {
    this.close();
  }

  /**
   * Sends one request frame. It goes out once the line has been silent for
   * `silenceMs` after the last response (or after the last request went out).
   * Bytes still buffered from earlier traffic are dropped when it goes out.
   */
  write(data: Buffer | Uint8Array): void {
    if (this.state !== "open") return;
    this.queue.push(Buffer.from(data));
    this.pump();
  }

  /**
   * An answer to the request in flight began (its unit id and function code, or the
   * exception code, arrived) but never completed: asked when the request timed out,
   * it tells a broken frame from silence (docs/polling.md, "Bus diagnostics").
   */
  answerBegun(): boolean {
    const expected = this.expected;
    if (expected === undefined) return false;
    const buffer = this.buffer;
    for (let i = 0; i + 1 < buffer.length; i++) {
      if (buffer[i] !== expected.unitId) continue;
      const code = buffer[i + 1];
      if (code === expected.functionCode || code === (expected.functionCode | 0x80)) return true;
    }
    return false;
  }

  // ---- writing --------------------------------------------------------------------

  /**
   * Sends what is queued once the silence has passed. A timer wakes the port up to
   * SPIN_BELOW_MS before the silence ends and the rest is waited out on the CPU, so a
   * request goes out as the silence ends rather than at the next whole millisecond a
   * timer fires on; a timer that fires late (a loaded CPU) sends at once.
   */
  private pump(): void {
    while (this.state === "open" && this.writeTimer === undefined && this.queue.length > 0) {
      const wait = this.quietUntil - performance.now();
      if (wait > SPIN_BELOW_MS) {
        this.stats.delayedWrites++;
        this.writeTimer = setTimeout(
          () => {
            this.writeTimer = undefined;
            this.pump();
          },
          Math.floor(wait - SPIN_BELOW_MS),
        );
        return;
      }
      if (wait > 0) {
        this.stats.delayedWrites++;
        while (performance.now() < this.quietUntil) {
          // the last fraction of a millisecond of the silence
        }
      }
      this.send(this.queue.shift()!);
    }
  }

  private send(frame: Buffer): void {
    this.discard();
    this.expected = expectedResponse(frame);
    let written = 0;
    try {
      while (written < frame.length) written += fs.writeSync(this.fd, frame, written);
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      if (e.code === "EAGAIN") {
        // The output queue is full (a line stalled by the device or adapter). The
        // request is dropped; its transaction times out and the next one starts clean.
        this.stats.writeStalls++;
      } else {
        this.lineLost(new SerialError(e.code ?? "EIO", this.path, `device disappeared: write failed (${e.message})`));
        return;
      }
    }
    const now = performance.now();
    this.stats.writes++;
    this.stats.lastWriteAt = now;
    // The kernel is still shifting the request out at the line rate; the silence
    // counts from its last character.
    this.quietUntil = now + transmitMs(written, this.settings) + this.silenceMs;
  }

  // ---- reading --------------------------------------------------------------------

  private async readLoop(reader: Reader): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (reader !== this.reader) return;
        if (done || value === undefined) {
          // A tty read returns end of file (or EIO) once the line is hung up: an
          // unplugged USB adapter, a closed pty master.
          this.lineLost(new SerialError("EIO", this.path, "device disappeared: the line was hung up"));
          return;
        }
        this.onData(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      }
    } catch (error) {
      if (reader !== this.reader) return;
      const e = error as NodeJS.ErrnoException;
      this.lineLost(new SerialError(e.code ?? "EIO", this.path, `device disappeared: read failed (${e.message})`));
    }
  }

  private onData(chunk: Buffer): void {
    if (this.state !== "open") return;
    const now = performance.now();
    this.lastReadAt = now;
    // The silence counts from the last byte read, not from when its frame is handled.
    this.quietUntil = Math.max(this.quietUntil, now + this.silenceMs);
    if (this.expected === undefined) {
      // Nobody asked: a late answer to a timed-out request, or noise.
      this.stats.bytesDiscarded += chunk.length;
      return;
    }
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    if (this.buffer.length > MAX_BUFFER) {
      this.stats.bytesDiscarded += this.buffer.length - MAX_BUFFER;
      this.buffer = this.buffer.subarray(this.buffer.length - MAX_BUFFER);
    }
    this.scan(false);
  }

  /**
   * Looks for the answer in the buffer. A candidate starts with the request's unit id
   * and its function code (or the code | 0x80 of an exception). A complete candidate
   * with a good CRC goes out at once; otherwise, once the line has been quiet for
   * `quietMs` (`settled`), the first complete candidate goes out as it is, so
   * ModbusRTU reports the CRC error instead of timing out. An incomplete frame is
   * never handed over.
   */
  private scan(settled: boolean): void {
    const expected = this.expected;
    if (expected === undefined) return;
    const buffer = this.buffer;
    let fallback: [number, number] | undefined;
    for (let i = 0; i + EXCEPTION_RESPONSE_LENGTH <= buffer.length; i++) {
      if (buffer[i] !== expected.unitId) continue;
      const code = buffer[i + 1];
      let length: number | undefined;
      if (code === (expected.functionCode | 0x80)) {
        length = EXCEPTION_RESPONSE_LENGTH;
      } else if (code === expected.functionCode) {
        if (typeof expected.length === "number") length = expected.length;
        else if (expected.length === "count-byte") length = 5 + buffer[i + 2]!;
        else if (settled) length = buffer.length - i; // length unknown: all the line sent
      }
      if (length === undefined || i + length > buffer.length) continue;
      if (hasValidCrc(buffer, i, length)) {
        this.emitFrame(i, length);
        return;
      }
      fallback ??= [i, length];
    }
    if (settled) {
      if (fallback !== undefined) this.emitFrame(fallback[0], fallback[1]);
      return;
    }
    this.armQuietTimer();
  }

  private armQuietTimer(): void {
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      if (this.state === "open") this.scan(true);
    }, this.quietMs);
  }

  private emitFrame(start: number, length: number): void {
    const frame = Buffer.from(this.buffer.subarray(start, start + length));
    this.stats.bytesDiscarded += this.buffer.length - length;
    this.buffer = Buffer.alloc(0);
    this.expected = undefined;
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    this.stats.framesEmitted++;
    this.stats.lastFrameAt = this.lastReadAt;
    this.emit("data", frame);
  }

  private discard(): void {
    this.stats.bytesDiscarded += this.buffer.length;
    this.buffer = Buffer.alloc(0);
    this.expected = undefined;
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
  }

  // ---- closing, on purpose or because the device went away -------------------------

  /** The device is gone (USB adapter unplugged, pty master closed): read EOF/EIO or a write error. */
  private lineLost(error: SerialError): void {
    if (this.state !== "open") return;
    this.lastError = error;
    // An 'error' event with no listener would throw and take the process down.
    if (this.listenerCount("error") > 0) this.emit("error", error);
    if (this.state === "open") this.teardown();
  }

  /** Stops reading, closes the fd, then reports 'close' and calls back the closers. */
  private teardown(): void {
    this.state = "closing";
    this.stopTimers();
    this.queue.length = 0;
    this.discard();
    const reader = this.reader;
    const fd = this.fd;
    this.reader = undefined;
    this.fd = -1;
    // Cancel the polled read before closing the fd, so the event loop never polls a
    // closed (and perhaps reused) descriptor number.
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => {
      graceTimer = setTimeout(resolve, CLOSE_GRACE_MS);
    });
    const cancelled = reader === undefined ? Promise.resolve() : reader.cancel().catch(() => {});
    void Promise.race([cancelled, grace]).then(() => {
      clearTimeout(graceTimer);
      closeTty(fd);
      this.state = "closed";
      const callbacks = this.closeCallbacks;
      this.closeCallbacks = [];
      this.emit("close");
      for (const callback of callbacks) callback(null);
    });
  }

  private stopTimers(): void {
    if (this.writeTimer !== undefined) clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
  }
}
