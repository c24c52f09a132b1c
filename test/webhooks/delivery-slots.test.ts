/**
 * The dispatcher's slots and fair turns (src/webhooks/delivery-slots.ts,
 * docs/webhooks.md "Fairness"): a bound overall and per endpoint, endpoints
 * served one message each per round, and a message released while the due ones
 * are read is not taken again from that read.
 */
import { expect, test } from "bun:test";
import type { DueDelivery } from "../../src/store/contract/webhooks.ts";
import { DeliverySlots, takeDue, takeInTurn } from "../../src/webhooks/delivery-slots.ts";
import { ReadAhead } from "../../src/webhooks/read-ahead.ts";

test("takeInTurn: one item per queue per round; a long queue never stands before another queue's first", () => {
  const slow = ["s1", "s2", "s3", "s4"];
  const healthy = ["h1"];
  const other = ["o1", "o2"];
  expect(takeInTurn([slow, healthy, other], 32)).toEqual(["s1", "h1", "o1", "s2", "o2", "s3", "s4"]);
  // Bounded by what is free overall, still in turn.
  expect(takeInTurn([slow, healthy, other], 4)).toEqual(["s1", "h1", "o1", "s2"]);
  expect(takeInTurn([slow, healthy], 0)).toEqual([]);
  expect(takeInTurn<string>([], 5)).toEqual([]);
});

test("slots: bounded overall and per endpoint; a release frees both", () => {
  const slots = new DeliverySlots(3, 2);
  expect(slots.free).toBe(3);
  slots.take({ id: 1, endpointId: 10 });
  slots.take({ id: 2, endpointId: 10 });
  expect(slots.freeFor(10)).toBe(0);
  expect(slots.freeFor(11)).toBe(2);
  slots.take({ id: 3, endpointId: 11 });
  expect(slots.free).toBe(0);
  expect(slots.size).toBe(3);
  slots.release({ id: 1, endpointId: 10 });
  expect(slots.freeFor(10)).toBe(1);
  expect(slots.free).toBe(1);
});

test("reading: taken messages, and ones released while the read waits, are not free; afterwards released ones are", async () => {
  const slots = new DeliverySlots(32, 4);
  slots.take({ id: 1, endpointId: 10 });
  slots.take({ id: 2, endpointId: 10 });
  const seen = await slots.reading(async (free) => {
    // The outcome of message 2 is written while the store is read.
    slots.release({ id: 2, endpointId: 10 });
    await Bun.sleep(1);
    return [1, 2, 3].map((id) => [id, free(id)]);
  });
  expect(seen).toEqual([
    [1, false],
    [2, false],
    [3, true],
  ]);
  // The next read sees the store after that outcome: message 2 may be due again.
  expect(await slots.reading(async (free) => free(2))).toBe(true);
});

/** A queue of due messages per endpoint, as the store's dueEndpoints/dueFor answer it. */
function dueQueue(byEndpoint: Record<number, number[]>) {
  const asked: [number, number][] = [];
  const delivery = (id: number, endpointId: number): DueDelivery => ({
    id,
    endpointId,
    attempts: 0,
    messageId: `msg_${id}`,
    type: "device.online",
    occurredAt: 0,
    data: "{}",
  });
  return {
    asked,
    queries: {
      dueEndpoints: async () => Object.keys(byEndpoint).map(Number),
      dueFor: async (endpointId: number, _now: number, limit: number) => {
        asked.push([endpointId, limit]);
        return (byEndpoint[endpointId] ?? []).slice(0, limit).map((id) => delivery(id, endpointId));
      },
    },
  };
}

test("takeDue: a stuck endpoint with a backlog fills its own slots only; another endpoint's message goes in the first round", async () => {
  const slots = new DeliverySlots(32, 4);
  const { queries } = dueQueue({ 1: Array.from({ length: 1000 }, (_, n) => n + 1), 2: [5001] });
  const first = await takeDue(queries, slots, 0);
  expect(first.map((delivery) => delivery.id)).toEqual([1, 5001, 2, 3, 4]);
  for (const delivery of first) slots.take(delivery);
  // Endpoint 1 never answers: its four slots stay taken; the store still lists them due.
  slots.release({ id: 5001, endpointId: 2 });
  const { queries: later, asked } = dueQueue({ 1: [1, 2, 3, 4, 5], 2: [5002] });
  expect((await takeDue(later, slots, 0)).map((delivery) => delivery.id)).toEqual([5002]);
  // A full endpoint is not even asked for its messages.
  expect(asked).toEqual([[2, 4]]);
});

test("takeDue: messages already in flight are not taken twice; the overall bound holds", async () => {
  const slots = new DeliverySlots(3, 4);
  slots.take({ id: 1, endpointId: 1 });
  const { queries } = dueQueue({ 1: [1, 2, 3], 2: [10, 11] });
  expect((await takeDue(queries, slots, 0)).map((delivery) => delivery.id)).toEqual([2, 10]);
});

test("takeDue with read-ahead: one read serves later turns; kept messages go when stale, not listed due, or paused", async () => {
  let clock = 0;
  const ahead = new ReadAhead({ rows: 8, maxAgeMs: 500, now: () => clock });
  const slots = new DeliverySlots(32, 2);
  const backlog = Array.from({ length: 20 }, (_, n) => n + 1);
  const { queries, asked } = dueQueue({ 1: backlog });
  // The first turn reads its slots and 8 more; it starts two.
  const first = await takeDue(queries, slots, 0, undefined, ahead);
  expect(first.map((delivery) => delivery.id)).toEqual([1, 2]);
  expect(asked).toEqual([[1, 10]]);
  expect(ahead.keptFor(1)).toBe(8);
  // Their outcomes are written (the store no longer lists them); the next turn starts kept ones without reading.
  const after = dueQueue({ 1: backlog.slice(2) });
  expect((await takeDue(after.queries, slots, 0, undefined, ahead)).map((delivery) => delivery.id)).toEqual([3, 4]);
  expect(after.asked).toEqual([]);
  // Kept messages in flight are not taken again: the endpoint's slots are full, nothing is read or taken.
  for (const delivery of [3, 4]) slots.take({ id: delivery, endpointId: 1 });
  expect(await takeDue(after.queries, slots, 0, undefined, ahead)).toEqual([]);
  for (const delivery of [3, 4]) slots.release({ id: delivery, endpointId: 1 });
  // Older than maxAgeMs: read again.
  clock = 501;
  const stale = dueQueue({ 1: backlog.slice(4) });
  expect((await takeDue(stale.queries, slots, 0, undefined, ahead)).map((delivery) => delivery.id)).toEqual([5, 6]);
  expect(stale.asked).toEqual([[1, 10]]);
  // An endpoint the store no longer lists due (deleted, its messages discarded) keeps nothing.
  ahead.retain([]);
  expect(ahead.keptFor(1)).toBe(0);
  // A pause drops what was kept for the endpoint.
  await takeDue(dueQueue({ 1: backlog.slice(6) }).queries, slots, 0, undefined, ahead);
  expect(ahead.keptFor(1)).toBeGreaterThan(0);
  ahead.drop(1);
  expect(ahead.keptFor(1)).toBe(0);
});
