/**
 * kill -9 of a real `fieldhub serve` in the middle of delivering a backlog, then a
 * start on the same data directory (docs/webhooks.md, "Delivery and retries"):
 * outcomes are written in batches, and a message's slot is freed only once its
 * outcome is written, so every message arrives at least once and the only
 * duplicates are messages that were in flight at the kill (at most the endpoint's
 * 4 slots). The receiver verifies every delivery with `standardwebhooks`.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminSession } from "./harness/admin-session.ts";
import { Cleanup } from "./harness/cleanup.ts";
import { createEndpoint, eventually, spawnServe, startServe } from "./harness/serve.ts";
import { startVerifyingReceiver } from "./harness/webhook-receivers.ts";

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

const messages = 400;
/** docs/webhooks.md, "Order": at most 4 attempts in flight per endpoint. */
const slotsPerEndpoint = 4;

test("kill -9 mid-delivery: after a restart every message arrived, duplicates only of those in flight", async () => {
  const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-webhook-kill-"));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  // A receiver that takes 5 ms per answer keeps the endpoint's slots busy.
  const receiver = startVerifyingReceiver({ delayMs: 5 });
  cleanup.add(() => receiver.stop());
  const yaml = "organizations: [{ key: site, name: Site }]\n";
  const server = await startServe({ workDir, yaml });
  cleanup.add(() => server.stop());
  const endpoint = await createEndpoint(server.dataDir, "site", receiver.url, []);
  receiver.useSecret(endpoint.secret);
  const admin = await adminSession(server.url, server.dataDir);

  const queued: string[] = [];
  for (let batch = 0; batch < messages / 100; batch++) {
    const sent = await Promise.all(
      Array.from({ length: 100 }, () => admin.post(`/admin/api/endpoints/${endpoint.id}/test`)),
    );
    for (const response of sent) queued.push(((await response.json()) as { message_id: string }).message_id);
  }
  await eventually(
    () => receiver.arrivals.length,
    (count) => count >= 100,
    20_000,
    2,
  );
  server.proc.kill("SIGKILL");
  await server.proc.exited;
  const beforeKill = receiver.arrivals.map((arrival) => arrival.id);
  expect(new Set(beforeKill).size).toBeLessThan(messages);

  const restarted = spawnServe({ workDir, yaml });
  cleanup.add(() => restarted.stop());
  await restarted.waitForUrl();
  await eventually(
    () => new Set(receiver.arrivals.map((arrival) => arrival.id)).size,
    (count) => count === messages,
    30_000,
  );

  const ids = receiver.arrivals.map((arrival) => arrival.id);
  expect(new Set(ids)).toEqual(new Set(queued));
  expect(receiver.invalid()).toBe(0);
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const duplicated = [...counts].filter(([, count]) => count > 1).map(([id]) => id);
  expect(duplicated.length).toBeLessThanOrEqual(slotsPerEndpoint);
  expect(ids.length).toBe(messages + duplicated.length);
  // Each duplicate was one of the last arrivals before the kill: in flight, its outcome not yet written.
  const lastBeforeKill = new Set(beforeKill.slice(-2 * slotsPerEndpoint));
  expect(duplicated.filter((id) => !lastBeforeKill.has(id))).toEqual([]);
}, 90_000);
