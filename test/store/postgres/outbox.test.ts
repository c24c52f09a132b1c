/**
 * The webhook outbox on PostgreSQL (src/store/postgres/webhook-store.ts).
 *
 * 1. The same script of operations runs against the SQLite store and the
 *    PostgreSQL one and must give the same answers (fan-out by subscription and
 *    organisation, order of due messages, retries, pause after failed messages
 *    and on 410, held messages, enable, resend, delete, the log and its pruning).
 * 2. What several processes sharing one database need: two pools taking due
 *    messages at once never get the same one; a claim never settled is taken by the
 *    other after its lease, and the first one's late settle is refused; a child
 *    process killed with SIGKILL mid-delivery loses nothing.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EventStore } from "../../../src/store/contract/events.ts";
import type { AttemptRow, DueDelivery, WebhookStore } from "../../../src/store/contract/webhooks.ts";
import { openStoreFile, type Store } from "../../../src/store/index.ts";
import { openPostgresStore, type PostgresStore } from "../../../src/store/postgres/index.ts";
import { sampleEvent } from "../../harness/events.ts";
import {
  type PrivatePostgres,
  postgresAvailable,
  postgresMissingReason,
  startPostgres,
} from "../../harness/postgres.ts";

let pg: PrivatePostgres | undefined;
const tempDirs: string[] = [];
const opened: PostgresStore[] = [];

beforeAll(async () => {
  if (postgresAvailable) pg = await startPostgres();
});
afterAll(async () => {
  for (const store of opened) await store.close();
  await pg?.stop();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

const organizations = [
  { id: 1, uuid: "00000000-0000-4000-8000-000000000001", key: "acme", name: "Acme" },
  { id: 2, uuid: "00000000-0000-4000-8000-000000000002", key: "globex", name: "Globex" },
];

/** A fresh database with the two organisations (written as the inventory sync would). */
async function pgDatabase(name: string): Promise<string> {
  if (pg === undefined) throw new Error(postgresMissingReason);
  const url = await pg.database(name);
  const store = await openPostgresStore(url, { max: 1 });
  await store.close();
  const sql = new Bun.SQL(url, { max: 1 });
  for (const org of organizations) {
    await sql`INSERT INTO organizations (id, uuid, key, name, created_at) VALUES (${org.id}, ${org.uuid}, ${org.key}, ${org.name}, 0)`;
  }
  await sql.close();
  return url;
}

async function pgStore(url: string, leaseMs?: number): Promise<PostgresStore> {
  const store = await openPostgresStore(url, { max: 4, webhooks: { leaseMs } });
  opened.push(store);
  return store;
}

function sqliteStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), "fieldhub-outbox-"));
  tempDirs.push(dir);
  const path = join(dir, "fieldhub.db");
  const store = openStoreFile(path);
  const raw = new Database(path);
  for (const org of organizations) {
    raw.run("INSERT INTO organizations (id, uuid, key, name, created_at) VALUES (?, ?, ?, ?, 0)", [
      org.id,
      org.uuid,
      org.key,
      org.name,
    ]);
  }
  raw.close();
  return store;
}

/** Both engines behind one asynchronous face. */
interface Outbox {
  events: EventStore;
  webhooks: WebhookStore;
}

const attempt = (at: number, statusCode: number | null, error: string | null = null): AttemptRow => ({
  attemptedAt: at,
  statusCode,
  durationMs: 5,
  error,
  responseExcerpt: null,
});

/**
 * The script. Ids of messages are random: answers name them by the order they
 * were first seen; delivery ids may differ between engines (fan-out order), so
 * answers name a message by endpoint and message.
 */
async function script(outbox: Outbox): Promise<unknown[]> {
  const { events, webhooks } = outbox;
  const names = new Map<string, string>();
  const name = (messageId: string) => {
    if (!names.has(messageId)) names.set(messageId, `m${names.size + 1}`);
    return names.get(messageId);
  };
  const show = (list: DueDelivery[]) => list.map((d) => `${d.endpointId}:${name(d.messageId)}:${d.type}:${d.attempts}`);
  const out: unknown[] = [];
  // PostgreSQL's settle also says whether the claim was still its own (always here).
  const settle = async (...args: Parameters<Outbox["webhooks"]["settle"]>) => ({
    paused: (await webhooks.settle(...args)).paused,
  });
  const endpoint = (uuid: string, orgId: number, eventTypes: string, now: number) =>
    webhooks.createEndpoint({
      uuid,
      orgId,
      url: `http://127.0.0.1:9/${uuid}`,
      description: null,
      eventTypes,
      secret: `s-${uuid}`,
      now,
    });
  await endpoint("e1", 1, "", 100);
  await endpoint("e2", 1, "device.offline alert.triggered", 101);
  await endpoint("e3", 2, "", 102);
  await endpoint("e4", 1, "device.online", 103);
  await events.record(sampleEvent("device.online", 1, 1000));
  await events.record(sampleEvent("device.offline", 1, 1001));
  await events.record(sampleEvent("device.online", 2, 1002));
  await events.record(sampleEvent("alert.triggered", 1, 1003), 900);
  await webhooks.queueMessage(1, sampleEvent("webhook.test", 1, 1004));
  out.push(["listAfter", (await events.listAfter(1)).map((e) => [name(e.messageId), e.type, e.occurredAt, e.data])]);
  out.push(["pending", await webhooks.pendingCount(), "next", await webhooks.nextDueAt()]);
  out.push(["due 999", show(await webhooks.due(999, 10))]);
  out.push(["due", show(await webhooks.due(2000, 3)), show(await webhooks.due(2000, 100))]);
  out.push(["dueEndpoints", await webhooks.dueEndpoints(2000)]);
  const e1 = await webhooks.dueFor(1, 2000, 10);
  const e2 = await webhooks.dueFor(2, 2000, 10);
  const e3 = await webhooks.dueFor(3, 2000, 10);
  const e4 = await webhooks.dueFor(4, 2000, 10);
  out.push(["dueFor", show(e1), show(e2), show(e3), show(e4)]);

  // e1: delivered, retried, retried then delivered; e2: fails every attempt (pause after 2 messages).
  const [first, second, third] = e1 as [DueDelivery, DueDelivery, DueDelivery];
  out.push(["settle", await settle(first, attempt(2001, 204), { kind: "delivered" })]);
  out.push(["settle", await settle(second, attempt(2002, 500), { kind: "retry", at: 5000 })]);
  out.push(["settle", await settle(third, attempt(2003, null, "refused"), { kind: "retry", at: 4000 })]);
  out.push(["next after retries", await webhooks.nextDueAt(), show(await webhooks.dueFor(1, 3999, 10))]);
  const retried = await webhooks.dueFor(1, 4500, 10);
  out.push(["retried", show(retried)]);
  out.push(["settle", await settle(retried[0] as DueDelivery, attempt(4501, 200), { kind: "delivered" })]);
  const [f1, f2] = e2 as [DueDelivery, DueDelivery];
  out.push(["fail 1", await settle(f1, attempt(2004, 503), { kind: "failed", pauseAfter: 2 })]);
  out.push(["fail 2", await settle(f2, attempt(2005, 503), { kind: "failed", pauseAfter: 2 })]);
  // The pause is told to the organisation's endpoints subscribed to it (e1: every type), with the pause.
  const pausedEvents = async (orgId: number) =>
    (await events.listAfter(orgId)).filter((e) => e.type === "webhook_endpoint.paused").map((e) => e.data);
  const queuedTypes = async (endpointId: number) => (await webhooks.deliveries(endpointId, 20)).map((d) => d.type);
  out.push(["paused event e2", await pausedEvents(1), await queuedTypes(1), await queuedTypes(2)]);
  await events.record(sampleEvent("device.offline", 1, 2006));
  const e2Row = await webhooks.endpointById(2);
  out.push(["e2 paused", e2Row?.status, e2Row?.pauseReason, e2Row?.failedMessagesInRow, e2Row?.pausedAt]);
  out.push([
    "e2 listing",
    (await webhooks.deliveries(2, 10)).map((d) => [
      name(d.messageId),
      d.status,
      d.attempts,
      d.lastStatusCode,
      d.completedAt,
    ]),
  ]);
  out.push(["enable e2", await webhooks.enable(2, 3000, false), show(await webhooks.dueFor(2, 3000, 10))]);
  // e3 answers 410: paused at once, its later message held; enabling with discard drops it.
  const [g] = e3 as [DueDelivery];
  out.push(["gone", await settle(g, attempt(2007, 410), { kind: "gone" })]);
  // e3 (every type) is its organisation's only endpoint: the event is recorded, queued for nobody.
  out.push(["paused event e3", await pausedEvents(2), await queuedTypes(3)]);
  await events.record(sampleEvent("device.offline", 2, 2008));
  out.push([
    "e3",
    (await webhooks.endpointById(3))?.status,
    (await webhooks.endpointById(3))?.pauseReason,
    (await webhooks.deliveries(3, 10)).map((d) => d.status),
  ]);
  out.push([
    "enable e3 discarding",
    await webhooks.enable(3, 3001, true),
    (await webhooks.deliveries(3, 10)).map((d) => [d.status, d.completedAt]),
  ]);
  // e4: a message set aside (held) when its turn came; a resend of the first event to e4.
  const [h] = e4 as [DueDelivery];
  await webhooks.setAside(h.id, "held", 2009);
  const eventId = await webhooks.eventIdOfMessage(1, h.messageId);
  out.push(["event of message", eventId !== null, await webhooks.eventIdOfMessage(2, h.messageId)]);
  await webhooks.enqueue(4, eventId ?? 0, 3002);
  out.push(["e4", (await webhooks.deliveries(4, 10)).map((d) => [name(d.messageId), d.status, d.nextAttemptAt])]);
  // Endpoint changes, deletion (its pending messages discarded, its row still readable).
  await webhooks.updateEndpoint(4, { url: "http://127.0.0.1:9/new", description: "d4", eventTypes: "alert.triggered" });
  await webhooks.rotateSecret(4, "s-new", "s-e4", 9000);
  const e4Row = await webhooks.endpoint("e4");
  out.push([
    "e4 row",
    e4Row?.url,
    e4Row?.description,
    e4Row?.eventTypes,
    e4Row?.secret,
    e4Row?.previousSecret,
    e4Row?.previousSecretUntil,
    e4Row?.orgKey,
  ]);
  await webhooks.deleteEndpoint(4, 3003);
  out.push([
    "deleted",
    await webhooks.endpoint("e4"),
    (await webhooks.endpointEvenDeleted("e4"))?.uuid,
    (await webhooks.endpoints()).map((e) => e.uuid),
  ]);
  out.push(["e4 after delete", (await webhooks.deliveries(4, 10)).map((d) => [d.status, d.completedAt])]);
  // A rate limit; a resend of a time range (only finished messages, by status); outcomes settled in one batch.
  await webhooks.updateEndpoint(1, { rateLimitPerS: 7 });
  out.push(["rate limit", (await webhooks.endpointById(1))?.rateLimitPerS]);
  const resent = await webhooks.resendRange(1, { since: 1000, until: 1004, status: "delivered" }, 3004);
  out.push(["resend delivered", resent.length, await webhooks.deliveryStatusCounts(resent)]);
  out.push([
    "resend failed",
    (await webhooks.resendRange(2, { since: 0, until: 10_000, status: "failed" }, 3004)).length,
  ]);
  const batch = await webhooks.dueFor(1, 3004, 10);
  const settled = await webhooks.settleAll(
    batch.map((delivery, index) => ({
      delivery,
      attempt: attempt(3005 + index, index === 0 ? 500 : 204),
      outcome: index === 0 ? { kind: "retry" as const, at: 9000 } : { kind: "delivered" as const },
    })),
  );
  out.push(["settleAll", show(batch), settled, await webhooks.deliveryStatusCounts(resent)]);
  const listing = await webhooks.deliveries(1, 2);
  out.push([
    "e1 listing",
    listing.map((d) => [name(d.messageId), d.status, d.attempts, d.lastStatusCode, d.lastError]),
  ]);
  out.push(["attempts", await webhooks.attempts(third.id)]);
  await webhooks.recordAttempt(third.id, attempt(4600, 299));
  out.push(["attempts+1", (await webhooks.attempts(third.id)).length]);
  out.push(["pending", await webhooks.pendingCount(), "next", await webhooks.nextDueAt()]);
  out.push(["prune 2500", await webhooks.pruneLog(2500)]);
  out.push(["prune 10000", await webhooks.pruneLog(10_000)]);
  out.push([
    "after prune",
    (await webhooks.deliveries(1, 10)).map((d) => d.status),
    (await events.listAfter(1)).length,
  ]);
  // One batch across two endpoints whose outcomes pause one of them midway: each endpoint's failure
  // count follows its outcomes in order (a delivery resets it), only the settle reaching the count
  // pauses, and a retry settled after the pause is held with the rest.
  await endpoint("e5", 2, "device.online", 11_000);
  for (let index = 0; index < 5; index++) await events.record(sampleEvent("device.online", 2, 11_001 + index));
  const [a1, a2] = (await webhooks.dueFor(3, 12_000, 2)) as [DueDelivery, DueDelivery];
  const b = (await webhooks.dueFor(5, 12_000, 5)) as [DueDelivery, DueDelivery, DueDelivery, DueDelivery, DueDelivery];
  const failed = { kind: "failed" as const, pauseAfter: 2 };
  const mixed = await webhooks.settleAll([
    { delivery: b[0], attempt: attempt(12_001, 500), outcome: failed },
    { delivery: a1, attempt: attempt(12_002, 204), outcome: { kind: "delivered" } },
    { delivery: b[1], attempt: attempt(12_003, 204), outcome: { kind: "delivered" } },
    { delivery: b[2], attempt: attempt(12_004, 500), outcome: failed },
    { delivery: b[3], attempt: attempt(12_005, 500), outcome: failed },
    { delivery: a2, attempt: attempt(12_006, 204), outcome: { kind: "delivered" } },
    { delivery: b[4], attempt: attempt(12_007, 500), outcome: { kind: "retry", at: 20_000 } },
  ]);
  const e5Row = await webhooks.endpointById(5);
  out.push([
    "mixed batch",
    mixed.map((outcome) => outcome.paused),
    e5Row?.status,
    e5Row?.failedMessagesInRow,
    e5Row?.pauseReason,
    (await webhooks.deliveries(5, 10)).map((d) => [name(d.messageId), d.status, d.attempts, d.nextAttemptAt]),
    (await webhooks.deliveries(3, 10)).map((d) => [name(d.messageId), d.status, d.attempts]),
    await pausedEvents(2),
  ]);
  return out;
}

describe.skipIf(!postgresAvailable)(`the outbox on PostgreSQL (${postgresMissingReason})`, () => {
  test("the script gives the same answers on SQLite and PostgreSQL", async () => {
    const sqlite = sqliteStore();
    const expected = await script({ events: sqlite.events, webhooks: sqlite.webhooks });
    sqlite.close();
    const store = await pgStore(await pgDatabase("script"));
    const actual = await script(store);
    expect(actual).toEqual(expected);
    // A range resend takes only finished messages; a batch settles each of its outcomes.
    const answerOf = (label: string) => expected.find((entry) => (entry as unknown[])[0] === label) as unknown[];
    expect(answerOf("resend delivered").slice(1, 2)).toEqual([1]);
    expect(answerOf("resend failed")).toEqual(["resend failed", 2]);
    expect((answerOf("settleAll")[3] as Record<string, number>).delivered).toBe(1);
    expect(answerOf("mixed batch").slice(1, 5)).toEqual([
      [false, false, false, false, true, false, false],
      "paused",
      2,
      "2 messages in a row failed every attempt",
    ]);
    // The script reaches what it is about: a pause, a 410, a discard and a prune that deleted.
    expect(JSON.stringify(expected)).toContain("2 messages in a row failed every attempt");
    expect(JSON.stringify(expected)).toContain("410 Gone");
    // webhook_endpoint.paused commits with each pause, queued for the others, never for the paused endpoint.
    const answer = (label: string) => expected.find((entry) => (entry as unknown[])[0] === label) as unknown[];
    expect(answer("paused event e2")).toEqual([
      "paused event e2",
      [
        {
          endpoint_id: "e2",
          url: "http://127.0.0.1:9/e2",
          description: null,
          reason: "failed_messages",
          failed_messages: 2,
          last_status_code: 503,
          paused_at: new Date(2005).toISOString(),
        },
      ],
      expect.arrayContaining(["webhook_endpoint.paused"]),
      expect.not.arrayContaining(["webhook_endpoint.paused"]),
    ]);
    const e3 = answer("paused event e3");
    expect(e3[1]).toEqual([expect.objectContaining({ endpoint_id: "e3", reason: "gone", last_status_code: 410 })]);
    expect(e3[2]).not.toContain("webhook_endpoint.paused");
  });

  test("two pools taking due messages at once never get the same one, and settle every one", async () => {
    const url = await pgDatabase("two_pools");
    const a = await pgStore(url);
    const b = await pgStore(url);
    for (let e = 1; e <= 4; e++)
      await a.webhooks.createEndpoint({
        uuid: `p${e}`,
        orgId: 1,
        url: "http://127.0.0.1:9/",
        description: null,
        eventTypes: "",
        secret: "s",
        now: 0,
      });
    for (let i = 0; i < 150; i++) await a.events.record(sampleEvent("device.online", 1, 1000 + i, `FH-${i}`));
    expect(await a.webhooks.pendingCount()).toBe(600);
    const taken = new Map<string, number[]>([
      ["a", []],
      ["b", []],
    ]);
    const worker = async (who: "a" | "b", store: PostgresStore) => {
      for (;;) {
        const batch = await store.webhooks.due(Date.now(), 7);
        if (batch.length === 0) return;
        for (const delivery of batch) {
          taken.get(who)?.push(delivery.id);
          const settled = await store.webhooks.settle(delivery, attempt(Date.now(), 204), { kind: "delivered" });
          expect(settled.settled).toBe(true);
        }
      }
    };
    // One loop per pool, as one dispatcher per process: a pool gets its own claims back
    // (the dispatcher filters what it has in flight), never the other's.
    await Promise.all([worker("a", a), worker("b", b)]);
    const all = [...(taken.get("a") ?? []), ...(taken.get("b") ?? [])];
    expect(new Set(all).size).toBe(600);
    // Each id was taken by one pool only (a pool may see its own claim again, never the other's).
    const inA = new Set(taken.get("a"));
    expect((taken.get("b") ?? []).filter((id) => inA.has(id))).toEqual([]);
    expect((taken.get("a") ?? []).length).toBeGreaterThan(0);
    expect((taken.get("b") ?? []).length).toBeGreaterThan(0);
    expect(await a.webhooks.pendingCount()).toBe(0);
  });

  test("a claim never settled is taken by the other process after its lease; the late settle is refused", async () => {
    const url = await pgDatabase("lease");
    const a = await pgStore(url, 10_000);
    const b = await pgStore(url, 10_000);
    await a.webhooks.createEndpoint({
      uuid: "l1",
      orgId: 1,
      url: "http://127.0.0.1:9/",
      description: null,
      eventTypes: "",
      secret: "s",
      now: 0,
    });
    await a.events.record(sampleEvent("device.online", 1, 1000));
    await a.events.record(sampleEvent("device.offline", 1, 1001));
    const held = await a.webhooks.due(2000, 1);
    expect(held.map((d) => d.type)).toEqual(["device.online"]);
    // Within the lease: b sees only the other message; the held one is due for b when the lease ends.
    expect((await b.webhooks.due(2000, 10)).map((d) => d.type)).toEqual(["device.offline"]);
    expect(await b.webhooks.dueEndpoints(11_999)).toEqual([1]); // its own claim
    expect(await a.webhooks.dueEndpoints(11_999)).toEqual([1]);
    expect(await b.webhooks.due(11_999, 10)).toHaveLength(1); // b's own (device.offline) again, renewed
    expect((await b.webhooks.due(12_000, 10)).map((d) => d.type).sort()).toEqual(["device.offline", "device.online"]);
    const takenOver = (await b.webhooks.dueFor(1, 12_001, 10)).find((d) => d.type === "device.online") as DueDelivery;
    expect(await b.webhooks.settle(takenOver, attempt(12_002, 500), { kind: "retry", at: 40_000 })).toEqual({
      paused: false,
      settled: true,
    });
    // a's attempt ends late: refused, the newer outcome (a retry at 40 s) stands, one attempt logged.
    const [heldByA] = held as [DueDelivery];
    expect(await a.webhooks.settle(heldByA, attempt(12_003, 204), { kind: "delivered" })).toEqual({
      paused: false,
      settled: false,
    });
    const listing = await a.webhooks.deliveries(1, 10);
    const online = listing.find((d) => d.type === "device.online");
    expect(online).toMatchObject({ status: "pending", attempts: 1, nextAttemptAt: 40_000, lastStatusCode: 500 });
    expect(await a.webhooks.attempts(heldByA.id)).toHaveLength(1);
    // a set-aside by a process that lost the claim changes nothing either.
    await a.webhooks.setAside(heldByA.id, "discarded", 12_004);
    expect((await a.webhooks.deliveries(1, 10)).find((d) => d.type === "device.online")?.status).toBe("pending");
    // While b holds device.offline (renewed by its dueFor at 12 001), a's next due time is b's lease end; b's own is now.
    expect(await a.webhooks.nextDueAt()).toBe(22_001);
    expect(await b.webhooks.nextDueAt()).toBe(1001);
  });

  test("a process killed with SIGKILL mid-delivery loses nothing: its messages are taken over after the lease, same webhook-id", async () => {
    const url = await pgDatabase("kill");
    const parent = await pgStore(url, 1_500);
    // The receiver holds the child's requests unanswered: the child dies with its attempts in flight.
    const fromChild: string[] = [];
    let allArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      allArrived = resolve;
    });
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        fromChild.push(request.headers.get("webhook-id") ?? "");
        if (fromChild.length === 25) allArrived();
        await Bun.sleep(30_000);
        return new Response(null, { status: 204 });
      },
    });
    await parent.webhooks.createEndpoint({
      uuid: "k1",
      orgId: 1,
      url: `http://127.0.0.1:${receiver.port}/hook`,
      description: null,
      eventTypes: "",
      secret: "s",
      now: 0,
    });
    for (let i = 0; i < 40; i++) await parent.events.record(sampleEvent("device.online", 1, Date.now(), `FH-${i}`));
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, "../../fixtures/pg-outbox-claimer.ts"), url, "1500", "25"],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = child.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const claimed = JSON.parse(text.trim()) as { ids: number[]; leaseUntil: number };
    expect(claimed.ids).toHaveLength(25);
    await arrived;
    child.kill("SIGKILL");
    await child.exited;
    receiver.stop(true);
    expect(child.signalCode).toBe("SIGKILL");
    // Before the lease ends the parent gets only the 15 the child never took.
    const before = await parent.webhooks.due(Date.now(), 100);
    expect(before).toHaveLength(15);
    expect(before.filter((d) => claimed.ids.includes(d.id))).toEqual([]);
    for (const delivery of before)
      await parent.webhooks.settle(delivery, attempt(Date.now(), 204), { kind: "delivered" });
    await Bun.sleep(Math.max(0, claimed.leaseUntil - Date.now() + 20));
    const after = await parent.webhooks.due(Date.now(), 100);
    expect(after.map((d) => d.id).sort((x, y) => x - y)).toEqual([...claimed.ids].sort((x, y) => x - y));
    // Sent again with the webhook-id the child used (docs/api.md section 6.4, rule 4: receivers skip duplicates).
    expect(after.map((d) => d.messageId).sort()).toEqual([...fromChild].sort());
    for (const delivery of after) {
      const result = await parent.webhooks.settle(delivery, attempt(Date.now(), 204), { kind: "delivered" });
      expect(result.settled).toBe(true);
    }
    expect(await parent.webhooks.pendingCount()).toBe(0);
    expect((await parent.webhooks.deliveries(1, 100)).every((d) => d.status === "delivered")).toBe(true);
  });
});
