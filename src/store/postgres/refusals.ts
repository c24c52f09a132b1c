/**
 * PostgreSQL's refusals: the server or the way to it is away for a while, so the
 * store takes no work until it is back (docs/fleet.md, "When PostgreSQL is
 * away"). They become the engine-neutral StoreUnavailableError once, where every
 * domain's operations are handed out (index.ts); any other error (a constraint,
 * a bug) is left as it is. Bun's pool opens a new connection for the next query
 * once the server answers again, so nothing here reconnects.
 */
import { StoreUnavailableError } from "../contract/store-unavailable.ts";

/** SQLSTATE classes and codes that mean "not now" (PostgreSQL, Appendix A). */
const refusalStates = [
  /^08/, // connection exception: 08000, 08003 (no connection), 08006 (connection failure), 08001, 08004
  /^53/, // insufficient resources: 53100 disk full, 53200 out of memory, 53300 too many connections
  /^57P0[1-3]$/, // admin shutdown, crash shutdown, cannot connect now (starting up or shutting down)
  /^25006$/, // read-only SQL transaction (default_transaction_read_only, a hot standby)
  /^58030$/, // I/O error
];

/** Bun.SQL's own codes for a connection that closed or could not be made (the pool cannot connect). */
const clientCodes = new Set([
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_FAILED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_IDLE_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
]);

/** Socket errors that reach a caller as they are (a name that does not resolve, a reset). */
const socketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** `error` as a StoreUnavailableError when it is PostgreSQL (or the way to it) refusing work, else `error` itself. */
export function postgresRefusal(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || error === null || typeof error !== "object") return error;
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  const state = typeof errno === "string" ? errno : null;
  const refused =
    (state !== null && refusalStates.some((pattern) => pattern.test(state))) ||
    (typeof code === "string" && (clientCodes.has(code) || socketCodes.has(code)));
  if (!refused) return error;
  const engineCode = state ?? String(code);
  const message = error instanceof Error ? error.message : engineCode;
  return new StoreUnavailableError("postgres", engineCode, `PostgreSQL: ${message} (${engineCode})`, { cause: error });
}
