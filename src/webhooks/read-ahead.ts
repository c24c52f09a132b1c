/**
 * Due messages read ahead of the slots (docs/webhooks.md, "Fairness"): a turn asks
 * the store for more of an endpoint's due messages than it has free slots and keeps
 * the rest, so the next turns start them without reading again: a backlog costs
 * one read per several turns rather than one a turn (a read's fixed cost is most of
 * it). Only what the store listed as due and not in flight is kept, and it is
 * dropped when it may no longer be due: older than `maxAgeMs`, its endpoint not
 * listed due in a turn, or paused by an outcome. A kept message is not sent until a
 * turn starts it, so a `kill -9` resends nothing more than before.
 */
import type { DueDelivery } from "../store/contract/webhooks.ts";

export class ReadAhead {
  /** Messages read per endpoint beyond its slots. */
  readonly rows: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  readonly #kept = new Map<number, { readAt: number; waiting: DueDelivery[] }>();

  /** `now`: a monotonic clock in ms. */
  constructor(options: { rows: number; maxAgeMs: number; now: () => number }) {
    this.rows = options.rows;
    this.#maxAgeMs = options.maxAgeMs;
    this.#now = options.now;
  }

  /**
   * The endpoint's next `room` kept messages, taken out of the keeping; null when
   * fewer are kept (or they are too old): the turn reads the store instead.
   */
  take(endpointId: number, room: number): DueDelivery[] | null {
    const kept = this.#kept.get(endpointId);
    if (kept === undefined) return null;
    if (kept.waiting.length < room || this.#now() - kept.readAt > this.#maxAgeMs) {
      this.#kept.delete(endpointId);
      return null;
    }
    return kept.waiting.splice(0, room);
  }

  /** What a read of the endpoint's due messages left over after its turn (replacing what was kept). */
  keep(endpointId: number, waiting: DueDelivery[]): void {
    if (waiting.length === 0) this.#kept.delete(endpointId);
    else this.#kept.set(endpointId, { readAt: this.#now(), waiting });
  }

  /** Keeps only the endpoints the store lists with messages due now. */
  retain(dueEndpoints: readonly number[]): void {
    const due = new Set(dueEndpoints);
    for (const endpointId of this.#kept.keys()) if (!due.has(endpointId)) this.#kept.delete(endpointId);
  }

  /** The endpoint was paused: its messages are held in the store, and what is kept is not due. */
  drop(endpointId: number): void {
    this.#kept.delete(endpointId);
  }

  /** Messages kept for the endpoint. */
  keptFor(endpointId: number): number {
    return this.#kept.get(endpointId)?.waiting.length ?? 0;
  }
}
