/**
 * Work that must run one piece after another: each turn starts once every turn
 * queued before it has settled, so it decides on the state the one before left
 * (the rules engine, the gateway status tracker, ingest's writes, the scheduled
 * jobs). A turn that fails never stops the ones after it: `run` hands its error
 * to `onError`, `result` to the caller.
 */
export class SerialTurns {
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;
  readonly #onError: (error: unknown) => void;

  /** `onError` gets the error of a turn queued with `run` (it is logged there, never thrown). */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** Queues `work`; settles once it is done, never rejects. */
  run(work: () => unknown): Promise<void> {
    return this.#queue(work).then(
      () => {},
      (error: unknown) => {
        this.#onError(error);
      },
    );
  }

  /** Queues `work`; settles with its result or rejects with its error (the turns after it go on either way). */
  result<T>(work: () => T | Promise<T>): Promise<T> {
    return this.#queue(work);
  }

  /** Settles once every turn queued so far is done. */
  settled(): Promise<void> {
    return this.#tail;
  }

  /** No turn is queued or running. */
  get idle(): boolean {
    return this.#waiting === 0;
  }

  #queue<T>(work: () => T | Promise<T>): Promise<T> {
    this.#waiting++;
    const turn = this.#tail.then(work);
    const done = () => {
      this.#waiting--;
    };
    this.#tail = turn.then(done, done);
    return turn;
  }
}
