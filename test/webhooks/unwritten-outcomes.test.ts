/**
 * Outcomes the store refused (src/webhooks/unwritten-outcomes.ts, docs/webhooks.md
 * "A full disk or a held lock does not lose an outcome"): kept, written again in
 * the order refused at most once a second, and their slot released only once written.
 */
import { expect, test } from "bun:test";
import type { DueDelivery } from "../../src/store/contract/webhooks.ts";
import { UnwrittenOutcomes } from "../../src/webhooks/unwritten-outcomes.ts";

const delivery = (id: number): DueDelivery => ({
  id,
  endpointId: 1,
  attempts: 0,
  messageId: `msg_${id}`,
  type: "device.online",
  occurredAt: 0,
  data: "{}",
});

function setup() {
  let time = 0;
  let storeTakesWrites = false;
  const stored: number[] = [];
  const released: number[] = [];
  const refusals: string[] = [];
  const outcomes = new UnwrittenOutcomes({
    written: (done) => released.push(done.id),
    refused: (error) => refusals.push((error as Error).message),
    now: () => time,
  });
  const writeOf = (id: number) => async () => {
    if (!storeTakesWrites) throw new Error("database or disk is full");
    stored.push(id);
  };
  return {
    outcomes,
    writeOf,
    stored,
    released,
    refusals,
    advance: (ms: number) => {
      time += ms;
    },
    storeBack: () => {
      storeTakesWrites = true;
    },
  };
}

test("a refused outcome is kept with its slot; written again once the store takes writes, in the order refused", async () => {
  const t = setup();
  await t.outcomes.write(delivery(1), t.writeOf(1));
  await t.outcomes.write(delivery(2), t.writeOf(2));
  expect(t.outcomes.size).toBe(2);
  expect(t.released).toEqual([]);
  expect(t.refusals).toHaveLength(2);
  t.storeBack();
  t.advance(1000);
  await t.outcomes.retry();
  expect(t.stored).toEqual([1, 2]);
  expect(t.released).toEqual([1, 2]);
  expect(t.outcomes.size).toBe(0);
});

test("tried again at most once a second, unless asked now (at stop)", async () => {
  const t = setup();
  await t.outcomes.write(delivery(1), t.writeOf(1));
  await t.outcomes.retry();
  expect(t.refusals).toHaveLength(2);
  t.advance(500);
  await t.outcomes.retry();
  expect(t.refusals).toHaveLength(2);
  t.advance(500);
  await t.outcomes.retry();
  expect(t.refusals).toHaveLength(3);
  t.storeBack();
  await t.outcomes.retry({ now: true });
  expect(t.released).toEqual([1]);
});

test("an outcome the store takes at once is released at once and nothing is kept", async () => {
  const t = setup();
  t.storeBack();
  await t.outcomes.write(delivery(7), t.writeOf(7));
  expect(t.released).toEqual([7]);
  expect(t.outcomes.size).toBe(0);
});
