/**
 * Modbus TCP framing (Modbus Messaging on TCP/IP Implementation Guide v1.0b, section
 * 3.1.3): a 7-byte MBAP header (transaction id, protocol id 0, length of what follows,
 * unit id) before each PDU. A frame whose header cannot be right (protocol id not 0,
 * a length outside 2..254) leaves no way to find the next frame's start: the
 * connection is closed (docs/polling.md, "The Modbus TCP server").
 */

export interface RequestFrame {
  transactionId: number;
  unitId: number;
  /** Function code and data. */
  pdu: Uint8Array;
}

const headerBytes = 7;
/** Unit id plus the largest PDU (253 bytes). */
const largestLength = 254;

/** Splits received bytes into whole frames; what is left is the start of the next one. */
export function takeFrames(buffer: Uint8Array): { frames: RequestFrame[]; rest: Uint8Array } | { malformed: string } {
  const frames: RequestFrame[] = [];
  let offset = 0;
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  while (buffer.length - offset >= headerBytes) {
    const protocolId = view.getUint16(offset + 2);
    const length = view.getUint16(offset + 4);
    if (protocolId !== 0) return { malformed: `protocol id ${protocolId}, not 0 (Modbus)` };
    if (length < 2 || length > largestLength) return { malformed: `length ${length}, outside 2..${largestLength}` };
    if (buffer.length - offset < 6 + length) break;
    frames.push({
      transactionId: view.getUint16(offset),
      unitId: buffer[offset + 6] as number,
      pdu: buffer.slice(offset + headerBytes, offset + 6 + length),
    });
    offset += 6 + length;
  }
  return { frames, rest: buffer.slice(offset) };
}

/** An answer PDU in its MBAP header, with the request's transaction and unit id. */
export function answerFrame(request: RequestFrame, pdu: Uint8Array): Uint8Array {
  const frame = new Uint8Array(headerBytes + pdu.length);
  const view = new DataView(frame.buffer);
  view.setUint16(0, request.transactionId);
  view.setUint16(2, 0);
  view.setUint16(4, pdu.length + 1);
  frame[6] = request.unitId;
  frame.set(pdu, headerBytes);
  return frame;
}
