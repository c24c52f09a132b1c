/**
 * Outcomes the store refused (docs/webhooks.md: "A full disk or a held lock does
 * not lose an outcome"): kept in memory, their messages kept in flight so they are
 * not sent again, and written again in the order refused, at most once a second.
 */
import type { DueDelivery } from "../store/contract/webhooks.ts";

export class UnwrittenOutcomes {
  readonly #kept = new Map<number, { delivery: DueDelivery; write: () => Promise<void> }>();
  readonly #written: (delivery: DueDelivery) => void;
  readonly #refused: (error: unknown) => void;
  readonly #now: () => number;
  #lastTry = Number.NEGATIVE_INFINITY;

  /**
   * `written`: an outcome is in the store (its message's slot may go); `refused`:
   * the store refused one (logged there); `now`: a monotonic clock in ms.
   */
  constructor(options: {
    written: (delivery: DueDelivery) => void;
    refused: (error: unknown) => void;
    now?: () => number;
  }) {
    this.#written = options.written;
    this.#refused = options.refused;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Outcomes kept. */
  get size(): number {
    return this.#kept.size;
  }

  /** Writes the message's outcome now, or keeps it for a later try. */
  async write(delivery: DueDelivery, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.#refused(error);
      this.keep(delivery, write);
      return;
    }
    this.#written(delivery);
  }

  /** Keeps an outcome the store has just refused, for a later try. */
  keep(delivery: DueDelivery, write: () => Promise<void>): void {
    this.#kept.set(delivery.id, { delivery, write });
  }

  /** Writes the kept outcomes in order, stopping at the first refusal; at most once a second unless `now` is asked. */
  async retry(options: { now?: boolean } = {}): Promise<void> {
    if (this.#kept.size === 0 || (options.now !== true && this.#now() - this.#lastTry < 1000)) return;
    this.#lastTry = this.#now();
    for (const [deliveryId, { delivery, write }] of this.#kept) {
      try {
        await write();
      } catch (error) {
        this.#refused(error);
        return;
      }
      this.#kept.delete(deliveryId);
      this.#written(delivery);
    }
  }
}
