/**
 * Requests through a serial device server (a serial-to-Ethernet converter in
 * transparent or raw TCP mode; a config's `rtu_over_tcp` bus, docs/polling.md): RTU
 * frames, CRC included, written to and read from a TCP stream as they would be on the
 * line behind it. A TCP stream has no frame boundaries, so an answer is found in what
 * arrived the way a serial port finds it: from the request's unit id and function code
 * (or its exception), its length told by the answer itself, and its CRC.
 */
import { EXCEPTION_RESPONSE_LENGTH, hasValidCrc } from "../serial/frame.ts";
import { READ_DEVICE_ID } from "./device-identification.ts";
import { answerOfRtuFrame, connectSocket, OverSocket, type PduTransport, rtuFrame } from "./pdu-transport.ts";

/** More than any answer (256 bytes): what a server sends beyond it is dropped from the front. */
const MAX_BUFFER = 1024;

class RtuOverTcpPduTransport extends OverSocket {
  private buffer: Buffer = Buffer.alloc(0);

  protected send(unitId: number, pdu: Uint8Array): void {
    // What is left of an earlier exchange (a late answer to a request that timed out) is not this answer.
    this.buffer = Buffer.alloc(0);
    this.socket.write(rtuFrame(unitId, pdu));
  }

  /** A candidate answer (the unit id, then the function code or its exception) arrived but not a whole good frame. */
  protected override answerBegun(): boolean {
    const pending = this.pending;
    if (pending === undefined) return false;
    for (let at = 0; at + 1 < this.buffer.length; at++) {
      if (startsAnswer(this.buffer, at, pending.unitId, pending.functionCode)) return true;
    }
    return false;
  }

  protected onData(chunk: Buffer): void {
    const pending = this.pending;
    // Nobody is waiting: a late answer, or noise.
    if (pending === undefined) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    if (this.buffer.length > MAX_BUFFER) this.buffer = this.buffer.subarray(this.buffer.length - MAX_BUFFER);
    const buffer = this.buffer;
    for (let at = 0; at + EXCEPTION_RESPONSE_LENGTH <= buffer.length; at++) {
      if (!startsAnswer(buffer, at, pending.unitId, pending.functionCode)) continue;
      const length = answerLength(buffer, at, pending.functionCode);
      // Not all here yet: a later chunk completes it (or the timeout calls it a broken frame).
      if (at + length > buffer.length || !hasValidCrc(buffer, at, length)) continue;
      this.settle(answerOfRtuFrame(buffer.subarray(at, at + length), pending.functionCode));
      return;
    }
  }
}

function startsAnswer(buffer: Buffer, at: number, unitId: number, functionCode: number): boolean {
  const code = buffer[at + 1];
  return buffer[at] === unitId && (code === functionCode || code === (functionCode | 0x80));
}

/**
 * The length, CRC included, of the answer that starts at `at`; while it is incomplete,
 * at least one byte more than has arrived. Reads (1 to 4) carry their byte count; a
 * device identification answer (43/14) its objects, each with its length. Any other
 * function: all that arrived, taken once its CRC checks.
 */
function answerLength(buffer: Buffer, at: number, functionCode: number): number {
  const available = buffer.length - at;
  if (buffer[at + 1] === (functionCode | 0x80)) return EXCEPTION_RESPONSE_LENGTH;
  if (functionCode >= 1 && functionCode <= 4) return 5 + buffer[at + 2]!;
  if (functionCode !== READ_DEVICE_ID) return available;
  // unit, 0x2B, 0x0E, read code, conformity, more follows, next object id, object count, objects, CRC
  const count = buffer[at + 7];
  if (count === undefined) return available + 1;
  let end = at + 8;
  for (let object = 0; object < count; object++) {
    const length = buffer[end + 1];
    if (length === undefined) return available + 1;
    end += 2 + length;
  }
  return end - at + 2;
}

/** Connects to a serial device server; throws with the reason when it cannot within `connectTimeoutMs`. */
export async function openRtuOverTcpPduTransport(
  host: string,
  port: number,
  connectTimeoutMs: number,
): Promise<PduTransport> {
  const description = `rtu-over-tcp://${host}:${port}`;
  return new RtuOverTcpPduTransport(await connectSocket(host, port, connectTimeoutMs, description), description);
}
