/**
 * The Modbus TCP server's own door, with the bus behind it scripted (test/e2e/
 * modbus-server.test.ts runs it on a real fieldhub in front of real equipment): what
 * no ordinary master sends, and what takes too long to wait for there. Raw sockets
 * on loopback: pipelined requests answered by transaction id, protocol refusals
 * (exception 1 for function 43, 3 for a quantity of 0, 2 past address 65535),
 * a PDU of the wrong length closing its connection, max_connections, the idle close,
 * `allow` with IPv6 networks over ::1.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { parseNetwork } from "../../src/lib/address-networks.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { type ServedBus, startModbusServer } from "../../src/modbus-server/index.ts";
import { freePort } from "../harness/cli.ts";
import { modbusFrame, rawModbusClient } from "../harness/raw-modbus-client.ts";

const gateway = {
  id: "00000000-0000-4000-8000-000000000001",
  serial: "GW",
  bus: { type: "tcp" as const },
  heartbeatMs: 60_000,
  devices: [
    {
      id: "00000000-0000-4000-8000-000000000002",
      name: "meter",
      slaveId: 1,
      host: "127.0.0.1",
      port: 502,
      pollIntervalMs: 1000,
      timeoutMs: 500,
      retries: 0,
      maxRegistersPerRequest: 125,
      maxGap: 0,
      pauseMs: 0,
      storageIntervalMs: 300_000,
      registers: [],
    },
  ],
};

/**
 * Addresses 0..9 are in memory (words 1000 + address); from 1000 the device answers
 * exception 2; from 2000 it does not answer; anything else it answers after 50 ms.
 */
const bus: ServedBus = {
  cached: (_device, _fc, start, count) =>
    start + count <= 10 ? { words: Array.from({ length: count }, (_, i) => 1000 + start + i), bits: null } : null,
  read: async (_device, _fc, start, count) => {
    await Bun.sleep(50);
    if (start >= 2000) return { ok: false, kind: "timeout" };
    if (start >= 1000) return { ok: false, kind: "exception", code: 2 };
    return { ok: true, words: Array.from({ length: count }, (_, i) => start + i), bits: null };
  },
  write: async () => ({ ok: true }),
  quarantined: () => false,
};

let running: ReturnType<typeof startModbusServer> | null = null;
afterEach(async () => {
  await running?.stop();
  running = null;
});

async function serve(options: { maxConnections?: number; idleMs?: number; host?: string; allow?: string[] } = {}) {
  const port = freePort();
  const allow =
    options.allow?.map((text) => {
      const network = parseNetwork(text);
      if ("problem" in network) throw new Error(network.problem);
      return network;
    }) ?? null;
  running = startModbusServer({
    config: {
      gatewayId: gateway.id,
      gatewaySerial: gateway.serial,
      host: options.host ?? "127.0.0.1",
      port,
      writes: false,
      allow,
      maxConnections: options.maxConnections ?? 16,
      units: [{ unitId: 1, deviceId: gateway.devices[0]?.id ?? "", maxAgeMs: 1000 }],
    },
    gateway,
    bus,
    audit: async () => {},
    clock: systemClock,
    logger: silentLogger(),
    idleMs: options.idleMs,
  });
  await running.listening;
  return port;
}

const client = rawModbusClient;
const frame = modbusFrame;

describe("requests", () => {
  test("pipelined requests are each answered under their transaction id, a quick one before a slow one", async () => {
    const port = await serve();
    const master = client(port);
    await master.opened;
    // Transaction 1 goes to the bus (50 ms), transaction 2 is answered from memory.
    master.socket.write(Uint8Array.of(...frame(1, 1, [3, 0, 100, 0, 1]), ...frame(2, 1, [3, 0, 2, 0, 2])));
    expect(await master.take(13)).toEqual([0, 2, 0, 0, 0, 7, 1, 3, 4, 0x03, 0xea, 0x03, 0xeb]);
    expect(await master.take(11)).toEqual([0, 1, 0, 0, 0, 5, 1, 3, 2, 0, 100]);
    master.socket.destroy();
  });

  test("what the protocol forbids is answered by the server: function 43 exception 1, quantity 0 exception 3, past 65535 exception 2", async () => {
    const port = await serve();
    const master = client(port);
    await master.opened;
    master.socket.write(frame(5, 1, [43, 14, 1, 0]));
    expect(await master.take(9)).toEqual([0, 5, 0, 0, 0, 3, 1, 0xab, 1]);
    master.socket.write(frame(6, 1, [3, 0, 0, 0, 0]));
    expect(await master.take(9)).toEqual([0, 6, 0, 0, 0, 3, 1, 0x83, 3]);
    master.socket.write(frame(7, 1, [4, 0xff, 0xff, 0, 2]));
    expect(await master.take(9)).toEqual([0, 7, 0, 0, 0, 3, 1, 0x84, 2]);
    // A write while writes are off, and a unit no device has.
    master.socket.write(frame(8, 1, [6, 0, 1, 0, 9]));
    expect(await master.take(9)).toEqual([0, 8, 0, 0, 0, 3, 1, 0x86, 1]);
    master.socket.write(frame(9, 2, [3, 0, 0, 0, 1]));
    expect(await master.take(9)).toEqual([0, 9, 0, 0, 0, 3, 2, 0x83, 10]);
    expect(running?.stats().requests).toEqual({ cache: 0, bus: 0, exception: 5, refused: 0 });
    master.socket.destroy();
  });

  test("the device's exception is passed back as it came; a device that does not answer is exception 11", async () => {
    const port = await serve();
    const master = client(port);
    await master.opened;
    master.socket.write(frame(3, 1, [4, 0x03, 0xe8, 0, 1]));
    expect(await master.take(9)).toEqual([0, 3, 0, 0, 0, 3, 1, 0x84, 2]);
    master.socket.write(frame(4, 1, [3, 0x07, 0xd0, 0, 1]));
    expect(await master.take(9)).toEqual([0, 4, 0, 0, 0, 3, 1, 0x83, 11]);
    expect(running?.stats().requests).toEqual({ cache: 0, bus: 1, exception: 1, refused: 0 });
    master.socket.destroy();
  });

  test("a read with a PDU of the wrong length closes its connection, and only that one", async () => {
    const port = await serve();
    const [bad, good] = [client(port), client(port)];
    await Promise.all([bad.opened, good.opened]);
    bad.socket.write(frame(1, 1, [3, 0, 0, 0]));
    await Promise.race([bad.ended, Bun.sleep(3000)]);
    expect(bad.isClosed()).toBe(true);
    good.socket.write(frame(2, 1, [3, 0, 0, 0, 1]));
    expect(await good.take(11)).toEqual([0, 2, 0, 0, 0, 5, 1, 3, 2, 0x03, 0xe8]);
    good.socket.destroy();
  });
});

describe("connections", () => {
  test("past max_connections a new connection is closed at once; a place freed is taken again", async () => {
    const port = await serve({ maxConnections: 2 });
    const [first, second] = [client(port), client(port)];
    await Promise.all([first.opened, second.opened]);
    await Bun.sleep(50);
    const third = client(port);
    await Promise.race([third.ended, Bun.sleep(3000)]);
    expect(third.isClosed()).toBe(true);
    expect(running?.stats().clientsConnected).toBe(2);
    expect(running?.stats().requests.refused).toBe(1);
    first.socket.destroy();
    await first.ended;
    await Bun.sleep(50);
    const fourth = client(port);
    await fourth.opened;
    fourth.socket.write(frame(1, 1, [3, 0, 0, 0, 1]));
    expect(await fourth.take(11)).toEqual([0, 1, 0, 0, 0, 5, 1, 3, 2, 0x03, 0xe8]);
    second.socket.destroy();
    fourth.socket.destroy();
  });

  test("a connection quiet for the idle time is closed; one in use is not", async () => {
    const port = await serve({ idleMs: 300 });
    const [quiet, busy] = [client(port), client(port)];
    await Promise.all([quiet.opened, busy.opened]);
    for (let i = 0; i < 8; i++) {
      busy.socket.write(frame(i, 1, [3, 0, 0, 0, 1]));
      await busy.take(11);
      await Bun.sleep(100);
    }
    expect(quiet.isClosed()).toBe(true);
    expect(busy.isClosed()).toBe(false);
    busy.socket.destroy();
  });
});

describe("allow over IPv6", () => {
  test("a client on ::1 is admitted by ::1/128 and by ::/0, refused by fd00::/64; IPv4 networks do not admit it", async () => {
    const answered = async (allow: string[]) => {
      const port = await serve({ host: "::1", allow });
      const master = client(port, "::1");
      await master.opened;
      master.socket.write(frame(1, 1, [3, 0, 0, 0, 1]));
      const answer = await master.take(11);
      master.socket.destroy();
      await running?.stop();
      running = null;
      return answer.length > 0;
    };
    expect(await answered(["::1/128"])).toBe(true);
    expect(await answered(["fd00::/64", "::/0"])).toBe(true);
    expect(await answered(["fd00::/64"])).toBe(false);
    expect(await answered(["127.0.0.0/8", "0.0.0.0/0"])).toBe(false);
  });
});
