/**
 * Byte and bit streams for the block codec: unsigned LEB128 varints, zigzag for
 * signed numbers, and MSB-first bit packing of up to 53-bit values (every number
 * the codec packs is a safe integer, so plain arithmetic carries what does not
 * fit the 32-bit bitwise operators).
 */

const two24 = 16_777_216;

/** Signed to unsigned so that small magnitudes stay small: 0, -1, 1, -2 -> 0, 1, 2, 3. */
export const zigzag = (value: number): number => (value < 0 ? -2 * value - 1 : 2 * value);
export const unzigzag = (value: number): number => (value % 2 === 1 ? -(value + 1) / 2 : value / 2);

/** Bits needed for an unsigned safe integer (0 for 0). */
export function bitWidth(value: number): number {
  if (value < 4_294_967_296) return 32 - Math.clz32(value);
  return 32 + (32 - Math.clz32(Math.floor(value / 4_294_967_296)));
}

export class ByteWriter {
  private buffer: Uint8Array<ArrayBuffer> = new Uint8Array(256);
  private length = 0;
  private acc = 0;
  private accBits = 0;

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }

  byte(value: number): void {
    this.ensure(1);
    this.buffer[this.length++] = value;
  }

  varint(value: number): void {
    this.ensure(8);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.length++] = rest;
  }

  signed(value: number): void {
    this.varint(zigzag(value));
  }

  /** Appends `width` bits of the unsigned `value`, most significant first; `align()` before bytes again. */
  bits(value: number, width: number): void {
    if (width > 24) {
      const high = Math.floor(value / two24);
      this.bits(high, width - 24);
      this.bits(value - high * two24, 24);
      return;
    }
    if (width === 0) return;
    this.acc = (this.acc << width) | value;
    this.accBits += width;
    this.ensure(4);
    while (this.accBits >= 8) {
      this.accBits -= 8;
      this.buffer[this.length++] = (this.acc >>> this.accBits) & 0xff;
    }
    this.acc &= (1 << this.accBits) - 1;
  }

  /** Pads the bit stream to a whole byte. */
  align(): void {
    if (this.accBits > 0) this.bits(0, 8 - this.accBits);
  }

  get size(): number {
    return this.length;
  }

  finish(): Uint8Array<ArrayBuffer> {
    this.align();
    return this.buffer.slice(0, this.length);
  }
}

export class ByteReader {
  private at = 0;
  private acc = 0;
  private accBits = 0;

  constructor(private readonly bytes: Uint8Array) {}

  byte(): number {
    if (this.at >= this.bytes.length) throw new RangeError("history block truncated");
    return this.bytes[this.at++] as number;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }

  signed(): number {
    return unzigzag(this.varint());
  }

  bits(width: number): number {
    if (width > 24) {
      const high = this.bits(width - 24);
      return high * two24 + this.bits(24);
    }
    if (width === 0) return 0;
    while (this.accBits < width) {
      this.acc = (this.acc << 8) | this.byte();
      this.accBits += 8;
    }
    this.accBits -= width;
    const value = (this.acc >>> this.accBits) & (width === 32 ? 0xffffffff : (1 << width) - 1);
    this.acc &= (1 << this.accBits) - 1;
    return value;
  }

  /** Drops the rest of the current byte of a bit stream. */
  align(): void {
    this.acc = 0;
    this.accBits = 0;
  }
}
