/**
 * Benchmark of register writes over Modbus TCP to a local peer (Debian's
 * pymodbus 3.0, test/fixtures/pymodbus_server.py, its own process), in one run:
 *
 * 1. Write latency: --writes (300) writes of an int16 holding register, one after
 *    another, through fieldhub's poller (writeRegister: queued on the device's
 *    connection, read before, one write, read back) while the device is polled every
 *    --poll-ms (100) ms; against a bare modbus-serial writeRegister on its own
 *    connection, and a bare read + write + read (the same three requests fieldhub
 *    makes). Median and p99 of each, and the ratios.
 * 2. Poll-cycle delay: the gaps between the poller's cycles of that device (one
 *    request of 10 registers each) without writes, and with a write queued every
 *    --write-every-ms (50) ms; the difference of the medians and p99s is what writes
 *    cost the poll cycle.
 *
 * Usage: bun scripts/bench/register-write.ts [--writes 300] [--poll-ms 100] [--write-every-ms 50] [--seconds 5]
 * Needs /usr/bin/python3 with pymodbus (apt-get install python3-pymodbus).
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import ModbusRTU from "modbus-serial";
import { systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { startGatewayPoller } from "../../src/modbus/poller.ts";
import type { PollingGateway } from "../../src/modbus/polling-config.ts";
import type { RegisterDecoding } from "../../src/modbus/register-model.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    writes: { type: "string" },
    "poll-ms": { type: "string" },
    "write-every-ms": { type: "string" },
    seconds: { type: "string" },
  },
});
const writes = Number(args.writes ?? 300);
const pollMs = Number(args["poll-ms"] ?? 100);
const writeEveryMs = Number(args["write-every-ms"] ?? 50);
const seconds = Number(args.seconds ?? 5);

const fixture = join(import.meta.dir, "..", "..", "test", "fixtures", "pymodbus_server.py");

async function startPeer(): Promise<{ port: number; stop(): void }> {
  const spec = {
    tcp_port: 0,
    units: { "1": { hr: Array.from({ length: 10 }, (_, address) => ({ address, type: "int16", value: address })) } },
  };
  const proc = Bun.spawn(["/usr/bin/python3", fixture, JSON.stringify(spec)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!/READY (\d+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`peer did not start: ${text}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { port: Number(/READY (\d+)/.exec(text)?.[1]), stop: () => proc.kill() };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function bareLatencies(port: number, readAround: boolean): Promise<number[]> {
  const client = new ModbusRTU();
  await client.connectTCP("127.0.0.1", { port });
  client.setID(1);
  client.setTimeout(1000);
  const latencies: number[] = [];
  for (let i = 0; i < writes; i++) {
    const began = performance.now();
    if (readAround) await client.readHoldingRegisters(0, 1);
    await client.writeRegister(0, i % 1000);
    if (readAround) await client.readHoldingRegisters(0, 1);
    latencies.push(performance.now() - began);
  }
  await new Promise<void>((resolve) => client.close(() => resolve()));
  return latencies;
}

function gateway(port: number): PollingGateway {
  const registers: RegisterDecoding[] = Array.from({ length: 10 }, (_, address) => ({
    id: `r${address}`,
    functionCode: 3,
    address,
    dataType: "int16",
    byteOrder: "ABCD",
    bit: null,
    length: null,
    ...(address === 0 ? { write: { functionCode: 6, min: -1000, max: 1000, scaleFactor: null } } : {}),
  }));
  return {
    id: "bench",
    serial: "BENCH",
    bus: { type: "tcp" },
    heartbeatMs: 60_000,
    devices: [
      {
        id: "device",
        name: "peer",
        slaveId: 1,
        host: "127.0.0.1",
        port,
        pollIntervalMs: pollMs,
        timeoutMs: 1000,
        retries: 1,
        maxRegistersPerRequest: 125,
        maxGap: 8,
        pauseMs: 0,
        storageIntervalMs: 60_000,
        registers,
      },
    ],
  };
}

/** Starts a poller; returns it with the times its poll cycles reported (a cycle reports all 10 registers). */
function startPoller(port: number) {
  const cycles: number[] = [];
  const poller = startGatewayPoller({
    gateway: gateway(port),
    clock: systemClock,
    logger: silentLogger(),
    sink: {
      readings: (_id, values) => {
        if (values.length === 10) cycles.push(performance.now());
      },
      answered: () => {},
      unreachable: () => {},
    },
  });
  return { poller, cycles };
}

const gaps = (times: number[]) => times.slice(1).map((time, i) => time - (times[i] ?? time));

async function main() {
  const peer = await startPeer();
  try {
    console.log(
      `load before: ${loadavg()
        .map((value) => value.toFixed(2))
        .join(" ")}`,
    );
    // 1. Latency.
    const bare = await bareLatencies(peer.port, false);
    const bareRwr = await bareLatencies(peer.port, true);
    const { poller } = startPoller(peer.port);
    await Bun.sleep(300);
    const ours: number[] = [];
    for (let i = 0; i < writes; i++) {
      const began = performance.now();
      const outcome = await poller.writeRegister("r0", i % 1000);
      if (outcome.result !== "written") throw new Error(`write ${i}: ${outcome.result} ${outcome.detail}`);
      ours.push(performance.now() - began);
    }
    await poller.stop();
    const line = (name: string, values: number[]) =>
      console.log(`${name}: median ${ms(percentile(values, 0.5))}, p99 ${ms(percentile(values, 0.99))}`);
    console.log(`1. write latency, ${writes} writes of an int16 over TCP, device polled every ${pollMs} ms`);
    line("  bare modbus-serial writeRegister (fc 6)", bare);
    line("  bare read + write + read", bareRwr);
    line("  fieldhub poller.writeRegister (queued, read, write, read back)", ours);
    console.log(
      `  ratio median: ${(percentile(ours, 0.5) / percentile(bare, 0.5)).toFixed(2)}x bare write, ${(percentile(ours, 0.5) / percentile(bareRwr, 0.5)).toFixed(2)}x bare read+write+read`,
    );

    // 2. Poll-cycle delay.
    const quiet = startPoller(peer.port);
    await Bun.sleep(seconds * 1000);
    await quiet.poller.stop();
    const busy = startPoller(peer.port);
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await Bun.sleep(writeEveryMs);
        await busy.poller.writeRegister("r0", written++ % 1000);
      }
    })();
    await Bun.sleep(seconds * 1000);
    writing = false;
    await writer;
    await busy.poller.stop();
    const quietGaps = gaps(quiet.cycles);
    const busyGaps = gaps(busy.cycles);
    console.log(`2. poll-cycle gaps (poll interval ${pollMs} ms), ${seconds} s each`);
    line(`  without writes (${quietGaps.length} gaps)`, quietGaps);
    line(`  with a write every ${writeEveryMs} ms (${busyGaps.length} gaps, ${written} writes)`, busyGaps);
    console.log(
      `  delay a write causes: median +${ms(percentile(busyGaps, 0.5) - percentile(quietGaps, 0.5))}, p99 +${ms(percentile(busyGaps, 0.99) - percentile(quietGaps, 0.99))}`,
    );
    console.log(
      `load after: ${loadavg()
        .map((value) => value.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    peer.stop();
  }
}

await main();
