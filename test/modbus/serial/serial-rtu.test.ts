/**
 * Modbus RTU over fieldhub's serial transport, against real peers on socat pty pairs:
 * Debian's pymodbus RTU server, and a scripted misbehaving device. No mocks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type ModbusRTU from "modbus-serial";
import {
  characterBits,
  crc16,
  expectedResponse,
  interFrameSilenceMs,
  openSerialRtuClient,
  SerialError,
  SerialRtuPort,
} from "../../../src/modbus/serial/index.ts";
import { buildLineTermios, decodeTermios, TERMIOS_SIZE } from "../../../src/modbus/serial/termios.ts";
import { type Child, missingPeers, Peers, within } from "./peers.ts";

const holding = (i: number) => (i * 7 + 1000) % 65536;
const range = (start: number, count: number) => Array.from({ length: count }, (_, i) => start + i);
const line9600 = { baudRate: 9600, dataBits: 8, parity: "none", stopBits: 1 } as const;

type Client = InstanceType<typeof ModbusRTU>;
const clients = new Set<Client>();
const ports = new Set<SerialRtuPort>();

async function client(path: string, overrides: Partial<Parameters<typeof openSerialRtuClient>[0]> = {}) {
  const c = await within(
    3000,
    `open ${path}`,
    openSerialRtuClient({ path, ...line9600, timeoutMs: 500, ...overrides }),
  );
  c.setID(1);
  clients.add(c);
  return c;
}

function closeClient(c: Client): Promise<void> {
  clients.delete(c);
  return within(3000, "client close", new Promise<void>((resolve) => c.close(() => resolve())));
}

function portOf(c: Client): SerialRtuPort {
  return (c as unknown as { _port: SerialRtuPort })._port;
}

async function stty(path: string): Promise<string> {
  const child = peers.run("stty", ["stty", "-F", path, "-a"]);
  const code = await within(3000, "stty", child.finished);
  if (code !== 0) throw new Error(`stty -F ${path} -a failed: ${child.stderr}`);
  return child.lines.join("\n");
}

/** The words of `stty -a`, to look flags up exactly ("-parodd" vs "parodd"). */
const words = (text: string) => new Set(text.split(/[\s;]+/).filter((w) => w !== ""));

const peers = new Peers();
const missing = missingPeers();

beforeAll(() => {
  if (missing !== undefined) throw new Error(`serial tests need real peers: ${missing}`);
});

afterAll(async () => {
  for (const c of clients) c.close(() => {});
  for (const p of ports) p.close();
  await peers.stopAll();
});

describe("frame rules", () => {
  test("CRC-16 of the classic read request", () => {
    const request = Buffer.from([0x01, 0x03, 0x00, 0x00, 0x00, 0x0a]);
    expect(crc16(request)).toBe(0xcdc5); // sent as C5 CD
  });

  test("the answer length follows the request, as modbus-serial's RTU port computes it", () => {
    const req = (fc: number, count: number) => Buffer.from([1, fc, 0, 0, count >> 8, count & 0xff, 0, 0]);
    expect(expectedResponse(req(3, 100))?.length).toBe(205);
    expect(expectedResponse(req(4, 1))?.length).toBe(7);
    expect(expectedResponse(req(1, 1))?.length).toBe(6);
    expect(expectedResponse(req(2, 9))?.length).toBe(7);
    expect(expectedResponse(req(1, 2000))?.length).toBe(255);
    for (const fc of [5, 6, 15, 16]) expect(expectedResponse(req(fc, 4))?.length).toBe(8);
    expect(expectedResponse(req(17, 0))?.length).toBe("count-byte");
    expect(expectedResponse(req(43, 0))?.length).toBe("unknown");
    expect(expectedResponse(Buffer.from([1, 3, 0]))).toBeUndefined();
  });

  test("inter-frame silence is 3.5 characters, 1.75 ms above 19200 baud", () => {
    expect(characterBits({ dataBits: 8, parity: "none", stopBits: 1 })).toBe(10);
    expect(characterBits({ dataBits: 8, parity: "even", stopBits: 1 })).toBe(11);
    expect(characterBits({ dataBits: 8, parity: "none", stopBits: 2 })).toBe(11);
    expect(characterBits({ dataBits: 7, parity: "odd", stopBits: 2 })).toBe(11);
    expect(interFrameSilenceMs(line9600)).toBeCloseTo(3.6458, 3);
    expect(interFrameSilenceMs({ ...line9600, parity: "even" })).toBeCloseTo(4.0104, 3);
    expect(interFrameSilenceMs({ ...line9600, baudRate: 1200 })).toBeCloseTo(29.1667, 3);
    expect(interFrameSilenceMs({ ...line9600, baudRate: 19200 })).toBeCloseTo(1.8229, 3);
    expect(interFrameSilenceMs({ ...line9600, baudRate: 38400 })).toBe(1.75);
    expect(interFrameSilenceMs({ ...line9600, baudRate: 115200 })).toBe(1.75);
    expect(new SerialRtuPort({ path: "/dev/null", ...line9600, parity: "even" }).silenceMs).toBeCloseTo(4.0104, 3);
  });

  test("termios flags for each setting (what a real UART gets; ptys drop PARENB and CS7)", () => {
    const base = new Uint8Array(TERMIOS_SIZE);
    const even = decodeTermios(buildLineTermios(base, { ...line9600, parity: "even" }));
    expect(even).toMatchObject({
      baudRate: 9600,
      dataBits: 8,
      parity: "even",
      parodd: false,
      stopBits: 1,
      inpck: true,
    });
    expect(even).toMatchObject({
      raw: true,
      clocal: true,
      cread: true,
      rtscts: false,
      xonxoff: false,
      vmin: 1,
      vtime: 0,
    });
    const odd7 = decodeTermios(buildLineTermios(base, { baudRate: 1200, dataBits: 7, parity: "odd", stopBits: 2 }));
    expect(odd7).toMatchObject({ baudRate: 1200, dataBits: 7, parity: "odd", parodd: true, stopBits: 2, inpck: true });
    const n2 = decodeTermios(buildLineTermios(base, { baudRate: 115200, dataBits: 8, parity: "none", stopBits: 2 }));
    expect(n2).toMatchObject({ baudRate: 115200, dataBits: 8, parity: "none", stopBits: 2, inpck: false });
    const onPty = decodeTermios(
      buildLineTermios(base, { baudRate: 4800, dataBits: 7, parity: "odd", stopBits: 1 }, true),
    );
    expect(onPty).toMatchObject({ baudRate: 4800, dataBits: 8, parity: "none", parodd: true, inpck: true });
  });

  test("settings outside the supported ones are refused", () => {
    expect(() => new SerialRtuPort({ path: "/dev/null", ...line9600, baudRate: 300 })).toThrow(/baud rate 300/);
    expect(() => new SerialRtuPort({ path: "/dev/null", ...line9600, dataBits: 6 as 8 })).toThrow(/data bits/);
    expect(() => new SerialRtuPort({ path: "/dev/null", ...line9600, parity: "mark" as "none" })).toThrow(/parity/);
    expect(() => new SerialRtuPort({ path: "/dev/null", ...line9600, stopBits: 3 as 1 })).toThrow(/stop bits/);
  });

  test("opening a missing path or a non-tty fails with a coded error", async () => {
    const gone = openSerialRtuClient({ path: "/dev/fieldhub-no-such-tty", ...line9600, timeoutMs: 100 });
    await expect(gone).rejects.toMatchObject({ code: "ENOENT" });
    const notTty = openSerialRtuClient({ path: "/dev/null", ...line9600, timeoutMs: 100 });
    const error = await notTty.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SerialError);
    expect(error).toMatchObject({ code: "ENOTTY" });
  });
});

describe("against pymodbus's RTU server", () => {
  let pair: { socat: Child; a: string; b: string };
  let server: Child;

  beforeAll(async () => {
    pair = await peers.ptyPair("main");
    server = await peers.rtuServer(pair.b);
  });

  test("100 holding registers, 20 times in a row, exact values", async () => {
    const c = await client(pair.a);
    const expected = range(0, 100).map(holding);
    for (let i = 0; i < 20; i++) {
      const result = await c.readHoldingRegisters(0, 100);
      expect(result.data).toEqual(expected);
    }
    const port = portOf(c);
    expect(port.pseudoTerminal).toBe(true);
    expect(port.stats.framesEmitted).toBe(20);
    await closeClient(c);
  });

  test("input registers, coils, discrete inputs, and a mid-range holding read", async () => {
    const c = await client(pair.a);
    expect((await c.readInputRegisters(0, 50)).data).toEqual(range(0, 50).map((i) => 30000 + i));
    expect((await c.readInputRegisters(10, 3)).data).toEqual([30010, 30011, 30012]);
    expect((await c.readCoils(0, 40)).data.slice(0, 40)).toEqual(range(0, 40).map((i) => i % 3 === 0));
    expect((await c.readCoils(5, 7)).data.slice(0, 7)).toEqual(range(5, 7).map((i) => i % 3 === 0));
    expect((await c.readDiscreteInputs(0, 40)).data.slice(0, 40)).toEqual(range(0, 40).map((i) => i % 2 === 0));
    expect((await c.readHoldingRegisters(150, 50)).data).toEqual(range(150, 50).map(holding));
    await closeClient(c);
  });

  test("an illegal address comes back as Modbus exception 2, not a timeout", async () => {
    const c = await client(pair.a, { timeoutMs: 2000 });
    const started = performance.now();
    const error = (await c.readHoldingRegisters(300, 10).catch((e: unknown) => e)) as Error & { modbusCode?: number };
    expect(error.message).toMatch(/Modbus exception 2/);
    expect(error.modbusCode).toBe(2);
    expect(performance.now() - started).toBeLessThan(1000);
    // the port is not wedged by it
    expect((await c.readHoldingRegisters(0, 5)).data).toEqual(range(0, 5).map(holding));
    await closeClient(c);
  });

  test("close then open again: no read is left behind to eat the next answer", async () => {
    for (let round = 0; round < 3; round++) {
      const c = await client(pair.a);
      expect((await c.readHoldingRegisters(round, 4)).data).toEqual(range(round, 4).map(holding));
      await closeClient(c);
    }
  });

  test("close() is safe twice, and calls back every caller", async () => {
    const port = new SerialRtuPort({ path: pair.a, ...line9600 });
    ports.add(port);
    await within(2000, "open", new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve()))));
    expect(port.isOpen).toBe(true);
    let closeEvents = 0;
    port.on("close", () => closeEvents++);
    const first = new Promise<void>((resolve) => port.close(() => resolve()));
    const second = new Promise<void>((resolve) => port.close(() => resolve()));
    await within(2000, "both close callbacks", Promise.all([first, second]));
    await within(1000, "third close", new Promise<void>((resolve) => port.close(() => resolve())));
    expect(port.isOpen).toBe(false);
    expect(closeEvents).toBe(1);
    ports.delete(port);
  });

  test("8E1, 8N2 and 7O1 reach the tty (stty -F), and reads still work", async () => {
    const even = await client(pair.a, { parity: "even" });
    let flags = words(await stty(pair.a));
    // A pty keeps CS8 and drops PARENB whatever is asked (kernel pty driver); the
    // parity bits it keeps are checked here, PARENB itself in "termios flags" above.
    for (const flag of [
      "9600",
      "-parodd",
      "inpck",
      "-cstopb",
      "clocal",
      "cread",
      "-crtscts",
      "-ixon",
      "-ixoff",
      "-icanon",
      "-echo",
      "-isig",
      "-opost",
    ]) {
      expect(flags.has(flag)).toBe(true);
    }
    expect((await even.readHoldingRegisters(0, 10)).data).toEqual(range(0, 10).map(holding));
    await closeClient(even);

    const twoStop = await client(pair.a, { baudRate: 19200, stopBits: 2 });
    flags = words(await stty(pair.a));
    for (const flag of ["19200", "cstopb", "-parodd", "-inpck", "cs8", "clocal", "-crtscts"])
      expect(flags.has(flag)).toBe(true);
    expect((await twoStop.readHoldingRegisters(0, 10)).data).toEqual(range(0, 10).map(holding));
    await closeClient(twoStop);

    const odd7 = await client(pair.a, { baudRate: 4800, dataBits: 7, parity: "odd" });
    flags = words(await stty(pair.a));
    for (const flag of ["4800", "parodd", "inpck", "-cstopb"]) expect(flags.has(flag)).toBe(true);
    expect(portOf(odd7).applied).toMatchObject({ baudRate: 4800, parodd: true, inpck: true, stopBits: 1 });
    await closeClient(odd7);
  });

  test("idle ports hold no worker threads: async fs and other ports keep working", async () => {
    const idle: { port: SerialRtuPort; socat: Child }[] = [];
    // more idle ports than Bun's worker pool has threads (one per core)
    const count = Math.min(17, Math.max(4, availableParallelism() + 1));
    for (let i = 0; i < count; i++) {
      const { socat, a } = await peers.ptyPair(`idle${i}`);
      const port = new SerialRtuPort({ path: a, ...line9600 });
      ports.add(port);
      await within(2000, "open", new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve()))));
      idle.push({ port, socat });
    }
    // Ports waiting for bytes: a reader blocking in Bun's worker pool
    // (node:tty.ReadStream) left fs.promises hanging here for good.
    const text = await within(2000, "fs.promises.readFile", readFile(import.meta.path, "utf8"));
    expect(text).toContain("idle ports hold no worker threads");
    const c = await client(pair.a);
    expect((await c.readHoldingRegisters(0, 10)).data).toEqual(range(0, 10).map(holding));
    await closeClient(c);
    for (const { port, socat } of idle) {
      await within(2000, "close", new Promise<void>((resolve) => port.close(() => resolve())));
      ports.delete(port);
      await socat.stop();
    }
  });

  test("reads per second at 9600 and 115200 baud (pty: the line rate is not simulated)", async () => {
    const rates: Record<string, number> = {};
    for (const baudRate of [9600, 115200]) {
      const c = await client(pair.a, { baudRate });
      const started = performance.now();
      for (let i = 0; i < 30; i++) await c.readHoldingRegisters(0, 100);
      rates[baudRate] = Math.round((30 / (performance.now() - started)) * 1000);
      await closeClient(c);
    }
    console.log(`serial rtu on a pty, 100 holding registers per read: ${JSON.stringify(rates)} reads/s`);
    expect(rates[9600]).toBeGreaterThan(5);
  });

  test("inside a compiled executable (bun build --compile)", async () => {
    const exe = join(peers.dir, "read-holding");
    const build = peers.run("bun build", [
      process.execPath,
      "build",
      "--compile",
      join(import.meta.dir, "fixtures", "read-holding.ts"),
      "--outfile",
      exe,
    ]);
    const buildCode = await within(20_000, "bun build --compile", build.finished);
    expect(buildCode, build.stderr).toBe(0);
    const run = async (...args: string[]) => {
      const child = peers.run("compiled reader", [exe, pair.a, ...args]);
      const code = await within(10_000, "compiled reader", child.finished);
      return { code, out: JSON.parse(child.lines.at(-1) ?? "null"), stderr: child.stderr };
    };
    const ok = await run("9600", "even", "8", "1", "0", "100");
    expect(ok.out, ok.stderr).toEqual({ ok: true, values: range(0, 100).map(holding), reads: 3 });
    expect(ok.code).toBe(0);
    const refused = await run("9600", "none", "8", "1", "300", "10");
    expect(refused.out).toMatchObject({ ok: false, modbusCode: 2 });
  }, 30_000);

  test("a stopped server gives a timeout", async () => {
    const c = await client(pair.a, { timeoutMs: 300 });
    await server.stop();
    const started = performance.now();
    const error = (await c.readHoldingRegisters(0, 10).catch((e: unknown) => e)) as Error & { errno?: string };
    const elapsed = performance.now() - started;
    expect(error.name).toBe("TransactionTimedOutError");
    expect(error.errno).toBe("ETIMEDOUT");
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1000);
    expect(c.isOpen).toBe(true);
    // and the same client reads again once the server is back
    server = await peers.rtuServer(pair.b);
    expect((await c.readHoldingRegisters(0, 10)).data).toEqual(range(0, 10).map(holding));
    await closeClient(c);
  });
});

describe("against a misbehaving device", () => {
  test("split, noisy, partial and corrupt answers neither wedge the port nor pass as data", async () => {
    const pair = await peers.ptyPair("scripted");
    const steps = ["valid", "split", "garbage", "partial", "badcrc", "slow", "valid"];
    const peer = await peers.scriptedPeer(pair.b, steps);
    // 1200 baud: 29 ms of silence, long enough to see on a pty
    const c = await client(pair.a, { baudRate: 1200, timeoutMs: 400 });
    const port = portOf(c);
    const read = () => c.readHoldingRegisters(10, 20).then((r) => r.data);
    const expected = range(10, 20).map(holding);

    expect(await read()).toEqual(expected); // valid
    expect(await read()).toEqual(expected); // split in three writes
    expect(await read()).toEqual(expected); // noise before the frame
    const partial = (await read().catch((e: unknown) => e)) as Error;
    expect(partial.name).toBe("TransactionTimedOutError");
    let started = performance.now();
    const corrupt = (await read().catch((e: unknown) => e)) as Error;
    expect(corrupt.message).toBe("CRC error"); // reported once the line went quiet, before the timeout
    expect(performance.now() - started).toBeLessThan(400);
    started = performance.now();
    expect(await read()).toEqual(expected); // slow
    const slowAnswerAt = port.stats.lastFrameAt;
    expect(await read()).toEqual(expected); // valid, right after the slow one
    expect(port.stats.lastWriteAt - slowAnswerAt).toBeGreaterThanOrEqual(port.silenceMs);

    const requests = peer.lines.filter((line) => line.startsWith("REQUEST ")).map((line) => line.split(" "));
    expect(requests.map((r) => r[1])).toEqual(steps);
    // As the device saw it: the request after the slow answer came at least 3.5
    // characters (29 ms at 1200 baud) after that answer was on the line.
    const gapAfterSlow = Number(requests.at(-1)![2]);
    expect(gapAfterSlow).toBeGreaterThanOrEqual(port.silenceMs - 1);
    expect(gapAfterSlow).toBeLessThan(200);
    expect(port.stats.delayedWrites).toBeGreaterThan(0);
    await closeClient(c);
    await peer.stop();
    await pair.socat.stop();
  });
});

describe("when the device disappears", () => {
  test("killing socat closes the port with an error; a new open after restarting works", async () => {
    let pair = await peers.ptyPair("unplug");
    let server = await peers.rtuServer(pair.b);
    const c = await client(pair.a);
    const port = portOf(c);
    expect((await c.readHoldingRegisters(0, 3)).data).toEqual(range(0, 3).map(holding));

    const portErrors: Error[] = [];
    port.on("error", (e: Error) => portErrors.push(e));
    const portClosed = new Promise<void>((resolve) => port.once("close", () => resolve()));
    const clientClosed = new Promise<void>((resolve) => c.on("close", () => resolve()));
    await pair.socat.stop("SIGKILL"); // the adapter is pulled out
    await within(3000, "port and client 'close'", Promise.all([portClosed, clientClosed]));

    expect(port.isOpen).toBe(false);
    expect(c.isOpen).toBe(false);
    expect(portErrors.length).toBe(1);
    expect(portErrors[0]).toBeInstanceOf(SerialError);
    expect((portErrors[0] as SerialError).code).toMatch(/^(EIO|EOF)$/);
    expect(portErrors[0]!.message).toMatch(/device disappeared/);
    expect(port.lastError).toBe(portErrors[0]);
    const notOpen = (await c.readHoldingRegisters(0, 3).catch((e: unknown) => e)) as Error;
    expect(notOpen.name).toBe("PortNotOpenError");
    await closeClient(c); // closing a port that is already gone is fine
    await closeClient(c);
    await server.stop();

    pair = await peers.ptyPair("unplug"); // plugged back in, same path
    server = await peers.rtuServer(pair.b);
    const again = await client(pair.a);
    expect((await again.readHoldingRegisters(0, 100)).data).toEqual(range(0, 100).map(holding));
    await closeClient(again);
    await server.stop();
    await pair.socat.stop();
  });
});
