/**
 * RTU frames over a TCP stream (src/modbus/discover/rtu-over-tcp-transport.ts) against a
 * scripted serial device server: an answer split over TCP segments is put back together,
 * bytes of another exchange before it are skipped, a 43/14 answer's length is read from
 * its objects, and a frame with a bad CRC is a broken answer, not silence.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer, type Server, type Socket } from "node:net";
import type { PduTransport } from "../../../src/modbus/discover/pdu-transport.ts";
import { openRtuOverTcpPduTransport } from "../../../src/modbus/discover/rtu-over-tcp-transport.ts";
import { crc16 } from "../../../src/modbus/serial/frame.ts";

const withCrc = (...bytes: number[]) => {
  const frame = Buffer.from(bytes);
  const crc = crc16(frame);
  return Buffer.concat([frame, Buffer.of(crc & 0xff, crc >> 8)]);
};

/** What the server writes back for a request to each unit, in chunks written one after another. */
const replies: Record<number, Buffer[]> = {
  // Holding register 0 = 0x1234, one byte a segment.
  1: [...withCrc(1, 3, 2, 0x12, 0x34)].map((byte) => Buffer.of(byte)),
  // A late answer of unit 1 and noise, then the answer.
  2: [Buffer.concat([withCrc(1, 3, 2, 0, 1), Buffer.of(0x00, 0xff)]), withCrc(2, 0x83, 2)],
  // 43/14 with two objects ("AB", "C"), split inside its second object.
  3: (() => {
    const frame = withCrc(3, 0x2b, 0x0e, 1, 1, 0, 0, 2, 0, 2, 0x41, 0x42, 1, 1, 0x43);
    return [frame.subarray(0, 12), frame.subarray(12)];
  })(),
  // A whole frame whose CRC is wrong.
  4: [Buffer.of(4, 3, 2, 0, 7, 0, 0)],
};

let server: Server;
let link: PduTransport;

beforeAll(async () => {
  server = createServer((socket: Socket) => {
    socket.setNoDelay(true);
    socket.on("data", async (request: Buffer) => {
      for (const chunk of replies[request[0]!] ?? []) {
        socket.write(chunk);
        await Bun.sleep(5);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  link = await openRtuOverTcpPduTransport("127.0.0.1", port, 3000);
});

afterAll(async () => {
  await link?.close();
  server?.close();
});

const read0 = Uint8Array.of(3, 0, 0, 0, 1);

test("an answer split over segments, and one after another exchange's bytes, are found by unit id, function code, length and CRC", async () => {
  expect(await link.request(1, read0, 1000)).toEqual({ ok: true, pdu: Uint8Array.of(3, 2, 0x12, 0x34) });
  expect(await link.request(2, read0, 1000)).toEqual({ ok: false, kind: "exception", code: 2 });
});

test("a 43/14 answer is complete when its objects are", async () => {
  const answer = await link.request(3, Uint8Array.of(0x2b, 0x0e, 1, 0), 1000);
  expect(answer).toEqual({
    ok: true,
    pdu: Uint8Array.of(0x2b, 0x0e, 1, 1, 0, 0, 2, 0, 2, 0x41, 0x42, 1, 1, 0x43),
  });
});

test("a bad CRC is a broken answer; no answer at all is silence", async () => {
  expect(await link.request(4, read0, 200)).toEqual({ ok: false, kind: "bad_frame" });
  expect(await link.request(5, read0, 100)).toEqual({ ok: false, kind: "timeout" });
});
