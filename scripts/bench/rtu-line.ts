/**
 * The bus on a paced 9600-baud RTU line (docs/benchmarks.md, "The bus under load";
 * issue 26). A socat pty pair carries bytes at once, so the equipment keeps the line's
 * time itself (scripts/bench/paced_rtu_peer.py: pymodbus's framer and datastore, each
 * answer written when request, turnaround silence and answer would have taken their
 * wire time at 11 bits a character). A correct master also keeps 3.5 characters of
 * silence before each request, so the wire limit is one transaction every
 * (request + answer + 7) character times.
 *
 * 1. Polling as a fraction of the wire limit: a real `fieldhub serve` polls --units
 *    devices of --registers holding registers each on one line (every device due all
 *    the time, so the bus never rests) while pymodbus's own client (Debian's
 *    python3-pymodbus) reads the same size back to back from the same peer program on
 *    a second line, both at once; each rate is counted by its peer over --seconds.
 *    Conditions: quiet; two CPU-spinning processes (`yes > /dev/null` x2); the API
 *    answering --api-rate requests a second (scripts/bench/load-client.ts rate).
 *    Repeated --runs times.
 * 2. A Modbus TCP server miss (--misses reads of --registers unpolled registers
 *    through fieldhub's modbus_server, one every 25 ms, while fieldhub polls one device
 *    every second) against one bare transaction of the same size (modbus-serial on
 *    fieldhub's own serial port, the same line, before serve opens it).
 *
 * Usage: bun scripts/bench/rtu-line.ts [--registers 20] [--units 8] [--seconds 10]
 *          [--runs 2] [--api-rate 200] [--misses 200] [--only poll|miss]
 * Needs socat and /usr/bin/python3 with pymodbus (apt-get install socat python3-pymodbus).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openSerialRtuClient } from "../../src/modbus/serial/index.ts";
import { createKey } from "../../test/faults/harness/serve.ts";
import { freePort, serveArgs, servedUrl, startCli } from "../../test/harness/cli.ts";
import { linesOf, startSocat } from "../../test/harness/pymodbus.ts";
import { modbusFrame } from "../../test/harness/raw-modbus-client.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    registers: { type: "string" },
    units: { type: "string" },
    seconds: { type: "string" },
    runs: { type: "string" },
    "api-rate": { type: "string" },
    misses: { type: "string" },
    only: { type: "string" },
  },
});
const registers = Number(args.registers ?? 20);
const units = Number(args.units ?? 8);
const seconds = Number(args.seconds ?? 10);
const runs = Number(args.runs ?? 2);
const apiRate = Number(args["api-rate"] ?? 200);
const misses = Number(args.misses ?? 200);
const only = args.only;

const python = "/usr/bin/python3";
const baud = 9600;
const bitsPerCharacter = 11;
const charMs = (bitsPerCharacter * 1000) / baud;
const requestChars = 8;
const answerChars = 5 + 2 * registers;
/** One transaction on the wire: request, the device's turnaround silence, answer. */
const frameMs = (requestChars + 3.5 + answerChars) * charMs;
/** ...and the master's silence before the next request. */
const transactionMs = frameMs + 3.5 * charMs;
const wireLimit = 1000 / transactionMs;

const workDir = mkdtempSync(join(tmpdir(), "fieldhub-bench-rtu-line-"));
const spawned: { kill(): void }[] = [];
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

type Peer = { ask(line: string): Promise<string>; proc: ReturnType<typeof Bun.spawn> };
type PeerStats = { answers: number; early: number; bad: number; now: number; late_ms: number[] };

/** A pty pair with a paced peer on one end; the other end is the master's. */
async function pacedLine(name: string): Promise<{ master: string; peer: Peer }> {
  const peerEnd = join(workDir, `${name}-peer`);
  const master = join(workDir, `${name}-master`);
  spawned.push(
    await startSocat([`pty,raw,echo=0,link=${peerEnd}`, `pty,raw,echo=0,link=${master}`], [peerEnd, master]),
  );
  const spec = {
    port: peerEnd,
    baud,
    bits: bitsPerCharacter,
    units: [...Array(units).keys()].map((u) => u + 1),
    registers: 2 * registers,
  };
  // The peer stands for the line's hardware, which keeps time whatever the CPUs do:
  // run as root, it gets a real-time priority so the load measured is on the masters.
  const realTime = process.getuid?.() === 0 ? ["chrt", "-f", "50"] : [];
  const proc = Bun.spawn([...realTime, python, join(import.meta.dir, "paced_rtu_peer.py"), JSON.stringify(spec)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  spawned.push(proc);
  const { nextLine, ask } = linesOf(proc);
  if ((await nextLine()) !== "READY") throw new Error("paced peer did not start");
  return { master, peer: { ask, proc } };
}

async function stats(peer: Peer): Promise<PeerStats> {
  return JSON.parse((await peer.ask("STATS")).slice("STATS ".length)) as PeerStats;
}

function fieldhubConfig(line: string, devices: number, pollMs: number, serverPort?: number) {
  return `organizations: [{ key: bench, name: Bench }]
gateways:
  # 9600 8E1, 11 bits a character; a pty keeps no parity bit (docs/serial.md), the timing holds.
  - serial: LINE
    name: Paced line
    bus: { type: rtu, path: ${line}, baud: ${baud}, parity: even }
${serverPort === undefined ? "" : `    modbus_server: { port: ${serverPort}, host: 127.0.0.1 }\n`}    devices:
${Array.from(
  { length: devices },
  (_, d) => `      - name: d${d + 1}
        slave_id: ${d + 1}
        poll_interval_ms: ${pollMs}
        timeout_ms: 1000
        registers:
${Array.from({ length: registers }, (_, i) => `          - { name: r${i}, address: ${i}, data_type: uint16 }`).join("\n")}`,
).join("\n")}
`;
}

async function startServe(config: string, name: string) {
  const dir = join(workDir, name);
  writeFileSync(`${dir}.yaml`, config);
  const serve = startCli(serveArgs(`${dir}.yaml`, dir));
  const url = await serve.waitFor(servedUrl, 60_000);
  return { serve, url, dataDir: dir };
}

/** Answers each peer counted over `ms`, as a rate. */
async function rateOver(peer: Peer, ms: number) {
  const before = await stats(peer);
  await Bun.sleep(ms);
  const after = await stats(peer);
  // The master's turn: from an answer's last byte to the next request (the silence is 3.5 characters of it).
  const log = JSON.parse((await peer.ask("LOG")).slice("LOG ".length)) as [number, number][];
  const turns = log
    .filter(([arrived]) => arrived >= before.now && arrived <= after.now)
    .map(([arrived], i, all) => (i === 0 ? Number.NaN : (arrived - (all[i - 1]?.[1] ?? 0)) * 1000))
    .filter((gap) => !Number.isNaN(gap) && gap < 1000)
    .sort((a, b) => a - b);
  return {
    turnMs: [percentile(turns, 0.5), percentile(turns, 0.95), turns.at(-1) ?? 0],
    perSecond: (after.answers - before.answers) / (after.now - before.now),
    early: after.early - before.early,
    bad: after.bad - before.bad,
    peerLate: after.late_ms,
  };
}

async function pollingUnderLoad() {
  console.log(
    `wire limit: ${registers}-register reads at ${baud} baud, ${bitsPerCharacter} bits a character: ` +
      `${transactionMs.toFixed(2)} ms a transaction, ${wireLimit.toFixed(2)} a second`,
  );
  const fieldhubLine = await pacedLine("fieldhub");
  const pymodbusLine = await pacedLine("pymodbus");
  const { serve, url, dataDir } = await startServe(fieldhubConfig(fieldhubLine.master, units, 100), "poll");
  try {
    const { key } = await createKey(dataDir, "bench", "devices:read");
    await Bun.sleep(2000);
    const spinners = () => [0, 1].map(() => Bun.spawn(["yes"], { stdout: "ignore" }));
    const apiLoad = () =>
      Bun.spawn(
        [
          process.execPath,
          join(import.meta.dir, "load-client.ts"),
          "rate",
          `${url}/v1/devices`,
          String(seconds + 3),
          String(apiRate),
          key,
        ],
        { stdout: "pipe", stderr: "inherit" },
      );
    const conditions: { name: string; start(): ReturnType<typeof Bun.spawn>[] }[] = [
      { name: "quiet", start: () => [] },
      { name: "two spinning processes", start: spinners },
      { name: `API at ${apiRate}/s`, start: () => [apiLoad()] },
      // Both at once: the box's other software and its API clients together.
      { name: `two spinning processes and API at ${apiRate}/s`, start: () => [...spinners(), apiLoad()] },
    ];
    for (let run = 1; run <= runs; run++) {
      for (const condition of conditions) {
        const extra = condition.start();
        await Bun.sleep(1000);
        const pymodbus = Bun.spawn(
          [
            python,
            join(import.meta.dir, "pymodbus_rtu_master.py"),
            pymodbusLine.master,
            String(baud),
            "1",
            String(registers),
            String(seconds + 1),
          ],
          { stdout: "pipe", stderr: "ignore" },
        );
        await Bun.sleep(500);
        const [fieldhub, baseline] = await Promise.all([
          rateOver(fieldhubLine.peer, seconds * 1000),
          rateOver(pymodbusLine.peer, seconds * 1000),
        ]);
        const loadAt = load();
        const master = JSON.parse(await new Response(pymodbus.stdout).text()) as { errors: number; mismatches: number };
        let api = "";
        for (const proc of extra) {
          if (proc.stdout instanceof ReadableStream) {
            // The load client ends by itself after its seconds and prints what it got.
            const answer = JSON.parse(await new Response(proc.stdout).text()) as {
              requests: number;
              errors: number;
              seconds: number;
            };
            api = `, API ${(answer.requests / answer.seconds).toFixed(0)}/s answered (${answer.errors} errors)`;
          } else proc.kill();
        }
        console.log(
          `run ${run}, ${condition.name} (load ${loadAt}): fieldhub ${fieldhub.perSecond.toFixed(2)}/s = ` +
            `${(fieldhub.perSecond / wireLimit).toFixed(2)} of the wire limit, pymodbus ${baseline.perSecond.toFixed(2)}/s = ` +
            `${(baseline.perSecond / wireLimit).toFixed(2)}; early requests ${fieldhub.early}/${baseline.early}, bad frames ` +
            `${fieldhub.bad}/${baseline.bad}, pymodbus errors ${master.errors + master.mismatches}, ` +
            `peer lateness p95 ${fieldhub.peerLate[1]}/${baseline.peerLate[1]} ms${api}`,
        );
        console.log(
          `  answer to next request: fieldhub p50 ${fieldhub.turnMs.map((ms) => ms.toFixed(1)).join("/")} ms (p50/p95/max), ` +
            `pymodbus ${baseline.turnMs.map((ms) => ms.toFixed(1)).join("/")} ms`,
        );
      }
    }
  } finally {
    await serve.stop();
  }
}

async function missAgainstBare() {
  const line = await pacedLine("miss");
  const gapMs = 25;
  // Bare: one transaction of the same size, modbus-serial on fieldhub's own serial port.
  const client = await openSerialRtuClient({
    path: line.master,
    baudRate: baud,
    dataBits: 8,
    parity: "even",
    stopBits: 1,
    timeoutMs: 1000,
  });
  client.setID(1);
  const bare: number[] = [];
  for (let i = 0; i < misses; i++) {
    const began = performance.now();
    const { data } = await client.readHoldingRegisters(registers, registers);
    bare.push(performance.now() - began);
    if (data[0] !== 1000 + registers) throw new Error(`bare read answered ${data[0]}`);
    await Bun.sleep(gapMs);
  }
  await new Promise<void>((resolve) => client.close(() => resolve()));
  const serverPort = freePort();
  const { serve } = await startServe(fieldhubConfig(line.master, 1, 1000, serverPort), "miss");
  const missed: number[] = [];
  try {
    await serve.waitFor((out) => (out.includes("Modbus TCP server listening") ? true : null), 15_000);
    const socket = connect({ host: "127.0.0.1", port: serverPort });
    socket.setNoDelay(true);
    await new Promise((resolve) => socket.once("connect", resolve));
    let answered: (answer: Buffer) => void = () => {};
    socket.on("data", (chunk: Buffer) => answered(chunk));
    for (let i = 0; i < misses; i++) {
      const began = performance.now();
      const answer = await new Promise<Buffer>((resolve) => {
        answered = resolve;
        socket.write(modbusFrame(i + 1, 1, [3, registers >> 8, registers & 0xff, 0, registers]));
      });
      missed.push(performance.now() - began);
      if (answer[7] !== 3 || answer.length !== 9 + 2 * registers) throw new Error(`miss answered ${answer.join(",")}`);
      await Bun.sleep(gapMs);
    }
    socket.destroy();
  } finally {
    await serve.stop();
  }
  const report = (name: string, values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${name} p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p95 ${percentile(sorted, 0.95).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`;
  };
  const p95 = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      0.95,
    );
  console.log(
    `miss of ${registers} registers (frame ${frameMs.toFixed(1)} ms, load ${load()}): ${report("bare", bare)}; ` +
      `${report("through the server", missed)}; p95 extra ${((p95(missed) - p95(bare)) / frameMs).toFixed(2)} frame times`,
  );
}

try {
  if (only !== "miss") await pollingUnderLoad();
  if (only !== "poll") await missAgainstBare();
} finally {
  for (const proc of spawned) proc.kill();
  rmSync(workDir, { recursive: true, force: true });
}
