/**
 * Webhook operations on a real `fieldhub serve` (docs/webhooks.md, "Resending a
 * time range" and "Pacing"): `fieldhub endpoints resend --since` as a separate
 * process beside it, the same through the admin API, and an endpoint's
 * `rate_limit_per_s`. Every delivery is verified with `standardwebhooks` by the
 * receiver, as an integrator's would be.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { adminSession } from "../faults/harness/admin-session.ts";
import { Cleanup } from "../faults/harness/cleanup.ts";
import { createEndpoint, eventually, type RunningServe, startServe } from "../faults/harness/serve.ts";
import { runCli } from "../harness/cli.ts";

interface Arrival {
  at: number;
  id: string;
  path: string;
}

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

/** A receiver per path: verifies each delivery with its endpoint's secret, answers 503 while that path is down. */
const secrets = new Map<string, Webhook>();
const down = new Set<string>();
const arrivals: Arrival[] = [];
let invalid = 0;
let receiver: ReturnType<typeof Bun.serve>;
let server: RunningServe;
let admin: Awaited<ReturnType<typeof adminSession>>;

beforeAll(async () => {
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname.slice(1);
      const body = await request.text();
      try {
        secrets.get(path)?.verify(body, Object.fromEntries(request.headers.entries()));
        if (!secrets.has(path)) throw new Error("no secret");
      } catch {
        invalid++;
        return new Response(null, { status: 400 });
      }
      if (down.has(path)) return new Response(null, { status: 503 });
      arrivals.push({ at: Date.now(), id: request.headers.get("webhook-id") ?? "", path });
      return new Response(null, { status: 204 });
    },
  });
  cleanup.add(() => receiver.stop(true));
  const workDir = mkdtempSync(join(tmpdir(), "fieldhub-webhook-resend-"));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  server = await startServe({
    workDir,
    yaml: "organizations: [{ key: site, name: Site }]\nwebhooks: { retry_delays_s: [1], pause_after_failed_messages: 1000 }\n",
  });
  cleanup.add(() => server.stop());
  admin = await adminSession(server.url, server.dataDir);
}, 30_000);

async function endpoint(path: string): Promise<string> {
  const created = await createEndpoint(server.dataDir, "site", `http://127.0.0.1:${receiver.port}/${path}`, []);
  secrets.set(path, new Webhook(created.secret));
  return created.id;
}

/** Queues `count` test messages to the endpoint through the admin API; their message ids. */
async function queueTests(id: string, count: number): Promise<string[]> {
  const sent = await Promise.all(Array.from({ length: count }, () => admin.post(`/admin/api/endpoints/${id}/test`)));
  return Promise.all(sent.map(async (response) => ((await response.json()) as { message_id: string }).message_id));
}

async function statuses(id: string): Promise<string[]> {
  const listed = await runCli(["endpoints", "deliveries", "--data", server.dataDir, id, "--json"]);
  return (JSON.parse(listed.stdout) as { status: string }[]).map((delivery) => delivery.status);
}

/** `fieldhub endpoints resend --data DIR ...args` beside the running server. */
const resend = (...args: string[]) => runCli(["endpoints", "resend", "--data", server.dataDir, ...args], 30_000);

const arrived = (path: string) => arrivals.filter((arrival) => arrival.path === path).map((arrival) => arrival.id);

test("resend --since replays the failed messages with the same webhook-ids, progress on stderr, one summary line", async () => {
  const id = await endpoint("down-a-day");
  down.add("down-a-day");
  const messages = await queueTests(id, 5);
  // Two attempts each (retry_delays_s: [1]), then failed.
  await eventually(
    () => statuses(id),
    (list) => list.length === 5 && list.every((status) => status === "failed"),
    20_000,
    250,
  );
  down.delete("down-a-day");

  const resent = await resend(id, "--since", "1h");
  expect({ code: resent.code, stderr: resent.stderr }).toEqual({
    code: 0,
    stderr: expect.stringContaining("queued 5 failed messages"),
  });
  expect(resent.stdout).toMatch(/^resent 5 failed messages from \S+ to \S+ to http:\S+: 5 delivered\n$/);
  expect(arrived("down-a-day").sort()).toEqual([...messages].sort());

  // Delivered now: a second --status failed finds nothing; --status delivered takes them all again.
  const none = await resend(id, "--since", "1h");
  expect(none.stdout).toStartWith("no failed messages of endpoint");
  const again = await resend(id, "--since", new Date(Date.now() - 3_600_000).toISOString(), "--status", "delivered");
  expect(again.code).toBe(0);
  expect(arrived("down-a-day").length).toBe(10);
  expect(new Set(arrived("down-a-day"))).toEqual(new Set(messages));
  expect(invalid).toBe(0);
}, 60_000);

test("resend refuses an unknown endpoint, a bad time and --until before --since with one line", async () => {
  const id = await endpoint("errors");
  const unknown = await resend("0b5e4c1a-7d2f-4e3a-9c1b-2a6d8f0e4b71", "--since", "1h");
  expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({
    code: 1,
    stderr: "fieldhub: no webhook endpoint 0b5e4c1a-7d2f-4e3a-9c1b-2a6d8f0e4b71\n",
  });
  const badTime = await resend(id, "--since", "yesterday");
  expect(badTime.code).toBe(2);
  expect(badTime.stderr.split("\n")[0]).toBe(
    "fieldhub: --since: not an RFC 3339 date-time or a time ago like 90m, 24h or 7d: yesterday",
  );
  const backwards = await resend(id, "--since", "1h", "--until", "2h");
  expect(backwards.code).toBe(2);
  expect(backwards.stderr.split("\n")[0]).toMatch(/^fieldhub: --until \(\S+\) must be after --since \(\S+\)$/);
  const status = await resend(id, "--since", "1h", "--status", "lost");
  expect(status.code).toBe(2);
  expect(status.stderr.split("\n")[0]).toBe("fieldhub: --status: one of failed, delivered, all, not lost");
});

test("the admin API resends a range, and sets rate_limit_per_s; bad values are 400 and change nothing", async () => {
  const id = await endpoint("admin-range");
  const messages = await queueTests(id, 3);
  // Delivered as the store says (a message still pending is on its way and is not resent).
  await eventually(
    () => statuses(id),
    (list) => list.length === 3 && list.every((status) => status === "delivered"),
    10_000,
  );

  const since = new Date(Date.now() - 60_000).toISOString();
  const range = await admin.post(`/admin/api/endpoints/${id}/resend-range`, { since, status: "all" });
  expect(range.status).toBe(200);
  expect(await range.json()).toEqual({ queued: 3, held: false, status: "all" });
  await eventually(
    () => arrived("admin-range").length,
    (count) => count === 6,
    10_000,
  );
  expect(new Set(arrived("admin-range"))).toEqual(new Set(messages));

  const backwards = await admin.post(`/admin/api/endpoints/${id}/resend-range`, {
    since,
    until: "2020-01-01T00:00:00Z",
  });
  expect(backwards.status).toBe(400);
  expect(((await backwards.json()) as { detail: string }).detail).toContain("must be after since");
  const badTime = await admin.post(`/admin/api/endpoints/${id}/resend-range`, { since: "yesterday" });
  expect(badTime.status).toBe(400);

  const limited = await admin.change("PATCH", `/admin/api/endpoints/${id}`, { rate_limit_per_s: 5 });
  expect(limited.status).toBe(200);
  expect(((await limited.json()) as { rate_limit_per_s: number }).rate_limit_per_s).toBe(5);
  for (const bad of [0, 2.5, 20_000, "fast"]) {
    const refused = await admin.change("PATCH", `/admin/api/endpoints/${id}`, { rate_limit_per_s: bad });
    expect({ bad, status: refused.status }).toEqual({ bad, status: 400 });
  }
  const listed = await runCli(["endpoints", "list", "--data", server.dataDir, "--json"]);
  const row = (JSON.parse(listed.stdout) as { id: string; rate_limit_per_s: number | null }[]).find((e) => e.id === id);
  expect(row?.rate_limit_per_s).toBe(5);
});

test("rate_limit_per_s 5: no second sees more than 5 deliveries to that endpoint; another endpoint is not slowed", async () => {
  const slow = await endpoint("paced");
  const fast = await endpoint("unpaced");
  const updated = await runCli(["endpoints", "update", "--data", server.dataDir, slow, "--rate-limit-per-s", "5"]);
  expect(updated.code).toBe(0);
  expect(updated.stdout).toContain("at most 5/s");

  const started = Date.now();
  await Promise.all([queueTests(slow, 11), queueTests(fast, 11)]);
  await eventually(
    () => arrived("unpaced").length,
    (count) => count === 11,
    10_000,
    20,
  );
  const fastDone = Date.now() - started;
  await eventually(
    () => arrived("paced").length,
    (count) => count === 11,
    15_000,
    50,
  );

  const times = arrivals.filter((arrival) => arrival.path === "paced").map((arrival) => arrival.at);
  // 11 at 5 a second: at least 2 s from the first to the last, and no second holds more
  // than 5. Sends start 200 ms apart, so 6 span a whole second; the receiver sees them
  // late by the machine's jitter, so its window is 900 ms (up to 100 ms of jitter).
  expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(1_900);
  const mostInASecond = Math.max(...times.map((from) => times.filter((at) => at >= from && at < from + 900).length));
  expect(mostInASecond).toBeLessThanOrEqual(5);
  expect(fastDone).toBeLessThan(times.at(-1)! - started);

  const cleared = await runCli([
    "endpoints",
    "update",
    "--data",
    server.dataDir,
    slow,
    "--rate-limit-per-s",
    "none",
    "--json",
  ]);
  expect((JSON.parse(cleared.stdout) as { rate_limit_per_s: number | null }).rate_limit_per_s).toBeNull();
  const refused = await runCli(["endpoints", "update", "--data", server.dataDir, slow, "--rate-limit-per-s", "0"]);
  expect(refused.code).toBe(2);
}, 30_000);
