/**
 * What ingest has taken and not yet written: readings in the order they were
 * admitted, and the changed texts of `string` registers (a text is written only
 * when it differs from the stored one, so a nameplate read every cycle costs
 * flash once). A write takes from the front and, when the store refuses it, puts
 * the batch back in front of everything taken since: nothing is lost or reordered.
 */
import type { ReadingTuple } from "../store/contract/readings.ts";

/** One write's share of the buffer. */
export interface BufferedBatch {
  readonly rows: ReadingTuple[];
  readonly texts: ReadonlyMap<number, string>;
}

export class ReadingBuffer {
  #rows: ReadingTuple[] = [];
  #texts = new Map<number, string>();
  /** Each string register's text as stored. */
  readonly #storedTexts: Map<number, string>;
  /** Monotonic time the oldest waiting reading was taken. */
  #oldestAt = 0;

  constructor(storedTexts: Map<number, string>) {
    this.#storedTexts = storedTexts;
  }

  /** Readings waiting. */
  get length(): number {
    return this.#rows.length;
  }

  /** Nothing waits: no reading, no text. */
  get empty(): boolean {
    return this.#rows.length === 0 && this.#texts.size === 0;
  }

  add(registerId: number, ts: number, raw: number | null, monotonicNow: number): void {
    if (this.#rows.length === 0) this.#oldestAt = monotonicNow;
    this.#rows.push([registerId, ts, raw]);
  }

  /** A string register's text read now: it waits only while it differs from the stored one. */
  noteText(registerId: number, text: string): void {
    if (this.#storedTexts.get(registerId) !== text) this.#texts.set(registerId, text);
    else this.#texts.delete(registerId);
  }

  /** The later of `newest` and the newest waiting reading of the register in [fromMs, toMs). */
  newestBetween(registerId: number, fromMs: number, toMs: number, newest: number | null): number | null {
    for (const [id, ts] of this.#rows) {
      if (id === registerId && ts >= fromMs && ts < toMs && (newest === null || ts > newest)) newest = ts;
    }
    return newest;
  }

  /** Takes the oldest readings, at most `maxRows`, and every waiting text. */
  take(maxRows: number): BufferedBatch {
    const rows = this.#rows.length <= maxRows ? this.#rows : this.#rows.slice(0, maxRows);
    this.#rows = rows === this.#rows ? [] : this.#rows.slice(maxRows);
    const texts = this.#texts;
    this.#texts = new Map();
    return { rows, texts };
  }

  /** A batch the store refused goes back in front; a text read since it was taken stays. */
  putBack(batch: BufferedBatch): void {
    this.#rows = batch.rows.concat(this.#rows);
    for (const [registerId, text] of batch.texts) if (!this.#texts.has(registerId)) this.#texts.set(registerId, text);
  }

  /** The batch is committed: its texts count as stored. */
  written(batch: BufferedBatch): void {
    for (const [registerId, text] of batch.texts) this.#storedTexts.set(registerId, text);
    if (this.#rows.length === 0) this.#oldestAt = 0;
  }

  /** Age of the oldest waiting reading (ms), 0 when none waits. */
  lagMs(monotonicNow: number): number {
    return this.#rows.length === 0 ? 0 : monotonicNow - this.#oldestAt;
  }
}
