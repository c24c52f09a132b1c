/**
 * The dispatcher's slots (docs/webhooks.md, "Fairness"): which messages are
 * taken for an attempt until their outcome is written, within a bound overall and
 * a bound per endpoint, and which of the due ones a round starts, endpoints in turn.
 */
import type { DueDelivery, WebhookStore } from "../store/contract/webhooks.ts";
import type { ReadAhead } from "./read-ahead.ts";

export class DeliverySlots {
  readonly #overall: number;
  readonly #perEndpoint: number;
  readonly #taken = new Set<number>();
  readonly #load = new Map<number, number>();
  /** Messages released while the due ones are read (see `reading`). */
  #releasedWhileReading: Set<number> | null = null;

  /** Slots per endpoint. */
  get perEndpoint(): number {
    return this.#perEndpoint;
  }

  constructor(overall: number, perEndpoint: number) {
    this.#overall = overall;
    this.#perEndpoint = perEndpoint;
  }

  /** Messages taken. */
  get size(): number {
    return this.#taken.size;
  }

  /** Slots free overall. */
  get free(): number {
    return Math.max(0, this.#overall - this.#taken.size);
  }

  /** Slots free for the endpoint. */
  freeFor(endpointId: number): number {
    return Math.max(0, this.#perEndpoint - (this.#load.get(endpointId) ?? 0));
  }

  take(delivery: { id: number; endpointId: number }): void {
    this.#taken.add(delivery.id);
    this.#load.set(delivery.endpointId, (this.#load.get(delivery.endpointId) ?? 0) + 1);
  }

  /** The message's outcome is written (or it was never sent): its slot is free. */
  release(delivery: { id: number; endpointId: number }): void {
    this.#releasedWhileReading?.add(delivery.id);
    this.#taken.delete(delivery.id);
    this.#load.set(delivery.endpointId, (this.#load.get(delivery.endpointId) ?? 1) - 1);
  }

  /**
   * Runs `read` (the store's due messages), handing it whether a message is free
   * to take: one taken, or released while `read` waits for the store, is not (the
   * read may predate its outcome).
   */
  async reading<T>(read: (free: (deliveryId: number) => boolean) => Promise<T>): Promise<T> {
    const released = new Set<number>();
    this.#releasedWhileReading = released;
    try {
      return await read((id) => !this.#taken.has(id) && !released.has(id));
    } finally {
      this.#releasedWhileReading = null;
    }
  }
}

/**
 * Up to `free` items, one from each queue per round, queue after queue: a long
 * queue never stands before another queue's first item.
 */
export function takeInTurn<T>(queues: readonly (readonly T[])[], free: number): T[] {
  const taken: T[] = [];
  const rounds = Math.max(0, ...queues.map((queue) => queue.length));
  for (let round = 0; round < rounds && taken.length < free; round++) {
    for (const queue of queues) {
      if (taken.length >= free) break;
      const item = queue[round];
      if (item !== undefined) taken.push(item);
    }
  }
  return taken;
}

/**
 * The due messages a round starts, within the free slots: endpoints served in
 * turn, one message each per round, each up to its free slots, so a receiver that
 * never answers fills its own slots only, and a backlog queued to it never stands
 * before another endpoint's messages.
 */
export async function takeDue(
  queries: Pick<WebhookStore, "dueEndpoints" | "dueFor">,
  slots: DeliverySlots,
  now: number,
  /** How many more the endpoint may start now beside its slots (its rate limit, pacing.ts). */
  allowed: (endpointId: number) => number = () => Number.POSITIVE_INFINITY,
  /** Messages kept from earlier reads (read-ahead.ts); without it, every turn reads. */
  ahead?: ReadAhead,
): Promise<DueDelivery[]> {
  const queues = await slots.reading(async (free) => {
    const queues: DueDelivery[][] = [];
    const dueEndpoints = await queries.dueEndpoints(now);
    ahead?.retain(dueEndpoints);
    for (const endpointId of dueEndpoints) {
      const room = Math.min(slots.freeFor(endpointId), allowed(endpointId));
      if (room === 0) continue;
      const kept = ahead?.take(endpointId, room);
      if (kept != null) {
        queues.push(kept);
        continue;
      }
      // Its messages in flight are still due in the store: ask for as many more as it has slots (and those read ahead).
      const limit = slots.perEndpoint + (ahead?.rows ?? 0);
      const waiting = (await queries.dueFor(endpointId, now, limit)).filter((due) => free(due.id));
      ahead?.keep(endpointId, waiting.slice(room));
      if (waiting.length > 0) queues.push(waiting.slice(0, room));
    }
    return queues;
  });
  return takeInTurn(queues, slots.free);
}
