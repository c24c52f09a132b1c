/**
 * Single Modbus requests as raw PDUs (function code and data) to one unit id at a
 * time, for `fieldhub discover`: over Modbus TCP (MBAP framing on a socket), an RTU
 * line (fieldhub's own serial port, src/modbus/serial/) or a serial device server
 * (RTU frames on a socket: rtu-over-tcp-transport.ts). Discovery needs what
 * modbus-serial's client does not give: function 43/14 with its continuation under
 * its own control (modbus-serial's follow-up request throws from a timer when it
 * times out and loops for as long as a device says "more follows"), and a
 * gateway's exceptions 0x0A/0x0B told from a device's.
 *
 * Every request ends in an answer, never in a thrown error; a late answer to a
 * request that timed out is dropped (TCP: by transaction id; RTU: nothing is waiting).
 */
import { Socket } from "node:net";
import { crc16, hasValidCrc } from "../serial/frame.ts";
import { SerialRtuPort } from "../serial/serial-port.ts";
import type { Parity } from "../serial/termios.ts";

export type PduAnswer =
  /** The answer's PDU: its function code (the request's), then its data. */
  | { ok: true; pdu: Uint8Array }
  | { ok: false; kind: "exception"; code: number }
  | { ok: false; kind: "timeout" }
  /** Something came back, but not a well-formed answer to this request. */
  | { ok: false; kind: "bad_frame" }
  | { ok: false; kind: "disconnected"; message: string };

export interface PduTransport {
  /** tcp://host:port or the serial device's path. */
  readonly description: string;
  readonly isOpen: boolean;
  request(unitId: number, pdu: Uint8Array, timeoutMs: number): Promise<PduAnswer>;
  close(): Promise<void>;
}

export interface SerialLine {
  path: string;
  baudRate: number;
  dataBits: 7 | 8;
  parity: Parity;
  stopBits: 1 | 2;
}

interface Pending {
  unitId: number;
  functionCode: number;
  /** The MBAP transaction id (TCP only). */
  transactionId: number;
  timer: ReturnType<typeof setTimeout>;
  resolve(answer: PduAnswer): void;
}

/** The answer `pdu` gives to a request of `functionCode`: its data, its exception, or a bad frame. */
export function answerOf(pdu: Uint8Array, functionCode: number): PduAnswer {
  if (pdu.length === 2 && pdu[0] === (functionCode | 0x80)) return { ok: false, kind: "exception", code: pdu[1]! };
  if (pdu.length >= 1 && pdu[0] === functionCode) return { ok: true, pdu };
  return { ok: false, kind: "bad_frame" };
}

/** The RTU frame of a request: unit id, PDU, CRC (low byte first). */
export function rtuFrame(unitId: number, pdu: Uint8Array): Buffer {
  const frame = Buffer.alloc(pdu.length + 3);
  frame[0] = unitId;
  frame.set(pdu, 1);
  frame.writeUInt16LE(crc16(frame, 0, pdu.length + 1), pdu.length + 1);
  return frame;
}

/** The answer an RTU frame (unit id, PDU, CRC) gives to a request of `functionCode`. */
export function answerOfRtuFrame(frame: Uint8Array, functionCode: number): PduAnswer {
  if (!hasValidCrc(frame, 0, frame.length)) return { ok: false, kind: "bad_frame" };
  return answerOf(frame.subarray(1, frame.length - 2), functionCode);
}

/** One request at a time, its timer and its settling, shared by every framing. */
export abstract class OneAtATime implements PduTransport {
  protected pending: Pending | undefined;
  protected closedBecause: string | undefined;
  abstract readonly description: string;

  get isOpen(): boolean {
    return this.closedBecause === undefined;
  }

  protected abstract send(unitId: number, pdu: Uint8Array, transactionId: number): void;
  abstract close(): Promise<void>;
  /** Asked when a request times out: whether part of an answer had arrived. */
  protected answerBegun(): boolean {
    return false;
  }

  private transactionId = 0;

  request(unitId: number, pdu: Uint8Array, timeoutMs: number): Promise<PduAnswer> {
    if (this.closedBecause !== undefined) {
      return Promise.resolve({ ok: false, kind: "disconnected", message: this.closedBecause });
    }
    if (this.pending !== undefined) throw new Error("one request at a time");
    this.transactionId = (this.transactionId + 1) & 0xffff;
    const transactionId = this.transactionId;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.settle({ ok: false, kind: this.answerBegun() ? "bad_frame" : "timeout" } as PduAnswer);
      }, timeoutMs);
      this.pending = { unitId, functionCode: pdu[0]!, transactionId, timer, resolve };
      this.send(unitId, pdu, transactionId);
    });
  }

  protected settle(answer: PduAnswer): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    pending.resolve(answer);
  }

  protected lost(message: string): void {
    this.closedBecause ??= message;
    this.settle({ ok: false, kind: "disconnected", message });
  }
}

/** Requests over a TCP connection, whatever their framing: what arrives goes to `onData`; an error or a close loses the link. */
export abstract class OverSocket extends OneAtATime {
  constructor(
    protected readonly socket: Socket,
    readonly description: string,
  ) {
    super();
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (error: Error) => this.lost(error.message));
    socket.on("close", () => this.lost("the connection was closed"));
  }

  protected abstract onData(chunk: Buffer): void;

  close(): Promise<void> {
    this.lost("closed");
    return closeSocket(this.socket);
  }
}

/** MBAP header: transaction id, protocol id (0), length of what follows (unit id + PDU), unit id. */
const MBAP_LENGTH = 7;

class TcpPduTransport extends OverSocket {
  private buffer: Buffer = Buffer.alloc(0);

  protected send(unitId: number, pdu: Uint8Array, transactionId: number): void {
    const frame = Buffer.alloc(MBAP_LENGTH + pdu.length);
    frame.writeUInt16BE(transactionId, 0);
    frame.writeUInt16BE(0, 2);
    frame.writeUInt16BE(pdu.length + 1, 4);
    frame.writeUInt8(unitId, 6);
    frame.set(pdu, MBAP_LENGTH);
    this.socket.write(frame);
  }

  protected onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= MBAP_LENGTH) {
      const length = this.buffer.readUInt16BE(4);
      // A PDU is 1 to 253 bytes: anything else is not Modbus TCP, and the stream cannot be resynchronised.
      if (length < 2 || length > 254 || this.buffer.readUInt16BE(2) !== 0) {
        this.socket.destroy();
        this.lost("the peer does not speak Modbus TCP");
        return;
      }
      if (this.buffer.length < 6 + length) return;
      const frame = this.buffer.subarray(0, 6 + length);
      this.buffer = this.buffer.subarray(6 + length);
      const pending = this.pending;
      if (pending === undefined || frame.readUInt16BE(0) !== pending.transactionId) continue;
      if (frame[6] !== pending.unitId) this.settle({ ok: false, kind: "bad_frame" });
      else this.settle(answerOf(frame.subarray(MBAP_LENGTH), pending.functionCode));
    }
  }
}

/** Ends a connection, and destroys it when the peer does not close its side within half a second. */
function closeSocket(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    socket.once("close", () => resolve());
    socket.end();
    setTimeout(() => {
      socket.destroy();
      resolve();
    }, 500).unref?.();
  });
}

/** Connects to a Modbus TCP server; throws with the reason when it cannot within `connectTimeoutMs`. */
export async function openTcpPduTransport(host: string, port: number, connectTimeoutMs: number): Promise<PduTransport> {
  const description = `tcp://${host}:${port}`;
  return new TcpPduTransport(await connectSocket(host, port, connectTimeoutMs, description), description);
}

/** A TCP connection with Nagle off (one small request at a time); throws with the reason when it cannot within `connectTimeoutMs`. */
export function connectSocket(
  host: string,
  port: number,
  connectTimeoutMs: number,
  description: string,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connecting to ${description} timed out after ${connectTimeoutMs} ms`));
    }, connectTimeoutMs);
    socket.once("error", (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`cannot connect to ${description}: ${error.message}`));
    });
    socket.connect(port, host, () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

class RtuPduTransport extends OneAtATime {
  readonly description: string;

  constructor(private readonly port: SerialRtuPort) {
    super();
    this.description = port.path;
    port.on("data", (frame: Buffer) => this.onFrame(frame));
    port.on("error", (error: Error) => this.lost(error.message));
    port.on("close", () => this.lost(port.lastError?.message ?? "the port was closed"));
  }

  protected send(unitId: number, pdu: Uint8Array): void {
    this.port.write(rtuFrame(unitId, pdu));
  }

  protected override answerBegun(): boolean {
    return this.port.answerBegun();
  }

  /** The port hands over only frames that start with the request's unit id and function code. */
  private onFrame(frame: Buffer): void {
    const pending = this.pending;
    if (pending !== undefined) this.settle(answerOfRtuFrame(frame, pending.functionCode));
  }

  close(): Promise<void> {
    this.lost("closed");
    return new Promise((resolve) => this.port.close(() => resolve()));
  }
}

/** Opens an RTU line; throws a SerialError (the device and why) when it cannot. */
export async function openRtuPduTransport(line: SerialLine): Promise<PduTransport> {
  const port = new SerialRtuPort(line);
  await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
  return new RtuPduTransport(port);
}
