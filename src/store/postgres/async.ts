/**
 * The store's domain interfaces as they become asynchronous (each operation returns
 * a Promise of what it returns today; `scan` an async iterable of the same pages),
 * derived from today's synchronous ones so the PostgreSQL implementations follow
 * them until the interfaces themselves change.
 */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? K extends "scan"
      ? (...args: A) => AsyncIterable<R extends Iterable<infer Page> ? Page : never>
      : (...args: A) => Promise<Awaited<R>>
    : T[K];
};
