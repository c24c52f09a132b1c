/**
 * kill -9 in the middle of a burst of 1,000 webhook messages, then a restart:
 * every message is delivered at least once, duplicates are few (only attempts cut
 * off by the kill), and every delivery verifies with `standardwebhooks`.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { parseConfig } from "../../src/config/index.ts";
import { openStore } from "../../src/store/index.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { endpointService } from "../../src/webhooks/endpoints.ts";
import { sampleEvent } from "../harness/events.ts";

const dataDir = mkdtempSync(join(tmpdir(), "fieldhub-webhook-crash-"));
const children: { kill(signal?: number | NodeJS.Signals): void }[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

function startDispatching() {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "fixtures", "dispatch.ts"), dataDir], {
    stdout: "ignore",
    stderr: "inherit",
  });
  children.push(child);
  return child;
}

test("kill -9 during a burst of 1000 messages: after a restart every message is delivered", async () => {
  const config = parseConfig("organizations: [{ key: burst, name: Burst }]");
  if (!config.ok) throw new Error("config");
  const received = new Map<string, number>();
  let bad = 0;
  let secret = "";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const body = await request.text();
      try {
        const envelope = new Webhook(secret).verify(body, Object.fromEntries(request.headers.entries())) as {
          id: string;
        };
        received.set(envelope.id, (received.get(envelope.id) ?? 0) + 1);
      } catch {
        bad++;
      }
      await Bun.sleep(2);
      return new Response(null, { status: 204 });
    },
  });
  try {
    const store = openStore(dataDir);
    await store.inventory.sync(config.config.inventory, Date.now());
    secret = (
      await endpointService(store, Date.now).create({
        orgKey: "burst",
        url: `http://127.0.0.1:${server.port}/`,
      })
    ).secret;
    const org = await store.organizations.findByKey("burst");
    if (org === null) throw new Error("org");
    const events = store.events;
    const recorded: Promise<unknown>[] = [];
    // One SQLite transaction around many store operations: each runs at its call (the SQLite store is
    // synchronous inside), so all of them commit together; their promises are awaited after.
    sqliteOf(store).transaction(() => {
      for (let index = 0; index < 1000; index++) {
        recorded.push(events.record(sampleEvent("device.online", org.id, Date.now(), `FH-${index}`)));
      }
    })();
    await Promise.all(recorded);
    await store.close();

    const first = startDispatching();
    const deadline = Date.now() + 20_000;
    while (received.size < 300) {
      if (Date.now() > deadline) throw new Error(`only ${received.size} delivered before the kill`);
      await Bun.sleep(5);
    }
    first.kill("SIGKILL");
    await first.exited;
    const beforeRestart = received.size;
    expect(beforeRestart).toBeLessThan(1000);

    startDispatching();
    while (received.size < 1000) {
      if (Date.now() > deadline + 20_000) throw new Error(`only ${received.size} of 1000 delivered after the restart`);
      await Bun.sleep(20);
    }
    expect(bad).toBe(0);
    const duplicates = [...received.values()].filter((count) => count > 1).length;
    // At least once: only messages in flight at the kill may come twice.
    expect(duplicates).toBeLessThanOrEqual(32);
  } finally {
    server.stop(true);
  }
}, 60_000);
