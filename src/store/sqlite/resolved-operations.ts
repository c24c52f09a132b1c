/**
 * The SQLite engine behind the asynchronous store interfaces. Every domain
 * interface returns promises, so that an engine whose client is asynchronous
 * (PostgreSQL) can implement it; bun:sqlite answers synchronously, so each
 * SQLite domain is written synchronously and handed out through
 * `resolvedOperations`: every operation runs to its end at the call, as one
 * unit (a transaction where it writes), and its result or error comes back as a
 * settled promise. This is the engine's edge: SQLite's refusals (a full disk, a
 * held lock...) leave it as StoreUnavailableError (refusals.ts).
 */
import { sqliteRefusal } from "./refusals.ts";

/** The most parameters an operation may take (the wrapper passes them without a rest array). */
type MaxParameters = 0 | 1 | 2 | 3 | 4 | 5 | 6;

/**
 * A domain interface as its SQLite implementation writes it: each operation
 * returns its result directly (or a promise, for one that yields to the event
 * loop on purpose). An operation with more than six parameters, or a rest
 * parameter, becomes `never`, so the wrapper below never drops an argument.
 */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R>
    ? A["length"] extends MaxParameters
      ? (...args: A) => R | Promise<R>
      : never
    : T[K];
};

type Operation = (a?: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown, f?: unknown) => unknown;

const refused = (error: unknown) => {
  throw sqliteRefusal(error);
};

/**
 * Wraps a synchronous operation so that it returns a promise of its result and
 * rejects (never throws) on error. Fixed parameters rather than `...args`: the
 * wrapper allocates nothing but the promise, on hot paths such as the key lookup.
 */
function resolving(operation: Operation): Operation {
  return (a, b, c, d, e, f) => {
    try {
      const result = operation(a, b, c, d, e, f);
      return result instanceof Promise ? result.catch(refused) : Promise.resolve(result);
    } catch (error) {
      return Promise.reject(sqliteRefusal(error));
    }
  };
}

/** The asynchronous domain interface over its synchronous SQLite implementation. */
export function resolvedOperations<T extends object>(operations: Synchronous<T>): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(operations)) {
    wrapped[name] = typeof member === "function" ? resolving(member as Operation) : member;
  }
  return wrapped as T;
}
