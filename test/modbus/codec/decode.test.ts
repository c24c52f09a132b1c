import { describe, expect, test } from "bun:test";
import { decodeBits, decodeWords } from "../../../src/modbus/decode.ts";
import {
  type ByteOrder,
  byteOrders,
  type DataType,
  type RegisterDecoding,
} from "../../../src/modbus/register-model.ts";
import { seededRandom } from "../../harness/seeded-random.ts";

function reg(dataType: DataType, byteOrder: ByteOrder, extra: Partial<RegisterDecoding> = {}): RegisterDecoding {
  return { id: "r", functionCode: 3, address: 0, dataType, byteOrder, bit: null, length: null, ...extra };
}

// --- An encoder written from the ByteOrder documentation, independent of the decoder. ---

/** Big-endian bytes A B C D ... of a value's two's complement / IEEE form. */
function bigEndianBytes(value: bigint | number, bytes: number, float = false): number[] {
  if (float) {
    const view = new DataView(new ArrayBuffer(bytes));
    if (bytes === 4) view.setFloat32(0, value as number);
    else view.setFloat64(0, value as number);
    return [...new Uint8Array(view.buffer)];
  }
  let unsigned = BigInt.asUintN(bytes * 8, BigInt(value));
  const out: number[] = [];
  for (let i = 0; i < bytes; i++) {
    out.unshift(Number(unsigned & 0xffn));
    unsigned >>= 8n;
  }
  return out;
}

const pairsToWords = (bytes: number[]): number[] => {
  const words: number[] = [];
  for (let i = 0; i < bytes.length; i += 2) words.push((bytes[i]! << 8) | bytes[i + 1]!);
  return words;
};

/** The wire words of big-endian `be` in `order`. */
function toWire(be: number[], order: ByteOrder): number[] {
  if (be.length === 2) return pairsToWords(order === "BADC" || order === "DCBA" ? [be[1]!, be[0]!] : be);
  if (be.length === 4) {
    // The name literally lists which big-endian byte travels in each wire position.
    return pairsToWords([...order].map((letter) => be[letter.charCodeAt(0) - 65]!));
  }
  // 64 bits: the same names over four words.
  let words = pairsToWords(be);
  if (order === "CDAB" || order === "DCBA") words = words.reverse();
  if (order === "BADC" || order === "DCBA") words = words.map((w) => ((w & 0xff) << 8) | (w >> 8));
  return words;
}

const numericTypes: { type: DataType; bytes: number; float?: boolean; signed?: boolean }[] = [
  { type: "int16", bytes: 2, signed: true },
  { type: "uint16", bytes: 2 },
  { type: "int32", bytes: 4, signed: true },
  { type: "uint32", bytes: 4 },
  { type: "float32", bytes: 4, float: true },
  { type: "int64", bytes: 8, signed: true },
  { type: "uint64", bytes: 8 },
  { type: "float64", bytes: 8, float: true },
];

describe("decodeWords: known wire words", () => {
  // Written by hand from the byte-order table in register-model.ts.
  const cases: { type: DataType; wire: Record<ByteOrder, number[]>; value: number }[] = [
    { type: "int16", value: -2, wire: { ABCD: [0xfffe], CDAB: [0xfffe], BADC: [0xfeff], DCBA: [0xfeff] } },
    { type: "uint16", value: 0x1234, wire: { ABCD: [0x1234], CDAB: [0x1234], BADC: [0x3412], DCBA: [0x3412] } },
    { type: "int16", value: -32768, wire: { ABCD: [0x8000], CDAB: [0x8000], BADC: [0x0080], DCBA: [0x0080] } },
    { type: "uint16", value: 65535, wire: { ABCD: [0xffff], CDAB: [0xffff], BADC: [0xffff], DCBA: [0xffff] } },
    {
      type: "int32",
      value: -123456789, // 0xF8A432EB
      wire: { ABCD: [0xf8a4, 0x32eb], CDAB: [0x32eb, 0xf8a4], BADC: [0xa4f8, 0xeb32], DCBA: [0xeb32, 0xa4f8] },
    },
    {
      type: "uint32",
      value: 0xdeadbeef,
      wire: { ABCD: [0xdead, 0xbeef], CDAB: [0xbeef, 0xdead], BADC: [0xadde, 0xefbe], DCBA: [0xefbe, 0xadde] },
    },
    {
      type: "float32",
      value: 123.456, // 0x42F6E979
      wire: { ABCD: [0x42f6, 0xe979], CDAB: [0xe979, 0x42f6], BADC: [0xf642, 0x79e9], DCBA: [0x79e9, 0xf642] },
    },
    {
      type: "float32",
      value: -1.5, // 0xBFC00000
      wire: { ABCD: [0xbfc0, 0x0000], CDAB: [0x0000, 0xbfc0], BADC: [0xc0bf, 0x0000], DCBA: [0x0000, 0xc0bf] },
    },
    {
      type: "float64",
      value: 123.456, // 0x405EDD2F1A9FBE77
      wire: {
        ABCD: [0x405e, 0xdd2f, 0x1a9f, 0xbe77],
        CDAB: [0xbe77, 0x1a9f, 0xdd2f, 0x405e],
        BADC: [0x5e40, 0x2fdd, 0x9f1a, 0x77be],
        DCBA: [0x77be, 0x9f1a, 0x2fdd, 0x5e40],
      },
    },
    {
      type: "float64",
      value: -2.5, // 0xC004000000000000
      wire: {
        ABCD: [0xc004, 0, 0, 0],
        CDAB: [0, 0, 0, 0xc004],
        BADC: [0x04c0, 0, 0, 0],
        DCBA: [0, 0, 0, 0x04c0],
      },
    },
    {
      type: "int64",
      value: Number(0x0102030405060708n), // beyond 2^53: the nearest double
      wire: {
        ABCD: [0x0102, 0x0304, 0x0506, 0x0708],
        CDAB: [0x0708, 0x0506, 0x0304, 0x0102],
        BADC: [0x0201, 0x0403, 0x0605, 0x0807],
        DCBA: [0x0807, 0x0605, 0x0403, 0x0201],
      },
    },
    {
      type: "int64",
      value: -1,
      wire: {
        ABCD: [0xffff, 0xffff, 0xffff, 0xffff],
        CDAB: [0xffff, 0xffff, 0xffff, 0xffff],
        BADC: [0xffff, 0xffff, 0xffff, 0xffff],
        DCBA: [0xffff, 0xffff, 0xffff, 0xffff],
      },
    },
    {
      type: "int64",
      value: -(2 ** 63),
      wire: {
        ABCD: [0x8000, 0, 0, 0],
        CDAB: [0, 0, 0, 0x8000],
        BADC: [0x0080, 0, 0, 0],
        DCBA: [0, 0, 0, 0x0080],
      },
    },
    {
      type: "uint64",
      value: 2 ** 64, // 2^64 - 1 rounds up to 2^64 as a double
      wire: {
        ABCD: [0xffff, 0xffff, 0xffff, 0xffff],
        CDAB: [0xffff, 0xffff, 0xffff, 0xffff],
        BADC: [0xffff, 0xffff, 0xffff, 0xffff],
        DCBA: [0xffff, 0xffff, 0xffff, 0xffff],
      },
    },
    {
      type: "uint64",
      value: 2 ** 53 - 1, // the largest exactly representable: 0x001FFFFFFFFFFFFF
      wire: {
        ABCD: [0x001f, 0xffff, 0xffff, 0xffff],
        CDAB: [0xffff, 0xffff, 0xffff, 0x001f],
        BADC: [0x1f00, 0xffff, 0xffff, 0xffff],
        DCBA: [0xffff, 0xffff, 0xffff, 0x1f00],
      },
    },
  ];
  for (const { type, wire, value } of cases) {
    for (const order of byteOrders) {
      test(`${type} ${order} ${value}`, () => {
        expect(decodeWords(reg(type, order), wire[order], 0)).toBe(value);
      });
    }
  }

  test("decodes at an offset inside a larger block", () => {
    const block = [0xaaaa, 0xbbbb, 0x42f6, 0xe979, 0xcccc];
    expect(decodeWords(reg("float32", "ABCD"), block, 2)).toBe(123.456);
    expect(decodeWords(reg("uint16", "ABCD"), block, 4)).toBe(0xcccc);
  });

  test("uint64 beyond 2^53 rounds to the nearest double, as Number(BigInt) does", () => {
    // 2^53 + 1 is a tie between 2^53 and 2^53 + 2: round half to even gives 2^53.
    const value = 2n ** 53n + 1n;
    const words = toWire(bigEndianBytes(value, 8), "ABCD");
    expect(decodeWords(reg("uint64", "ABCD"), words, 0)).toBe(Number(value));
    expect(decodeWords(reg("uint64", "ABCD"), words, 0)).toBe(2 ** 53);
    const odd = 2n ** 60n + 12345n;
    expect(decodeWords(reg("int64", "CDAB"), toWire(bigEndianBytes(-odd, 8), "CDAB"), 0)).toBe(Number(-odd));
  });

  test("words outside 0..0xFFFF are taken modulo 2^16 (a signed int16 from some libraries)", () => {
    expect(decodeWords(reg("uint16", "ABCD"), [-1], 0)).toBe(0xffff);
  });
});

describe("decodeWords: round trip of random values through the test encoder", () => {
  const random = seededRandom(20240611);
  const random64 = (): bigint =>
    (BigInt(Math.floor(random() * 2 ** 32)) << 32n) | BigInt(Math.floor(random() * 2 ** 32));
  for (const { type, bytes, float, signed } of numericTypes) {
    for (const order of byteOrders) {
      test(`${type} ${order}`, () => {
        for (let n = 0; n < 500; n++) {
          if (float) {
            // Random bit patterns: every exponent, subnormals, NaNs and infinities included.
            const bits = bytes === 4 ? [random64() & 0xffffffffn] : [random64()];
            const be = bigEndianBytes(bits[0]!, bytes);
            const view = new DataView(new Uint8Array(be).buffer);
            const value = bytes === 4 ? view.getFloat32(0) : view.getFloat64(0);
            const decoded = decodeWords(reg(type, order), toWire(be, order), 0);
            if (!Number.isFinite(value)) expect(decoded).toBeNull();
            else if (bytes === 4) expect(Math.fround(decoded as number)).toBe(value);
            else expect(decoded).toBe(value);
          } else {
            const bits = BigInt.asUintN(bytes * 8, random64());
            const value = signed ? BigInt.asIntN(bytes * 8, bits) : bits;
            const decoded = decodeWords(reg(type, order), toWire(bigEndianBytes(value, bytes), order), 0);
            expect(decoded).toBe(Number(value));
          }
        }
      });
    }
  }

  test("random negative integers of every signed width", () => {
    for (let n = 0; n < 200; n++) {
      const small = -Math.floor(random() * 32768) - 1;
      expect(decodeWords(reg("int16", "DCBA"), toWire(bigEndianBytes(small, 2), "DCBA"), 0)).toBe(small);
      const medium = -Math.floor(random() * 2 ** 31) - 1;
      expect(decodeWords(reg("int32", "BADC"), toWire(bigEndianBytes(medium, 4), "BADC"), 0)).toBe(medium);
      const large = -Math.floor(random() * 2 ** 53);
      expect(decodeWords(reg("int64", "CDAB"), toWire(bigEndianBytes(large, 8), "CDAB"), 0)).toBe(large);
    }
  });
});

describe("decodeWords: floats", () => {
  test("float32 comes back as the shortest decimal of the same float32", () => {
    for (const value of [0.1, 123.456, -0.001, 3.4028234663852886e38, 1e-45, 20.5, 1 / 3]) {
      const decoded = decodeWords(reg("float32", "ABCD"), toWire(bigEndianBytes(value, 4, true), "ABCD"), 0);
      expect(Math.fround(decoded as number)).toBe(Math.fround(value));
    }
    expect(decodeWords(reg("float32", "ABCD"), toWire(bigEndianBytes(0.1, 4, true), "ABCD"), 0)).toBe(0.1);
    expect(decodeWords(reg("float32", "ABCD"), toWire(bigEndianBytes(1 / 3, 4, true), "ABCD"), 0)).toBe(0.33333334);
  });

  test("NaN and ±Infinity decode to null in every byte order", () => {
    for (const order of byteOrders) {
      for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        expect(decodeWords(reg("float32", order), toWire(bigEndianBytes(value, 4, true), order), 0)).toBeNull();
        expect(decodeWords(reg("float64", order), toWire(bigEndianBytes(value, 8, true), order), 0)).toBeNull();
      }
      // A signalling NaN and a NaN with payload, as devices send for "no value".
      expect(decodeWords(reg("float32", order), toWire([0x7f, 0x80, 0x00, 0x01], order), 0)).toBeNull();
      expect(decodeWords(reg("float32", order), toWire([0xff, 0xff, 0xff, 0xff], order), 0)).toBeNull();
    }
    expect(decodeWords(reg("float32", "ABCD"), [0x7fc0, 0x0000], 0)).toBeNull();
    expect(decodeWords(reg("float64", "ABCD"), [0x7ff0, 0, 0, 0], 0)).toBeNull();
  });
});

describe("decodeWords: bool on function codes 3/4", () => {
  test("each bit 0..15 of the word, 0 = least significant", () => {
    for (let bit = 0; bit < 16; bit++) {
      for (let other = 0; other < 16; other++) {
        const register = reg("bool", "ABCD", { bit: other });
        expect(decodeWords(register, [1 << bit], 0)).toBe(bit === other ? 1 : 0);
        expect(decodeWords(register, [0xffff ^ (1 << bit)], 0)).toBe(bit === other ? 0 : 1);
      }
    }
  });

  test("the bit is counted after the byte order (BADC and DCBA swap the two bytes)", () => {
    // Value 0x0001 arrives byte-swapped as 0x0100.
    expect(decodeWords(reg("bool", "BADC", { bit: 0 }), [0x0100], 0)).toBe(1);
    expect(decodeWords(reg("bool", "DCBA", { bit: 8 }), [0x0100], 0)).toBe(0);
    expect(decodeWords(reg("bool", "CDAB", { bit: 8 }), [0x0100], 0)).toBe(1);
    expect(decodeWords(reg("bool", "ABCD", { bit: 15 }), [0x0080], 0)).toBe(0);
    expect(decodeWords(reg("bool", "DCBA", { bit: 15 }), [0x0080], 0)).toBe(1);
  });

  test("a bool without a bit 0..15 decodes to null rather than stopping the poll cycle", () => {
    for (const bit of [null, 16, -1, 1.5]) {
      expect(decodeWords(reg("bool", "ABCD", { bit }), [0xffff], 0)).toBeNull();
    }
  });
});

describe("decodeWords: strings", () => {
  const str = (order: ByteOrder, length: number | null) => reg("string", order, { length });

  test("two characters per word, high byte first; BADC and DCBA swap the bytes of each word", () => {
    // "Hello" in three words, NUL-padded.
    expect(decodeWords(str("ABCD", 3), [0x4865, 0x6c6c, 0x6f00], 0)).toBe("Hello");
    expect(decodeWords(str("CDAB", 3), [0x4865, 0x6c6c, 0x6f00], 0)).toBe("Hello");
    expect(decodeWords(str("BADC", 3), [0x6548, 0x6c6c, 0x006f], 0)).toBe("Hello");
    expect(decodeWords(str("DCBA", 3), [0x6548, 0x6c6c, 0x006f], 0)).toBe("Hello");
  });

  test("trailing NULs and spaces are trimmed, leading and inner ones kept", () => {
    expect(decodeWords(str("ABCD", 4), [0x4142, 0x2020, 0x0020, 0x0000], 0)).toBe("AB");
    expect(decodeWords(str("ABCD", 3), [0x2041, 0x2042, 0x0000], 0)).toBe(" A B");
    expect(decodeWords(str("ABCD", 2), [0x4100, 0x4200], 0)).toBe("A\0B");
    expect(decodeWords(str("ABCD", 2), [0x0000, 0x2000], 0)).toBe("");
  });

  test("Latin-1 and control characters come through as their code points", () => {
    // "25°C é" then padding: 0xB0 is the degree sign, 0xE9 e-acute in Latin-1.
    const words = [0x3235, 0xb043, 0x20e9, 0x0d0a, 0x2000];
    expect(decodeWords(str("ABCD", 5), words, 0)).toBe("25°C é\r\n");
    const swapped = words.map((w) => ((w & 0xff) << 8) | (w >> 8));
    expect(decodeWords(str("BADC", 5), swapped, 0)).toBe("25°C é\r\n");
  });

  test("the string's words start at the offset and span exactly its length", () => {
    expect(decodeWords(str("ABCD", 1), [0x5858, 0x4f4b, 0x5858], 1)).toBe("OK");
    // No length: one word, as registerSpan counts it.
    expect(decodeWords(str("ABCD", null), [0x4f4b, 0x5858], 0)).toBe("OK");
  });
});

describe("decodeWords: missing words", () => {
  test("returns null when the block does not hold the whole register", () => {
    expect(decodeWords(reg("uint16", "ABCD"), [], 0)).toBeNull();
    expect(decodeWords(reg("float32", "ABCD"), [0x42f6], 0)).toBeNull();
    expect(decodeWords(reg("float32", "ABCD"), [0, 0x42f6, 0xe979], 2)).toBeNull();
    expect(decodeWords(reg("float64", "CDAB"), [0, 0, 0], 0)).toBeNull();
    expect(decodeWords(reg("int64", "ABCD"), [0, 0, 0, 0], 1)).toBeNull();
    expect(decodeWords(reg("string", "ABCD", { length: 4 }), [0x4142, 0x4344, 0x4546], 0)).toBeNull();
    expect(decodeWords(reg("bool", "ABCD", { bit: 0 }), [1], 1)).toBeNull();
  });

  test("returns null for a negative or fractional offset and for holes in the block", () => {
    expect(decodeWords(reg("uint16", "ABCD"), [1, 2], -1)).toBeNull();
    expect(decodeWords(reg("uint16", "ABCD"), [1, 2], 0.5)).toBeNull();
    const sparse: number[] = [1];
    sparse[2] = 3;
    expect(decodeWords(reg("int32", "ABCD"), sparse, 0)).toBeNull();
  });
});

describe("decodeBits", () => {
  test("one coil or discrete input as 0 or 1", () => {
    const bits = [true, false, false, true];
    expect([0, 1, 2, 3].map((offset) => decodeBits(bits, offset))).toEqual([1, 0, 0, 1]);
  });

  test("null outside the block", () => {
    expect(decodeBits([true], 1)).toBeNull();
    expect(decodeBits([true], -1)).toBeNull();
    expect(decodeBits([], 0)).toBeNull();
    expect(decodeBits([true, true], 0.5)).toBeNull();
  });
});
