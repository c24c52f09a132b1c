/**
 * Benchmark of the Modbus TCP server's answers from memory (docs/benchmarks.md,
 * "Modbus TCP server"): a real `fieldhub serve` polls pymodbus equipment
 * (test/fixtures/pymodbus_server.py) and serves it on a modbus_server port; a client
 * in this process sends the same read of --count polled holding registers, one at a
 * time, to fieldhub's server and to the equipment itself (the bare pymodbus server),
 * rounds alternating, and reports p50/p95/p99 of each; then --clients clients read
 * from fieldhub's memory for --seconds, back to back, and the answers per second are
 * counted. Every answer is checked against the equipment's words.
 *
 * Usage: bun scripts/bench/modbus-server.ts [--count 20] [--reads 2000] [--rounds 3]
 *          [--clients 16] [--seconds 5]
 * Needs /usr/bin/python3 with pymodbus (apt-get install python3-pymodbus).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, serveArgs, servedUrl, startCli } from "../../test/harness/cli.ts";
import { startPymodbusPeer } from "../../test/harness/pymodbus.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    count: { type: "string" },
    reads: { type: "string" },
    rounds: { type: "string" },
    clients: { type: "string" },
    seconds: { type: "string" },
  },
});
const count = Number(args.count ?? 20);
const reads = Number(args.reads ?? 2000);
const rounds = Number(args.rounds ?? 3);
const clients = Number(args.clients ?? 16);
const seconds = Number(args.seconds ?? 5);

/** One Modbus TCP connection sending reads of holding registers 0..count-1, one at a time. */
async function reader(port: number) {
  const socket: Socket = connect({ host: "127.0.0.1", port });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("error", reject);
  });
  let pending: ((answer: Buffer) => void) | null = null;
  let buffer = Buffer.alloc(0);
  const answerBytes = 9 + 2 * count;
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (buffer.length >= answerBytes && pending !== null) {
      const answer = buffer.subarray(0, answerBytes);
      buffer = buffer.subarray(answerBytes);
      const resolve = pending;
      pending = null;
      resolve(answer);
    }
  });
  let transaction = 0;
  return {
    async read(): Promise<number[]> {
      transaction = (transaction + 1) & 0xffff;
      const request = Buffer.from([transaction >> 8, transaction & 0xff, 0, 0, 0, 6, 1, 3, 0, 0, 0, count]);
      const answer = await new Promise<Buffer>((resolve) => {
        pending = resolve;
        socket.write(request);
      });
      if (answer[7] !== 3) throw new Error(`exception ${answer[8]} from port ${port}`);
      return Array.from({ length: count }, (_, i) => answer.readUInt16BE(9 + 2 * i));
    },
    close: () => socket.destroy(),
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const ms = (value: number) => `${value.toFixed(3)} ms`;

const workDir = mkdtempSync(join(tmpdir(), "fieldhub-bench-modbus-server-"));
const equipment = await startPymodbusPeer({
  tcp_port: 0,
  units: { "1": { hr: Array.from({ length: count }, (_, i) => ({ address: i, type: "uint16", value: 1000 + i })) } },
});
const serverPort = freePort();
writeFileSync(
  join(workDir, "fieldhub.yaml"),
  `organizations: [{ key: bench, name: Bench }]
gateways:
  - serial: BENCH
    name: Bench
    bus: { type: tcp }
    modbus_server: { port: ${serverPort}, host: 127.0.0.1, max_age_ms: 5000 }
    devices:
      - name: meter
        slave_id: 1
        host: 127.0.0.1
        port: ${equipment.port}
        poll_interval_ms: 1000
        registers:
${Array.from({ length: count }, (_, i) => `          - { name: r${i}, address: ${i}, data_type: uint16 }`).join("\n")}
`,
);
const serve = startCli(serveArgs(join(workDir, "fieldhub.yaml"), join(workDir, "data")));
try {
  await serve.waitFor(servedUrl, 60_000);
  await Bun.sleep(1500);
  const expected = Array.from({ length: count }, (_, i) => 1000 + i);
  const latencies: Record<"fieldhub" | "bare", number[]> = { fieldhub: [], bare: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [side, port] of [
      ["bare", equipment.port],
      ["fieldhub", serverPort],
    ] as const) {
      const client = await reader(port);
      for (let i = 0; i < reads; i++) {
        const began = performance.now();
        const words = await client.read();
        latencies[side].push(performance.now() - began);
        if (words.join() !== expected.join()) throw new Error(`${side} answered ${words.join()}`);
      }
      client.close();
    }
  }
  console.log(`one read of ${count} holding registers, ${reads * rounds} each, one at a time:`);
  for (const side of ["bare", "fieldhub"] as const) {
    const sorted = [...latencies[side]].sort((a, b) => a - b);
    console.log(
      `  ${side === "bare" ? "bare pymodbus server" : "fieldhub from memory"}: p50 ${ms(percentile(sorted, 0.5))}, p95 ${ms(percentile(sorted, 0.95))}, p99 ${ms(percentile(sorted, 0.99))}`,
    );
  }

  const connections = await Promise.all(Array.from({ length: clients }, () => reader(serverPort)));
  let answered = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    connections.map(async (client) => {
      while (performance.now() < deadline) {
        const words = await client.read();
        if (words[0] !== 1000) throw new Error("wrong answer under load");
        answered++;
      }
      client.close();
    }),
  );
  console.log(`${clients} clients from memory for ${seconds} s: ${Math.round(answered / seconds)} answers a second`);
} finally {
  await serve.stop();
  equipment.proc.kill();
  rmSync(workDir, { recursive: true, force: true });
}
