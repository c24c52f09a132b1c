/**
 * Webhook leases and rate limits on PostgreSQL (docs/benchmarks.md, "Webhook
 * leases and rate limits on PostgreSQL"), on a private PostgreSQL the script
 * starts (test/harness/postgres.ts, fsync on, as in service):
 *
 *   (a) the outbox claim loop: take up to 32 due messages, settle them as delivered:
 *       `--settle batch` (the default) in one transaction (`settleAll`, as the
 *       dispatcher settles the attempts that finished together), `--settle each`
 *       one transaction each, concurrently,
 *       until none is due; messages claimed+settled per second by 1 and by 2
 *       processes (child processes of this script, one pool each) sharing one
 *       PostgreSQL, against the same loop on the SQLite store in this process
 *       (its due + settle, synchronous), each on fresh messages;
 *   (b) rate-limit takes per second: the PostgreSQL upsert (32 in flight from one
 *       pool) against the in-memory counter of a box.
 *
 *   node_modules/.bin/bun scripts/bench/pg-outbox.ts [--messages 4000] [--repeat 3] [--takes 20000] [--settle batch|each]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { rateLimitWindowOf } from "../../src/store/contract/rate-limits.ts";
import type { AttemptRow, WebhookStore } from "../../src/store/contract/webhooks.ts";
import { openStoreFile } from "../../src/store/index.ts";
import { memoryRateLimitStore } from "../../src/store/memory-rate-limits.ts";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { sampleEvent } from "../../test/harness/events.ts";
import { startPostgres } from "../../test/harness/postgres.ts";

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    messages: { type: "string", default: "4000" },
    repeat: { type: "string", default: "3" },
    takes: { type: "string", default: "20000" },
    settle: { type: "string", default: "batch" },
    worker: { type: "boolean", default: false },
  },
});
const endpointCount = 8;
const settleEach = options.settle === "each";
const batch = 32;
const delivered = (at: number): AttemptRow => ({
  attemptedAt: at,
  statusCode: 204,
  durationMs: 1,
  error: null,
  responseExcerpt: null,
});

/** One process's claim loop on PostgreSQL; how many it settled. */
async function pgClaimLoop(store: PostgresStore): Promise<number> {
  let settled = 0;
  for (;;) {
    const due = await store.webhooks.due(Date.now(), batch);
    if (due.length === 0) return settled;
    const results = settleEach
      ? await Promise.all(
          due.map((delivery) => store.webhooks.settle(delivery, delivered(Date.now()), { kind: "delivered" })),
        )
      : await store.webhooks.settleAll(
          due.map((delivery) => ({
            delivery,
            attempt: delivered(Date.now()),
            outcome: { kind: "delivered" as const },
          })),
        );
    settled += results.filter((result) => result.settled).length;
  }
}

if (options.worker) {
  // A child: open, say ready, wait for "go", run the loop, report.
  const store = await openPostgresStore(positionals[0] as string, { max: 4 });
  process.stdout.write("ready\n");
  for await (const line of console) if (line.trim() === "go") break;
  const start = performance.timeOrigin + performance.now();
  const settled = await pgClaimLoop(store);
  const end = performance.timeOrigin + performance.now();
  process.stdout.write(`${JSON.stringify({ settled, start, end })}\n`);
  await store.close();
  process.exit(0);
}

const messages = Number(options.messages);
const repeat = Number(options.repeat);
const takeCount = Number(options.takes);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const out = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 0 });
const range = (values: number[], digits = 0) => {
  const f = (v: number) => v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${f(Math.min(...values))} to ${f(Math.max(...values))}`;
};
const events = messages / endpointCount;

out(
  `pg-outbox: ${messages} messages (${events} events x ${endpointCount} endpoints), batches of ${batch}, ` +
    `settled ${settleEach ? "one transaction each" : "one transaction a batch"}; load ${load()}`,
);
const pg = await startPostgres({ sharedBuffers: "128MB", durable: true });
const dirs: string[] = [];

/** The benchmark's endpoints, every one subscribed to every event (the receiver is never called). */
async function createEndpoints(webhooks: WebhookStore): Promise<void> {
  for (let e = 0; e < endpointCount; e++) {
    await webhooks.createEndpoint({
      uuid: `e${e}`,
      orgId: 1,
      url: "http://127.0.0.1:9/",
      description: null,
      eventTypes: "",
      secret: "s",
      now: 0,
    });
  }
}

/** A fresh database with one organisation and its endpoints; the URL. */
async function pgDatabase(name: string): Promise<string> {
  const url = await pg.database(name);
  const store = await openPostgresStore(url, { max: 1 });
  const sql = new Bun.SQL(url, { max: 1 });
  await sql`INSERT INTO organizations (id, uuid, key, name, created_at) VALUES (1, 'org-1', 'acme', 'Acme', 0)`;
  await sql.close();
  await createEndpoints(store.webhooks);
  await store.close();
  return url;
}

async function seedPg(url: string): Promise<void> {
  const store = await openPostgresStore(url, { max: 4 });
  const now = Date.now();
  for (let i = 0; i < events; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, events - i) }, (_, k) =>
        store.events.record(sampleEvent("device.online", 1, now, `FH-${i + k}`)),
      ),
    );
  }
  await store.close();
}

/** `processes` children run the claim loop at once; deliveries per second over the span of all. */
async function pgProcesses(processes: number, round: number): Promise<number> {
  const url = await pgDatabase(`outbox_${processes}_${round}`);
  await seedPg(url);
  const children = Array.from({ length: processes }, () =>
    Bun.spawn([process.execPath, import.meta.path, "--worker", "--settle", options.settle ?? "batch", url], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
    }),
  );
  const readers = children.map((child) => lines(child.stdout));
  for (const reader of readers) await reader.next(); // ready
  for (const child of children) {
    child.stdin.write("go\n");
    child.stdin.flush();
  }
  const reports = await Promise.all(
    readers.map(async (reader) => JSON.parse((await reader.next()).value as string) as Report),
  );
  await Promise.all(children.map((child) => child.exited));
  const settled = reports.reduce((sum, report) => sum + report.settled, 0);
  if (settled !== messages) throw new Error(`settled ${settled} of ${messages}`);
  const span = Math.max(...reports.map((r) => r.end)) - Math.min(...reports.map((r) => r.start));
  return (settled / span) * 1000;
}

interface Report {
  settled: number;
  start: number;
  end: number;
}

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk);
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
    }
  }
}

/** The same loop on the SQLite store of a box (one process: its dispatcher is the only one). */
async function sqliteLoop(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "fieldhub-bench-outbox-"));
  dirs.push(dir);
  const store = openStoreFile(join(dir, "fieldhub.db"));
  sqliteOf(store).run(
    "INSERT INTO organizations (id, uuid, key, name, created_at) VALUES (1, 'org-1', 'acme', 'Acme', 0)",
  );
  await createEndpoints(store.webhooks);
  const now = Date.now();
  for (let i = 0; i < events; i++) await store.events.record(sampleEvent("device.online", 1, now, `FH-${i}`));
  const start = performance.now();
  let settled = 0;
  for (;;) {
    const due = await store.webhooks.due(Date.now(), batch);
    if (due.length === 0) break;
    if (settleEach) {
      for (const delivery of due) await store.webhooks.settle(delivery, delivered(Date.now()), { kind: "delivered" });
    } else {
      await store.webhooks.settleAll(
        due.map((delivery) => ({ delivery, attempt: delivered(Date.now()), outcome: { kind: "delivered" as const } })),
      );
    }
    settled += due.length;
  }
  const rate = (settled / (performance.now() - start)) * 1000;
  await store.close();
  if (settled !== messages) throw new Error(`SQLite settled ${settled} of ${messages}`);
  return rate;
}

async function pgTakes(url: string): Promise<number> {
  const store = await openPostgresStore(url, { max: 8 });
  const window = rateLimitWindowOf(Date.now());
  await store.rateLimits.take("key:warm", window, 100); // the window's prune, once
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < takeCount) {
        const i = next++;
        await store.rateLimits.take(`key:${i % 50}`, window, 100);
      }
    }),
  );
  const rate = (takeCount / (performance.now() - start)) * 1000;
  await store.close();
  return rate;
}

async function memoryTakes(): Promise<number> {
  const limits = memoryRateLimitStore();
  const window = rateLimitWindowOf(Date.now());
  const count = takeCount * 50;
  const start = performance.now();
  for (let i = 0; i < count; i++) await limits.take(`key:${i % 50}`, window, 100);
  return (count / (performance.now() - start)) * 1000;
}

const results = {
  sqlite: [] as number[],
  one: [] as number[],
  two: [] as number[],
  pgTake: [] as number[],
  memTake: [] as number[],
};
try {
  for (let round = 0; round < repeat; round++) {
    results.sqlite.push(await sqliteLoop());
    results.one.push(await pgProcesses(1, round));
    results.two.push(await pgProcesses(2, round));
    results.pgTake.push(await pgTakes(await pg.database(`takes_${round}`)));
    results.memTake.push(await memoryTakes());
    out(
      `  round ${round + 1}: SQLite ${fmt(results.sqlite[round] as number)}/s; PostgreSQL 1 process ${fmt(results.one[round] as number)}/s, 2 processes ${fmt(results.two[round] as number)}/s; rate-limit takes PostgreSQL ${fmt(results.pgTake[round] as number)}/s, memory ${fmt(results.memTake[round] as number)}/s; load ${load()}`,
    );
  }
  const ratios = (a: number[], b: number[]) => a.map((value, i) => value / (b[i] as number));
  out("(a) messages claimed+settled per second:");
  out(`  SQLite store, one process (baseline): ${range(results.sqlite)}`);
  out(
    `  PostgreSQL, 1 process: ${range(results.one)} (ratio to SQLite ${range(ratios(results.one, results.sqlite), 2)}x)`,
  );
  out(
    `  PostgreSQL, 2 processes: ${range(results.two)} (ratio to SQLite ${range(ratios(results.two, results.sqlite), 2)}x; to 1 process ${range(ratios(results.two, results.one), 2)}x)`,
  );
  out("(b) rate-limit takes per second:");
  out(`  in-memory counter (baseline): ${range(results.memTake)}`);
  out(
    `  PostgreSQL upsert, 32 in flight: ${range(results.pgTake)} (ratio to memory ${range(ratios(results.pgTake, results.memTake), 4)}x)`,
  );
  out(`load after: ${load()}`);
} finally {
  await pg.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
