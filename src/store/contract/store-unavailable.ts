/**
 * The store refusing work for a while, whichever engine is behind it: a full
 * disk, a lock held elsewhere, a read-only store, a database server that is
 * away, shutting down or cannot be reached. Each engine turns its own refusals
 * into this error at its edge (sqlite/refusals.ts, postgres/refusals.ts), so its
 * callers need to know no engine: the API answers 503 (docs/api.md section 7),
 * /healthz names the reason, and the writers keep what was refused and retry.
 * Any other store error is a fault, not a refusal.
 */

export type StoreEngine = "sqlite" | "postgres";

export class StoreUnavailableError extends Error {
  /** Why, for logs and /healthz: the engine's own message ("database or disk is full"). */
  readonly reason: string;
  readonly engine: StoreEngine;
  /** The engine's code: SQLite's result code (`SQLITE_FULL`), PostgreSQL's SQLSTATE (`53100`) or the client's (`ERR_POSTGRES_CONNECTION_REFUSED`). */
  readonly engineCode: string;
  constructor(engine: StoreEngine, engineCode: string, reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = "StoreUnavailableError";
    this.reason = reason;
    this.engine = engine;
    this.engineCode = engineCode;
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}

/**
 * A domain's operations as a plain object of bound functions whose errors pass
 * through `asRefusal` (the engine's mapping): an engine wraps each domain once,
 * at its edge, rather than each operation. Callers may hand an operation on
 * alone (`store.keys.lookup` to the API gate). Anything else (a field) is read
 * from the domain itself.
 */
export function withRefusals<T extends object>(domain: T, asRefusal: (error: unknown) => unknown): T {
  const operations: Record<string, unknown> = Object.create(domain);
  const fail = (error: unknown) => {
    throw asRefusal(error);
  };
  for (let owner: object | null = domain; owner !== null && owner !== Object.prototype; ) {
    for (const name of Object.getOwnPropertyNames(owner)) {
      const member = (domain as Record<string, unknown>)[name];
      if (name === "constructor" || Object.hasOwn(operations, name) || typeof member !== "function") continue;
      operations[name] = (...args: unknown[]) => {
        try {
          const result = member.apply(domain, args);
          return result instanceof Promise ? result.catch(fail) : result;
        } catch (error) {
          return fail(error);
        }
      };
    }
    owner = Object.getPrototypeOf(owner);
  }
  return operations as T;
}
