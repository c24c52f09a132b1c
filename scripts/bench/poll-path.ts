/**
 * CPU per poll request of the poller's own path, without sockets: one gateway of ten
 * devices (three one-register requests each, polled as fast as they go) on one
 * in-process link that answers each read on the next event-loop turn. What it
 * measures is the poller's code (plan, queue, counted link, counters, decoding) plus
 * a promise and a setImmediate per request, which are the same in any tree.
 *
 * Usage: bun scripts/bench/poll-path.ts [TREE] [--rounds 5] [--seconds 2]
 * TREE (default: this repository) is the checkout whose src/ is measured, so two
 * trees can be compared in one session, alternating.
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { rounds: { type: "string", default: "5" }, seconds: { type: "string", default: "2" } },
  allowPositionals: true,
});
const tree = positionals[0] ?? join(import.meta.dir, "..", "..");
const { startGatewayPoller } = await import(join(tree, "src/modbus/poller.ts"));
const { systemClock } = await import(join(tree, "src/lib/clock.ts"));
const { silentLogger } = await import(join(tree, "src/lib/logger.ts"));

let requests = 0;
const words = [1, 2, 3, 4];
const link = {
  isOpen: true,
  close: async () => {},
  read: (_functionCode: number, _unit: number, _start: number, count: number) => {
    requests++;
    return new Promise((resolve) =>
      setImmediate(() => resolve({ ok: true, words: words.slice(0, count), bits: null })),
    );
  },
};
const devices = Array.from({ length: 10 }, (_, index) => ({
  id: `d${index}`,
  name: `d${index}`,
  slaveId: index + 1,
  host: null,
  port: null,
  pollIntervalMs: 1,
  timeoutMs: 100,
  retries: 0,
  maxRegistersPerRequest: 125,
  maxGap: 0,
  pauseMs: 0,
  storageIntervalMs: 60_000,
  registers: [0, 10, 20].map((address) => ({
    id: `d${index}-${address}`,
    address,
    functionCode: 3,
    dataType: "int16",
    byteOrder: "ABCD",
    bit: null,
    length: null,
  })),
}));
const poller = startGatewayPoller({
  gateway: { id: "gw", serial: "GW", bus: { type: "rtu_over_tcp", host: "x", port: 1 }, heartbeatMs: 60_000, devices },
  sink: { readings: () => {}, answered: () => {}, unreachable: () => {} },
  clock: systemClock,
  logger: silentLogger(),
  openLink: async () => link,
});
await Bun.sleep(500);
const perRequest: number[] = [];
for (let round = 0; round < Number(args.rounds); round++) {
  const before = requests;
  const cpu = process.cpuUsage();
  await Bun.sleep(Number(args.seconds) * 1000);
  const used = process.cpuUsage(cpu);
  perRequest.push((used.user + used.system) / (requests - before));
}
await poller.stop();
const sorted = [...perRequest].sort((a, b) => a - b);
console.log(
  `${tree}: CPU per request ${perRequest.map((us) => us.toFixed(2)).join(" ")} µs (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}), load ${loadavg()[0]!.toFixed(1)}`,
);
process.exit(0);
