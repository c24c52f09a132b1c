/**
 * Modbus RTU framing rules the serial port needs: the CRC, the length of the
 * response a request asks for, and the inter-frame silence of a line.
 */
import type { LineSettings } from "./termios.ts";

/** An exception response: unit, function code | 0x80, exception code, CRC (2). */
export const EXCEPTION_RESPONSE_LENGTH = 5;

/** Modbus CRC-16 (polynomial 0xA001 reflected, initial 0xFFFF). Sent low byte first. */
export function crc16(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) {
    crc ^= bytes[i]!;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

/** True when bytes[start, start + length) is a frame whose last two bytes are its CRC. */
export function hasValidCrc(bytes: Uint8Array, start: number, length: number): boolean {
  if (length < 4 || start + length > bytes.length) return false;
  const end = start + length - 2;
  return crc16(bytes, start, end) === (bytes[end]! | (bytes[end + 1]! << 8));
}

/**
 * What a request makes the port wait for: the unit id and function code the answer
 * starts with, and its full length in bytes (CRC included).
 *
 * `length` is a number when the request fixes it (function codes 1-6, 15, 16, 22, 23,
 * as modbus-serial's RTUBufferedPort and ModbusRTU compute it); "count-byte" when the
 * answer carries its own byte count in its third byte (17, 20: 5 + count);
 * "unknown" otherwise (43 and custom codes), where the port waits for the line to go quiet.
 * An exception answer (function code | 0x80) is always 5 bytes.
 */
export interface ExpectedResponse {
  unitId: number;
  functionCode: number;
  length: number | "count-byte" | "unknown";
}

export function expectedResponse(request: Uint8Array): ExpectedResponse | undefined {
  if (request.length < 4) return undefined;
  const unitId = request[0]!;
  const functionCode = request[1]!;
  const word = (offset: number) => (request.length >= offset + 2 ? (request[offset]! << 8) | request[offset + 1]! : 0);
  let length: ExpectedResponse["length"];
  switch (functionCode) {
    case 1:
    case 2:
      // unit, fc, byte count, ceil(n / 8) bytes of bits, CRC
      length = 3 + Math.ceil(word(4) / 8) + 2;
      break;
    case 3:
    case 4:
      // unit, fc, byte count, 2n bytes, CRC
      length = 3 + 2 * word(4) + 2;
      break;
    case 5:
    case 6:
    case 15:
    case 16:
      // echo of unit, fc, address, value or quantity, CRC
      length = 8;
      break;
    case 22:
      // echo of unit, fc, address, and mask, or mask, CRC
      length = 10;
      break;
    case 23:
      // read/write multiple: answer carries the registers read (quantity at offset 4)
      length = 3 + 2 * word(4) + 2;
      break;
    case 17:
    case 20:
      length = "count-byte";
      break;
    default:
      length = "unknown";
  }
  return { unitId, functionCode, length };
}

/** Bits on the wire for one character: start + data + parity + stop. */
export function characterBits(settings: Pick<LineSettings, "dataBits" | "parity" | "stopBits">): number {
  return 1 + settings.dataBits + (settings.parity === "none" ? 0 : 1) + settings.stopBits;
}

/** Time on the wire of `count` characters, in milliseconds. */
export function transmitMs(count: number, settings: LineSettings): number {
  return (count * characterBits(settings) * 1000) / settings.baudRate;
}

/**
 * The silence that separates two RTU frames: 3.5 character times, fixed at 1.75 ms
 * above 19200 baud (Modbus over serial line, section 2.5.1.1).
 */
export function interFrameSilenceMs(settings: LineSettings): number {
  if (settings.baudRate > 19200) return 1.75;
  return transmitMs(3.5, settings);
}
