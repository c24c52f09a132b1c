/**
 * Webhook delivery throughput and latency (target: at least 500 deliveries a
 * second to a local receiver), against a bare loop of signed POSTs of the same
 * messages with the same concurrency, in the same run. The receiver is a
 * separate process that answers 204 at once.
 *
 * Latency is from the moment the event is recorded in the store to the moment
 * its delivery is recorded as done (both on the store's clock).
 *
 * fieldhub is measured twice: with the events recorded by the same process while
 * it delivers (the figure this bench always gave), and as the dispatcher alone,
 * from its start on a backlog recorded before. Both print this process's CPU time
 * per delivery beside the bare loop's: on a shared machine it moves less than the
 * rates do.
 *
 * `--repeat N` runs the set N times, alternating, and prints each run and the
 * median and range of the ratio (on a shared machine one run says little).
 *
 * Usage: bun scripts/bench/webhooks.ts [--messages 5000] [--endpoints 4] [--repeat 1]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseConfig } from "../../src/config/index.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { newMessageId } from "../../src/lib/crypto.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { openStore } from "../../src/store/index.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { startDispatcher } from "../../src/webhooks/dispatcher.ts";
import { endpointService } from "../../src/webhooks/endpoints.ts";
import { generateSigningSecret, signatureHeader } from "../../src/webhooks/signing.ts";
import { sampleEvent } from "../../test/harness/events.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { messages: { type: "string" }, endpoints: { type: "string" }, repeat: { type: "string" } },
});
const messages = Number(values.messages ?? 5000);
const endpointCount = Number(values.endpoints ?? 4);
const repeat = Number(values.repeat ?? 1);
const concurrency = 32;

const receiver = Bun.spawn([process.execPath, join(import.meta.dir, "webhook-receiver.ts")], { stdout: "pipe" });
const reader = receiver.stdout.getReader();
let banner = "";
while (!/LISTENING (\d+)/.test(banner)) banner += new TextDecoder().decode((await reader.read()).value);
const url = `http://127.0.0.1:${/LISTENING (\d+)/.exec(banner)?.[1]}/hook`;

const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
const percentile = (list: number[], p: number) =>
  sorted(list)[Math.min(list.length - 1, Math.floor(list.length * p))] as number;

// --- bare: signed POSTs of the same envelopes, `concurrency` at a time -------
/** This process's CPU time (user + system) since `from`, in µs. */
const cpuSince = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return used.user + used.system;
};

async function bareLoop(): Promise<{ rate: number; latencies: number[]; cpuUsPerDelivery: number }> {
  const secret = generateSigningSecret();
  const latencies: number[] = [];
  let next = 0;
  const began = performance.now();
  const cpu = process.cpuUsage();
  const worker = async () => {
    while (next < messages) {
      const index = next++;
      const id = newMessageId();
      const body = `{"id":"${id}","type":"device.online","timestamp":"${new Date().toISOString()}","data":{"n":${index}}}`;
      const timestamp = Math.floor(Date.now() / 1000);
      const sent = performance.now();
      const response = await fetch(url, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signatureHeader([secret], id, timestamp, body),
          "x-service-event": "device.online",
        },
      });
      await response.arrayBuffer();
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return {
    rate: messages / ((performance.now() - began) / 1000),
    latencies,
    cpuUsPerDelivery: cpuSince(cpu) / messages,
  };
}

// --- fieldhub: events recorded in the store, delivered by the dispatcher -----
/**
 * `burst`: the events are recorded while the dispatcher runs, in the same process
 * (the clock runs from the first event recorded); `backlog`: all of them are
 * recorded first, then the dispatcher starts (the clock runs from its start), so
 * the rate is the dispatcher's alone.
 */
async function fieldhub(
  mode: "burst" | "backlog",
): Promise<{ rate: number; latencies: number[]; cpuUsPerDelivery: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), "fieldhub-bench-webhooks-"));
  const store = openStore(dataDir);
  const config = parseConfig("organizations: [{ key: bench, name: Bench }]");
  if (!config.ok) throw new Error("config");
  await store.inventory.sync(config.config.inventory, Date.now());
  const service = endpointService(store, Date.now);
  for (let index = 0; index < endpointCount; index++)
    await service.create({ orgKey: "bench", url: `${url}?endpoint=${index}` });
  const org = await store.organizations.findByKey("bench");
  if (org === null) throw new Error("org");
  const events = store.events;
  const startDispatching = () =>
    startDispatcher({
      store,
      clock: systemClock,
      logger: silentLogger(),
      concurrency,
      perEndpointConcurrency: Math.ceil(concurrency / endpointCount),
    });
  let dispatcher = mode === "burst" ? startDispatching() : null;
  // Events arrive as a burst, in transactions of 100 (as a poll cycle's events would).
  const perEvent = Math.ceil(messages / endpointCount);
  let began = performance.now();
  let cpu = process.cpuUsage();
  for (let from = 0; from < perEvent; from += 100) {
    const recorded: Promise<unknown>[] = [];
    // One SQLite transaction around many store operations: each runs at its call (the SQLite store is
    // synchronous inside), so all of them commit together; their promises are awaited after.
    sqliteOf(store).transaction(() => {
      for (let index = from; index < Math.min(perEvent, from + 100); index++) {
        recorded.push(events.record(sampleEvent("device.online", org.id, Date.now(), `FH-${index}`)));
      }
    })();
    await Promise.all(recorded);
    dispatcher?.wake();
    await Bun.sleep(0);
  }
  if (dispatcher === null) {
    began = performance.now();
    cpu = process.cpuUsage();
    dispatcher = startDispatching();
  }
  const total = perEvent * endpointCount;
  const deadline = Date.now() + 120_000;
  while (dispatcher.stats().delivered < total) {
    if (Date.now() > deadline) throw new Error(`delivered ${dispatcher.stats().delivered} of ${total}`);
    await Bun.sleep(5);
  }
  const seconds = (performance.now() - began) / 1000;
  const cpuUsPerDelivery = cpuSince(cpu) / total;
  await dispatcher.stop();
  const latencies = sqliteOf(store)
    .query<{ ms: number }, []>(
      "SELECT d.completed_at - v.occurred_at AS ms FROM webhook_deliveries d JOIN events v ON v.id = d.event_id WHERE d.status = 'delivered'",
    )
    .all()
    .map((row) => row.ms);
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
  return { rate: total / seconds, latencies, cpuUsPerDelivery };
}

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
process.stdout.write(
  `${messages} messages, ${endpointCount} endpoints, ${concurrency} attempts at a time, receiver in its own process\n`,
);
const ratios = { burst: [] as number[], backlog: [] as number[] };
for (let run = 1; run <= repeat; run++) {
  const loadBefore = load();
  const bare = await bareLoop();
  const burst = await fieldhub("burst");
  const backlog = await fieldhub("backlog");
  ratios.burst.push(burst.rate / bare.rate);
  ratios.backlog.push(backlog.rate / bare.rate);
  process.stdout.write(
    `${[
      `run ${run} (load ${loadBefore})`,
      `  bare loop of signed POSTs: ${bare.rate.toFixed(0)} deliveries/s; latency per POST median ${percentile(bare.latencies, 0.5).toFixed(1)} ms, p99 ${percentile(bare.latencies, 0.99).toFixed(1)} ms; ${bare.cpuUsPerDelivery.toFixed(0)} µs CPU each`,
      `  fieldhub, events recorded while it delivers (store -> dispatcher -> receiver): ${burst.rate.toFixed(0)} deliveries/s (target >= 500: ${burst.rate >= 500 ? "OK" : "MISSED"}); ratio to bare ${(burst.rate / bare.rate).toFixed(2)}x`,
      `  event recorded -> delivery recorded: median ${percentile(burst.latencies, 0.5)} ms, p99 ${percentile(burst.latencies, 0.99)} ms (a burst: later events wait behind earlier ones)`,
      `  fieldhub's dispatcher alone, a backlog recorded before it starts: ${backlog.rate.toFixed(0)} deliveries/s; ratio to bare ${(backlog.rate / bare.rate).toFixed(2)}x; ${backlog.cpuUsPerDelivery.toFixed(0)} µs CPU each`,
    ].join("\n")}\n`,
  );
}
receiver.kill("SIGTERM");
await receiver.exited;
if (repeat > 1) {
  const summary = (list: number[]) =>
    `median ${percentile(list, 0.5).toFixed(2)}x, ${Math.min(...list).toFixed(2)}x to ${Math.max(...list).toFixed(2)}x`;
  process.stdout.write(
    `ratio to bare over ${repeat} runs: events recorded while it delivers ${summary(ratios.burst)}; dispatcher alone ${summary(ratios.backlog)}\n`,
  );
}
