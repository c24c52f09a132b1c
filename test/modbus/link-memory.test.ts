/**
 * A Modbus TCP link keeps nothing of a request once it has been answered:
 * modbus-serial holds each transaction under its id until the id comes round again
 * (256 on a TCP connection), which on a connection polled every 10 s grew the heap
 * for 43 minutes (docs/benchmarks.md, "Footprint"). Polls from Debian's pymodbus.
 */

import { heapStats } from "bun:jsc";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { openModbusLink } from "../../src/modbus/link.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";

const python = "/usr/bin/python3";
let peer: PymodbusPeer | null = null;

beforeAll(async () => {
  if (!existsSync(python)) throw new Error("needs Debian's pymodbus: apt-get install python3-pymodbus");
  peer = await startPymodbusPeer({
    tcp_port: 0,
    serial: null,
    units: { "1": { hr: [{ address: 0, type: "int16", value: 1234 }] } },
  });
});

afterAll(() => {
  peer?.proc.kill();
});

/** Promises alive after a full collection: each transaction modbus-serial keeps holds one. */
function livePromises(): number {
  Bun.gc(true);
  return heapStats().objectTypeCounts.Promise ?? 0;
}

test("300 answered reads leave no transactions behind", async () => {
  const link = await openModbusLink({ kind: "tcp", host: "127.0.0.1", port: peer?.port ?? 0 }, 2_000);
  try {
    for (let i = 0; i < 20; i++) await link.read(3, 1, 0, 1, 2_000);
    const before = livePromises();
    for (let i = 0; i < 300; i++) {
      const outcome = await link.read(3, 1, 0, 1, 2_000);
      expect(outcome).toEqual({ ok: true, words: [1234], bits: null });
    }
    // Kept transactions would be 256 more (one a read, up to the id space of 256).
    expect(livePromises() - before).toBeLessThan(50);
  } finally {
    await link.close();
  }
});
