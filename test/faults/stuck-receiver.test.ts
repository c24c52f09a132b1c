/**
 * The dispatcher takes the oldest due messages while each
 * endpoint may have 4 in flight, so a backlog for a receiver that never answers
 * starved every other endpoint (a test message to a healthy one took 310 s).
 * Wanted: endpoints are served fairly: with 1,000 messages queued to a receiver
 * that accepts and never answers, a message to a healthy endpoint is delivered
 * within 2 s.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../harness/cli.ts";
import { adminSession } from "./harness/admin-session.ts";
import { Cleanup } from "./harness/cleanup.ts";
import { eventually, startServe } from "./harness/serve.ts";
import { startRecordingReceiver, startSilentReceiver } from "./harness/webhook-receivers.ts";

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

async function createEndpoint(dataDir: string, url: string): Promise<string> {
  const created = await runCli(["endpoints", "create", "--data", dataDir, "--org", "site", "--url", url, "--json"]);
  if (created.code !== 0) throw new Error(created.stderr);
  return (JSON.parse(created.stdout) as { id: string }).id;
}

test("1,000 messages queued to a receiver that never answers: a test message to a healthy endpoint arrives within 2 s", async () => {
  const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-stuck-"));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  const silent = startSilentReceiver();
  cleanup.add(() => silent.stop());
  const healthy = startRecordingReceiver();
  cleanup.add(() => healthy.stop());
  const server = await startServe({
    workDir,
    // The stuck endpoint is never paused during the test, as a slow receiver would not be.
    yaml: "organizations: [{ key: site, name: Site }]\nwebhooks: { timeout_s: 10, retry_delays_s: [60], pause_after_failed_messages: 1000 }\n",
  });
  cleanup.add(() => server.stop());
  const stuckId = await createEndpoint(server.dataDir, silent.url);
  const healthyId = await createEndpoint(server.dataDir, healthy.url);
  const admin = await adminSession(server.url, server.dataDir);

  for (let batch = 0; batch < 10; batch++) {
    const sent = await Promise.all(
      Array.from({ length: 100 }, () => admin.post(`/admin/api/endpoints/${stuckId}/test`)),
    );
    expect(sent.map((response) => response.status).filter((status) => status !== 200)).toEqual([]);
  }
  await eventually(silent.connections, (count) => count > 0, 5_000);

  const started = Date.now();
  const test = await admin.post(`/admin/api/endpoints/${healthyId}/test`);
  const { message_id: messageId } = (await test.json()) as { message_id: string };
  await eventually(
    () => healthy.deliveries.some((delivery) => delivery.id === messageId),
    (arrived) => arrived,
    5_000,
    50,
  );
  expect(Date.now() - started).toBeLessThan(2_000);
}, 30_000);
