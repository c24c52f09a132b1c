/**
 * Benchmark of Modbus TCP polling: fieldhub's poller (startGatewayPoller) against
 * a bare modbus-serial loop, both reading the same devices from an independent
 * peer (Debian's pymodbus 3.0, scripts/bench/pymodbus_peers.py), in the same run.
 *
 * Devices: --devices (50) Modbus TCP devices, each on its own port (fieldhub opens
 * one connection per host:port; one port per device lets connections run in
 * parallel), each with --registers (100) registers in a gapped map: clusters of
 * contiguous int16/float32/uint32 registers (ABCD and CDAB), on function codes 3
 * and 4, separated by gaps some at most max_gap long (the planner reads through
 * them; the peer answers them with zeros) and some longer (the peer does not
 * define them: reading through one answers exception 2, checked below).
 *
 * 1. Requests per cycle: a poller whose devices are due once (poll interval of an
 *    hour) polls every device once; poller.stats().requests must equal the sum of
 *    planReadRequests() over the devices' maps, with no error, timeout, exception
 *    or retry. Every value read is checked against what the peer encoded.
 * 2. Cycle time: with a poll interval of 0 every device is always due, each
 *    connection polls its device back to back. Cycle k of the plant ends when the
 *    last device reports its k-th cycle; after --warmup cycles, the time of
 *    --cycles more cycles, divided by --cycles, is the cycle time. The baseline is
 *    a bare loop issuing the same planned reads with modbus-serial, one ModbusRTU
 *    client per device, one request in flight per connection, all connections in
 *    parallel, timed the same way. Rounds alternate bare and fieldhub; each side's
 *    figure is its best round (other load on the machine only ever slows a round).
 *    Target: fieldhub <= 1.5x the bare loop. Each round also prints the CPU time
 *    per request of this process and of pymodbus (the side that saturates its core
 *    sets the pace), and checks fieldhub's request count against the plan.
 *
 * Usage: bun scripts/bench/modbus-poll.ts [--devices 50] [--registers 100] [--cycles 60]
 *          [--warmup 3] [--rounds 5] [--max-gap 8] [--peers 1] [--only fieldhub|bare]
 * --peers: pymodbus processes to spread the devices over (pymodbus serves all its
 * connections on one Python thread). --only: time one side only (for --cpu-prof).
 * Needs /usr/bin/python3 with pymodbus (apt-get install python3-pymodbus).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import ModbusRTU from "modbus-serial";
import { systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import type { PolledValue } from "../../src/lib/polled-value.ts";
import { planReadRequests, type ReadRequest } from "../../src/modbus/plan.ts";
import { type PollSink, startGatewayPoller } from "../../src/modbus/poller.ts";
import type { PollingDevice, PollingGateway } from "../../src/modbus/polling-config.ts";
import type { DataType, FunctionCode, RegisterDecoding } from "../../src/modbus/register-model.ts";
import { registerSpan } from "../../src/modbus/register-model.ts";
import { seededRandom } from "../../test/harness/seeded-random.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    devices: { type: "string" },
    registers: { type: "string" },
    cycles: { type: "string" },
    warmup: { type: "string" },
    rounds: { type: "string" },
    "max-gap": { type: "string" },
    peers: { type: "string" },
    only: { type: "string" },
  },
});
const deviceCount = Number(args.devices ?? 50);
const registersPerDevice = Number(args.registers ?? 100);
const measuredCycles = Number(args.cycles ?? 60);
const warmupCycles = Number(args.warmup ?? 3);
const rounds = Number(args.rounds ?? 5);
const maxGap = Number(args["max-gap"] ?? 8);
const peerProcesses = Math.max(1, Math.min(Number(args.peers ?? 1), deviceCount));
const only = args.only ?? "both";
const maxRegistersPerRequest = 125;
const timeoutMs = 3000;
const python = "/usr/bin/python3";
const fixture = join(import.meta.dir, "pymodbus_peers.py");
if (!existsSync(python)) throw new Error("needs Debian's pymodbus: apt-get install python3-pymodbus");
if (!["both", "fieldhub", "bare"].includes(only)) throw new Error("--only: fieldhub or bare");

// --- the register maps --------------------------------------------------------
type PeerEntry = { address: number; type: DataType | "raw"; value: number | number[]; order?: string };
type BenchDevice = {
  polling: PollingDevice;
  /** What the peer serves, per table. */
  hr: PeerEntry[];
  ir: PeerEntry[];
  /** The raw value fieldhub must decode, per register id. */
  expected: Map<string, number>;
  /** Ranges that cross a gap longer than max_gap, one per such gap (the peer must refuse them). */
  acrossLargeGaps: { functionCode: FunctionCode; start: number; count: number }[];
  plan: ReadRequest[];
  /** Registers read by the first k requests of the plan, k = 0..plan.length. */
  cumulative: number[];
};

function buildDevice(index: number): BenchDevice {
  // The same maps on every run (one seed per device).
  const next = seededRandom(index + 1);
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const registers: RegisterDecoding[] = [];
  const tables: Record<3 | 4, PeerEntry[]> = { 3: [], 4: [] };
  const cursor: Record<3 | 4, number> = { 3: between(0, 40), 4: between(0, 40) };
  const started: Record<3 | 4, boolean> = { 3: false, 4: false };
  const expected = new Map<string, number>();
  const acrossLargeGaps: BenchDevice["acrossLargeGaps"] = [];
  while (registers.length < registersPerDevice) {
    const functionCode: 3 | 4 = next() < 0.6 ? 3 : 4;
    if (started[functionCode]) {
      const small = next() < 0.5;
      const gap = small ? between(1, Math.max(1, maxGap)) : between(maxGap + 1, maxGap + 60);
      if (small && gap <= maxGap) {
        // Read through by the planner: the peer answers these addresses (zeros).
        tables[functionCode].push({ address: cursor[functionCode], type: "raw", value: new Array(gap).fill(0) });
      } else {
        // From the last word before the gap to the first word after it.
        acrossLargeGaps.push({ functionCode, start: cursor[functionCode] - 1, count: gap + 2 });
      }
      cursor[functionCode] += gap;
    }
    started[functionCode] = true;
    const clusterSize = Math.min(between(2, 16), registersPerDevice - registers.length);
    for (let i = 0; i < clusterSize; i++) {
      const pick = next();
      const dataType: DataType = pick < 0.4 ? "int16" : pick < 0.75 ? "float32" : "uint32";
      const byteOrder = dataType !== "int16" && next() < 0.3 ? "CDAB" : "ABCD";
      const id = `d${index}r${registers.length}`;
      const register: RegisterDecoding = {
        id,
        functionCode,
        address: cursor[functionCode],
        dataType,
        byteOrder,
        bit: null,
        length: null,
      };
      const value =
        dataType === "int16"
          ? between(-32768, 32767)
          : dataType === "uint32"
            ? between(0, 4_000_000_000)
            : between(-800_000, 800_000) / 8; // exact in float32
      tables[functionCode].push({ address: register.address, type: dataType, value, order: byteOrder });
      expected.set(id, value);
      registers.push(register);
      cursor[functionCode] += registerSpan(register);
    }
  }
  const polling: PollingDevice = {
    id: `device-${index}`,
    name: `bench ${index}`,
    slaveId: (index % 247) + 1,
    host: "127.0.0.1",
    port: 0, // set once the peer listens
    pollIntervalMs: 0,
    timeoutMs,
    retries: 1,
    maxRegistersPerRequest,
    maxGap,
    pauseMs: 0,
    storageIntervalMs: 300_000,
    registers,
  };
  const plan = planReadRequests(registers, { maxRegisters: maxRegistersPerRequest, maxBits: 2000, maxGap });
  const cumulative = [0];
  for (const request of plan) cumulative.push((cumulative.at(-1) ?? 0) + request.registers.length);
  return { polling, hr: tables[3], ir: tables[4], expected, acrossLargeGaps, plan, cumulative };
}

const devices = Array.from({ length: deviceCount }, (_, index) => buildDevice(index));
const deviceOfRegister = new Map<string, number>();
devices.forEach((device, index) => {
  for (const register of device.polling.registers) deviceOfRegister.set(register.id, index);
});
const planSizes = devices.map((device) => device.plan.length);
const plannedPerCycle = planSizes.reduce((sum, size) => sum + size, 0);
const wordsPerCycle = devices.reduce(
  (sum, device) => sum + device.plan.reduce((words, request) => words + request.count, 0),
  0,
);

// --- the peers ----------------------------------------------------------------
async function startPeers(group: BenchDevice[]) {
  const proc = Bun.spawn([python, fixture], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  proc.stdin.write(
    JSON.stringify({
      devices: group.map((device) => ({ unit: device.polling.slaveId, hr: device.hr, ir: device.ir })),
    }),
  );
  await proc.stdin.end();
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    const match = /READY ([\d,]+)\n/.exec(text);
    if (match) {
      reader.releaseLock();
      const ports = (match[1] ?? "").split(",").map(Number);
      group.forEach((device, index) => {
        device.polling.port = ports[index] ?? 0;
      });
      return proc;
    }
  }
  proc.kill();
  throw new Error(`pymodbus peers did not start: ${text}`);
}

const peers = await Promise.all(
  Array.from({ length: peerProcesses }, (_, peer) =>
    startPeers(devices.filter((_, index) => index % peerProcesses === peer)),
  ),
);
process.on("exit", () => {
  for (const peer of peers) peer.kill();
});
/** CPU time (user + system) the pymodbus processes have used so far, in µs. */
function peerCpuUs(): number {
  let ticks = 0;
  for (const peer of peers) {
    // /proc/PID/stat: fields 14 and 15 (utime, stime), counted after the ")" that ends the name.
    const fields = readFileSync(`/proc/${peer.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1_000_000) / clockTicks;
}
const clockTicks = 100; // USER_HZ on Linux

const gateway: PollingGateway = {
  id: "bench-gateway",
  serial: "BENCH-MODBUS",
  bus: { type: "tcp" },
  heartbeatMs: 300_000,
  devices: devices.map((device) => device.polling),
};

async function connect(device: BenchDevice): Promise<ModbusRTU> {
  const client = new ModbusRTU();
  await client.connectTCP("127.0.0.1", { port: device.polling.port ?? 0 });
  client.setID(device.polling.slaveId);
  client.setTimeout(timeoutMs);
  return client;
}
const close = (client: ModbusRTU) => new Promise<void>((resolve) => client.close(() => resolve()));

// The peer really refuses a read through any gap longer than max_gap.
const largeGaps = devices.reduce((sum, device) => sum + device.acrossLargeGaps.length, 0);
await Promise.all(
  devices.map(async (device) => {
    const client = await connect(device);
    for (const { functionCode, start, count } of device.acrossLargeGaps) {
      const refused = await (functionCode === 3
        ? client.readHoldingRegisters(start, count)
        : client.readInputRegisters(start, count)
      ).then(
        () => null,
        (error: { modbusCode?: number }) => error.modbusCode ?? -1,
      );
      if (refused !== 2) {
        throw new Error(
          `${device.polling.name}: FC${functionCode} ${start}+${count} across a large gap gave ${refused}, not exception 2`,
        );
      }
    }
    await close(client);
  }),
);

// --- 1. requests per cycle --------------------------------------------------------
type Timing = {
  cycleMs: number;
  deviceCycles: number;
  registers: number;
  requests: number;
  windowMs: number;
  /** CPU time of this process (user + system) per request over the whole round, in µs. */
  cpuUsPerRequest: number;
  /** The same for the pymodbus processes. */
  peerCpuUsPerRequest: number;
};

/** Counts cycles per device from what the poller reports; resolves when every device reached `target` cycles. */
function countingSink(target: number, onValues?: (device: number, values: PolledValue[]) => void) {
  const done: number[][] = devices.map(() => []);
  const partialRequests: number[] = devices.map(() => 0);
  let devicesAtTarget = 0;
  let resolveAll = () => {};
  let fail = (_error: Error) => {};
  const reached = new Promise<void>((resolve, reject) => {
    resolveAll = resolve;
    fail = reject;
  });
  // A poller that stalls (a timeout, a lost connection) must not hang the benchmark.
  const guard = setTimeout(() => fail(new Error(`devices did not all reach ${target} cycles in 120 s`)), 120_000);
  reached.finally(() => clearTimeout(guard)).catch(() => {});
  const sink: PollSink = {
    readings(_gatewayId, values) {
      const first = values[0];
      if (first === undefined) return;
      const index = deviceOfRegister.get(first.registerId) ?? -1;
      const device = devices[index];
      if (device === undefined) return fail(new Error(`unknown register ${first.registerId}`));
      if (values.length !== device.polling.registers.length) {
        // A cycle cut short by stop(): the plan's first k requests were read.
        const k = device.cumulative.indexOf(values.length);
        if (k < 0) return fail(new Error(`device ${index}: ${values.length} values match no prefix of the plan`));
        partialRequests[index] = (partialRequests[index] ?? 0) + k;
        return;
      }
      onValues?.(index, values);
      const times = done[index] as number[];
      times.push(performance.now());
      if (times.length === target && ++devicesAtTarget === devices.length) resolveAll();
    },
    answered() {},
    unreachable(_gatewayId, _at, reason) {
      fail(new Error(`unreachable: ${reason}`));
    },
  };
  return { sink, done, partialRequests, reached };
}

/** The plant's cycle time from per-device completion times, and the work done meanwhile. */
function timing(done: number[][], cpuUs: number, peerUs: number, totalRequests: number): Timing {
  const endOf = (cycle: number) => Math.max(...done.map((times) => times[cycle - 1] ?? Number.POSITIVE_INFINITY));
  const from = endOf(warmupCycles);
  const to = endOf(warmupCycles + measuredCycles);
  let deviceCycles = 0;
  let registers = 0;
  let requests = 0;
  done.forEach((times, index) => {
    const device = devices[index] as BenchDevice;
    const inWindow = times.filter((time) => time > from && time <= to).length;
    deviceCycles += inWindow;
    registers += inWindow * device.polling.registers.length;
    requests += inWindow * device.plan.length;
  });
  return {
    cycleMs: (to - from) / measuredCycles,
    deviceCycles,
    registers,
    requests,
    windowMs: to - from,
    cpuUsPerRequest: cpuUs / totalRequests,
    peerCpuUsPerRequest: peerUs / totalRequests,
  };
}

const mismatches: string[] = [];
const checkValues = (index: number, values: PolledValue[]) => {
  const expected = (devices[index] as BenchDevice).expected;
  for (const value of values) {
    if (value.raw !== expected.get(value.registerId)) {
      mismatches.push(`${value.registerId}: read ${value.raw}, peer encoded ${expected.get(value.registerId)}`);
    }
  }
};
const onceGateway: PollingGateway = {
  ...gateway,
  devices: gateway.devices.map((device) => ({ ...device, pollIntervalMs: 3_600_000 })),
};
const once = countingSink(1, checkValues);
const firstPoller = startGatewayPoller({
  gateway: onceGateway,
  sink: once.sink,
  clock: systemClock,
  logger: silentLogger(),
});
await once.reached;
const firstStats = firstPoller.stats();
await firstPoller.stop();
if (mismatches.length > 0) throw new Error(`values differ from the peer's:\n${mismatches.slice(0, 10).join("\n")}`);

// --- 2. cycle time ----------------------------------------------------------------
const target = warmupCycles + measuredCycles;

async function runFieldhub(): Promise<Timing & { requestsOk: boolean; detail: string }> {
  const counting = countingSink(target);
  const cpu = process.cpuUsage();
  const peerCpu = peerCpuUs();
  const poller = startGatewayPoller({
    gateway,
    sink: counting.sink,
    clock: systemClock,
    logger: silentLogger(),
  });
  await counting.reached;
  await poller.stop();
  const used = process.cpuUsage(cpu);
  const peerUsed = peerCpuUs() - peerCpu;
  const stats = poller.stats();
  let planned = 0;
  counting.done.forEach((times, index) => {
    planned += times.length * (devices[index] as BenchDevice).plan.length + (counting.partialRequests[index] ?? 0);
  });
  const failures = stats.errors + stats.timeouts + stats.exceptions + stats.reconnects;
  return {
    ...timing(counting.done, used.user + used.system, peerUsed, stats.requests),
    requestsOk: stats.requests === planned && failures === 0,
    detail: `stats().requests ${stats.requests}, plan x cycles ${planned}, errors ${stats.errors}, timeouts ${stats.timeouts}, exceptions ${stats.exceptions}, reconnects ${stats.reconnects}`,
  };
}

async function runBare(): Promise<Timing> {
  // CPU is counted from before connecting, as for the poller (which connects itself).
  const cpu = process.cpuUsage();
  const peerCpu = peerCpuUs();
  const clients = await Promise.all(devices.map(connect));
  const done: number[][] = devices.map(() => []);
  let issued = 0;
  let devicesAtTarget = 0;
  let stopped = false;
  await Promise.all(
    devices.map(async (device, index) => {
      const client = clients[index] as ModbusRTU;
      const times = done[index] as number[];
      while (!stopped) {
        for (const request of device.plan) {
          if (stopped) break;
          issued++;
          if (request.functionCode === 3) await client.readHoldingRegisters(request.start, request.count);
          else await client.readInputRegisters(request.start, request.count);
        }
        if (stopped) break;
        times.push(performance.now());
        if (times.length === target && ++devicesAtTarget === devices.length) stopped = true;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  const peerUsed = peerCpuUs() - peerCpu;
  await Promise.all(clients.map(close));
  return timing(done, used.user + used.system, peerUsed, issued);
}

const bareRounds: Timing[] = [];
const fieldhubRounds: (Timing & { requestsOk: boolean; detail: string })[] = [];
for (let round = 0; round < rounds; round++) {
  if (only !== "fieldhub") bareRounds.push(await runBare());
  if (only !== "bare") fieldhubRounds.push(await runFieldhub());
}
for (const peer of peers) peer.kill();

// --- report -------------------------------------------------------------------------
const best = <T extends Timing>(list: T[]) =>
  list.reduce<T | undefined>((a, b) => (a === undefined || b.cycleMs < a.cycleMs ? b : a), undefined);
const registerCount = devices.reduce((sum, device) => sum + device.polling.registers.length, 0);
const perSecond = (count: number, ms: number) => Math.round((count * 1000) / ms).toLocaleString("en");
const describe = (timing: Timing) =>
  `${timing.cycleMs.toFixed(2)} ms per cycle = ${perSecond(registerCount, timing.cycleMs)} registers/s of the whole plant; ` +
  `all connections together ${perSecond(timing.requests, timing.windowMs)} requests/s, ${perSecond(timing.registers, timing.windowMs)} registers/s`;
const requestsOk =
  firstStats.requests === plannedPerCycle &&
  firstStats.errors + firstStats.timeouts + firstStats.exceptions + firstStats.reconnects === 0;
const cpu = (timing: Timing) =>
  `CPU per request: Bun ${timing.cpuUsPerRequest.toFixed(1)} µs, pymodbus ${timing.peerCpuUsPerRequest.toFixed(1)} µs`;
const lines = [
  `${deviceCount} Modbus TCP devices x ${registersPerDevice} registers (${registerCount} in all; int16/float32/uint32 on FC 3 and 4), max_gap ${maxGap}, ` +
    `pymodbus in ${peerProcesses} process(es), one port per device`,
  `planner minimum: ${plannedPerCycle} requests per cycle of all devices (${(plannedPerCycle / deviceCount).toFixed(2)} per device, ` +
    `${Math.min(...planSizes)} to ${Math.max(...planSizes)}; ${wordsPerCycle} words); ` +
    `the peer refuses all ${largeGaps} reads across a gap > max_gap (exception 2)`,
  `1. requests in one cycle: fieldhub poller (stats().requests) ${firstStats.requests}, planner minimum ${plannedPerCycle}; ` +
    `errors ${firstStats.errors}, timeouts ${firstStats.timeouts}, exceptions ${firstStats.exceptions}; ` +
    `all ${registerCount} values as the peer encoded them: ${requestsOk ? "OK" : "MISSED"}`,
  `2. cycle time (all ${deviceCount} devices), ${measuredCycles} cycles after ${warmupCycles} warm-up, ${rounds} round(s):`,
];
for (let round = 0; round < rounds; round++) {
  const bareRound = bareRounds[round];
  const fieldhubRound = fieldhubRounds[round];
  if (bareRound)
    lines.push(`  round ${round + 1} bare modbus-serial loop: ${bareRound.cycleMs.toFixed(2)} ms; ${cpu(bareRound)}`);
  if (fieldhubRound) {
    lines.push(
      `  round ${round + 1} fieldhub poller:         ${fieldhubRound.cycleMs.toFixed(2)} ms; ${cpu(fieldhubRound)}; ` +
        `requests ${fieldhubRound.requestsOk ? "= plan" : "!= plan"} (${fieldhubRound.detail})`,
    );
  }
}
const bare = best(bareRounds);
const fieldhub = best(fieldhubRounds);
if (bare) lines.push(`  bare modbus-serial loop, best round: ${describe(bare)}`);
if (fieldhub) lines.push(`  fieldhub poller, best round: ${describe(fieldhub)}`);
if (bare && fieldhub) {
  const ratio = fieldhub.cycleMs / bare.cycleMs;
  const paired = fieldhubRounds.map((timing, round) => timing.cycleMs / (bareRounds[round] as Timing).cycleMs);
  lines.push(
    `  ratio fieldhub / bare (best rounds): ${ratio.toFixed(2)}x (target <= 1.5x) ${ratio <= 1.5 ? "OK" : "MISSED"}`,
  );
  lines.push(`  ratio round by round: ${paired.map((value) => `${value.toFixed(2)}x`).join(", ")}`);
}
if (fieldhubRounds.length > 0) {
  const allOk = fieldhubRounds.every((timing) => timing.requestsOk);
  lines.push(`  requests in every fieldhub round = planned reads, no failures: ${allOk ? "OK" : "MISSED"}`);
}
process.stdout.write(`${lines.join("\n")}\n`);
