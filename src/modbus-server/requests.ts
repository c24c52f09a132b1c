/**
 * The PDUs the server understands and the answers it builds (Modbus Application
 * Protocol v1.1b3, sections 6.1-6.4, 6.5, 6.6, 6.11, 6.12 and 7): reads of coils,
 * discrete inputs, holding and input registers, and the four writes. A quantity or
 * value out of the protocol's range is exception 3, an address range past 65535
 * exception 2, any other function code exception 1; a PDU whose length does not fit
 * its function code is malformed (the connection is closed).
 */
import type { WritePayload } from "../modbus/link.ts";
import type { FunctionCode, WriteFunctionCode } from "../modbus/register-model.ts";

export type ServerRequest =
  | { kind: "read"; functionCode: FunctionCode; start: number; count: number }
  | { kind: "write"; functionCode: WriteFunctionCode; start: number; count: number; payload: WritePayload }
  /** A request the protocol itself refuses: answered with this exception, nothing asked of a device. */
  | { kind: "refused"; functionCode: number; exception: number }
  | { kind: "malformed"; reason: string };

export const exception = {
  illegalFunction: 1,
  illegalDataAddress: 2,
  illegalDataValue: 3,
  serverDeviceFailure: 4,
  serverDeviceBusy: 6,
  gatewayPathUnavailable: 10,
  gatewayTargetFailedToRespond: 11,
} as const;

/** The largest quantities a request may ask for (sections 6.1-6.4, 6.11, 6.12). */
const largest = { bitsRead: 2000, wordsRead: 125, bitsWritten: 1968, wordsWritten: 123 } as const;

export function parseRequest(pdu: Uint8Array): ServerRequest {
  const functionCode = pdu[0] as number;
  const view = new DataView(pdu.buffer, pdu.byteOffset, pdu.byteLength);
  const word = (at: number) => view.getUint16(at);
  const refused = (code: number): ServerRequest => ({ kind: "refused", functionCode, exception: code });
  const malformed = (): ServerRequest => ({
    kind: "malformed",
    reason: `function code ${functionCode} with ${pdu.length - 1} data bytes`,
  });
  switch (functionCode) {
    case 1:
    case 2:
    case 3:
    case 4: {
      if (pdu.length !== 5) return malformed();
      const start = word(1);
      const count = word(3);
      const most = functionCode <= 2 ? largest.bitsRead : largest.wordsRead;
      if (count < 1 || count > most) return refused(exception.illegalDataValue);
      if (start + count > 65536) return refused(exception.illegalDataAddress);
      return { kind: "read", functionCode, start, count };
    }
    case 5: {
      if (pdu.length !== 5) return malformed();
      const value = word(3);
      if (value !== 0xff00 && value !== 0x0000) return refused(exception.illegalDataValue);
      return {
        kind: "write",
        functionCode,
        start: word(1),
        count: 1,
        payload: { words: null, bits: [value === 0xff00] },
      };
    }
    case 6:
      if (pdu.length !== 5) return malformed();
      return { kind: "write", functionCode, start: word(1), count: 1, payload: { words: [word(3)], bits: null } };
    case 15:
    case 16: {
      if (pdu.length < 6 || pdu.length !== 6 + (pdu[5] as number)) return malformed();
      const start = word(1);
      const count = word(3);
      const byteCount = pdu[5] as number;
      const bits = functionCode === 15;
      const most = bits ? largest.bitsWritten : largest.wordsWritten;
      const bytesNeeded = bits ? Math.ceil(count / 8) : count * 2;
      if (count < 1 || count > most || byteCount !== bytesNeeded) return refused(exception.illegalDataValue);
      if (start + count > 65536) return refused(exception.illegalDataAddress);
      const payload: WritePayload = bits
        ? {
            words: null,
            bits: Array.from({ length: count }, (_, i) => (((pdu[6 + (i >> 3)] as number) >> (i & 7)) & 1) === 1),
          }
        : { words: Array.from({ length: count }, (_, i) => word(6 + 2 * i)), bits: null };
      return { kind: "write", functionCode, start, count, payload };
    }
    default:
      return refused(exception.illegalFunction);
  }
}

/** The answer to a read: the words (or bits) as the device sent them. */
export function readAnswer(
  functionCode: FunctionCode,
  data: { words: readonly number[]; bits: null } | { words: null; bits: readonly boolean[] },
): Uint8Array {
  if (data.bits !== null) {
    const bytes = Math.ceil(data.bits.length / 8);
    const pdu = new Uint8Array(2 + bytes);
    pdu[0] = functionCode;
    pdu[1] = bytes;
    data.bits.forEach((bit, i) => {
      if (bit) pdu[2 + (i >> 3)] = (pdu[2 + (i >> 3)] as number) | (1 << (i & 7));
    });
    return pdu;
  }
  const pdu = new Uint8Array(2 + 2 * data.words.length);
  const view = new DataView(pdu.buffer);
  pdu[0] = functionCode;
  pdu[1] = 2 * data.words.length;
  data.words.forEach((word, i) => {
    view.setUint16(2 + 2 * i, word & 0xffff);
  });
  return pdu;
}

/** A write's answer: 5 and 6 echo the request; 15 and 16 give the start and quantity. */
export function writeAnswer(request: Extract<ServerRequest, { kind: "write" }>): Uint8Array {
  const pdu = new Uint8Array(5);
  const view = new DataView(pdu.buffer);
  pdu[0] = request.functionCode;
  view.setUint16(1, request.start);
  if (request.functionCode === 5) view.setUint16(3, request.payload.bits?.[0] === true ? 0xff00 : 0);
  else if (request.functionCode === 6) view.setUint16(3, request.payload.words?.[0] ?? 0);
  else view.setUint16(3, request.count);
  return pdu;
}

export function exceptionAnswer(functionCode: number, code: number): Uint8Array {
  return Uint8Array.of((functionCode | 0x80) & 0xff, code);
}
