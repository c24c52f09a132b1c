/**
 * `fieldhub discover` on a 9600-baud RTU line (docs/benchmarks.md, "Discovery"; issue
 * 29): a full scan of unit ids 1-247 with two devices on the line, against its floor,
 * 245 timeouts plus two answers.
 *
 * The line is a socat pty pair with scripts/bench/paced_rtu_peer.py on the far end:
 * pymodbus's framer and datastore answering units --devices after the wire time a real
 * 9600-baud 8N1 line would take (request, 3.5 characters of turnaround, answer, at 10
 * bits a character), silent for every other unit. Each run is the real CLI as a process
 * (`fieldhub discover --serial ... --json`); its scan time is the `elapsed_ms` it reports
 * (from the first request to the last answer, without the process start), printed with
 * the process's whole wall time.
 *
 * Floor = (units - devices) x probes x timeout + devices x (probe request 8 + 3.5 +
 * answer 7 characters): each probe after the first (`--probe`, docs/discover.md) costs a
 * silent unit one more timeout; the devices answer the first. A device found also gets its follow-up requests (43/14, SunSpec markers at
 * 40000, 0 and 50000), which the floor does not count; the ratio shows what they and the
 * scan's own overhead add.
 *
 * Usage: bun scripts/bench/discover.ts [--timeout-ms 300] [--runs 3] [--devices 17,200] [--probe hr:0]
 * Needs socat and /usr/bin/python3 with pymodbus (apt-get install socat python3-pymodbus).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "../../test/harness/cli.ts";
import { linesOf, startSocat } from "../../test/harness/pymodbus.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    "timeout-ms": { type: "string" },
    runs: { type: "string" },
    devices: { type: "string" },
    probe: { type: "string" },
  },
});
const timeoutMs = Number(args["timeout-ms"] ?? 300);
const runs = Number(args.runs ?? 3);
const devices = (args.devices ?? "17,200").split(",").map(Number);
const probe = args.probe ?? "hr:0";
const probes = probe.split(",").length;
const baud = 9600;
const bitsPerCharacter = 10;
const units = 247;

const characterMs = (bitsPerCharacter * 1000) / baud;
const answerMs = (8 + 3.5 + 7) * characterMs;
const floorMs = (units - devices.length) * probes * timeoutMs + devices.length * answerMs;

const dir = mkdtempSync(join(tmpdir(), "fieldhub-bench-discover-"));
const [peerEnd, scanEnd] = [join(dir, "peer"), join(dir, "scan")];
const socat = await startSocat(
  [`pty,raw,echo=0,link=${peerEnd}`, `pty,raw,echo=0,link=${scanEnd}`],
  [peerEnd, scanEnd],
);
const peer = Bun.spawn(
  [
    "/usr/bin/python3",
    join(import.meta.dir, "paced_rtu_peer.py"),
    JSON.stringify({ port: peerEnd, baud, bits: bitsPerCharacter, units: devices, registers: 10 }),
  ],
  { stdin: "pipe", stdout: "pipe", stderr: "ignore" },
);
const { nextLine } = linesOf(peer);
if ((await nextLine()) !== "READY") throw new Error("the paced peer did not start");

console.log(
  `discover 1-${units} on ${baud} baud 8N1 (paced pty), devices at ${devices.join(", ")}, timeout ${timeoutMs} ms, probe ${probe}, ${runs} runs`,
);
console.log(
  `floor: ${units - devices.length} x ${probes} x ${timeoutMs} ms + ${devices.length} x ${answerMs.toFixed(1)} ms = ${(floorMs / 1000).toFixed(2)} s`,
);
const scans: number[] = [];
try {
  for (let run = 1; run <= runs; run++) {
    const load = loadavg()[0]!.toFixed(2);
    const started = performance.now();
    const proc = Bun.spawn(
      [
        process.execPath,
        "src/main.ts",
        "discover",
        "--serial",
        scanEnd,
        "--timeout-ms",
        String(timeoutMs),
        ...(args.probe === undefined ? [] : ["--probe", args.probe]),
        "--json",
      ],
      { cwd: repoRoot, stdout: "pipe", stderr: "pipe", env: { ...process.env, CI: "true" } },
    );
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    const wallMs = performance.now() - started;
    if (code !== 0) throw new Error(`discover exited ${code}: ${stderr}`);
    const report = JSON.parse(stdout) as { elapsed_ms: number; found: { unit_id: number }[] };
    const found = report.found.map((unit) => unit.unit_id).join(",");
    if (found !== devices.join(",")) throw new Error(`found ${found}, expected ${devices.join(",")}`);
    scans.push(report.elapsed_ms);
    console.log(
      `run ${run}: scan ${(report.elapsed_ms / 1000).toFixed(2)} s (${(report.elapsed_ms / floorMs).toFixed(3)}x the floor), process ${(wallMs / 1000).toFixed(2)} s, found ${found}, load ${load}`,
    );
  }
  const sorted = [...scans].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `scan: median ${(median / 1000).toFixed(2)} s, ${(median / floorMs).toFixed(3)}x the floor (range ${(sorted[0]! / floorMs).toFixed(3)}-${(sorted.at(-1)! / floorMs).toFixed(3)}x); per silent unit ${((median - devices.length * answerMs) / (units - devices.length)).toFixed(1)} ms (${probes} x ${timeoutMs} ms) if the devices cost only their answers`,
  );
} finally {
  peer.kill();
  socat.kill();
  rmSync(dir, { recursive: true, force: true });
}
