/**
 * SQLite's refusals: the conditions under which the store takes no writes for a
 * while (a full disk, another process's lock, a read-only file or mount, an I/O
 * error) become the engine-neutral StoreUnavailableError at the engine's edge
 * (resolved-operations.ts, and index.ts for the readings and the health write); any other error is left as it is.
 */
import { StoreUnavailableError } from "../contract/store-unavailable.ts";

/** SQLite's primary result codes for a refusal (extended codes such as SQLITE_IOERR_WRITE included). */
const refusalCodes = /^SQLITE_(FULL|BUSY|LOCKED|READONLY|IOERR)/;

/** `error` as a StoreUnavailableError when it is SQLite refusing work, else `error` itself. */
export function sqliteRefusal(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !refusalCodes.test(code)) return error;
  return new StoreUnavailableError("sqlite", code, error instanceof Error ? error.message : code, { cause: error });
}
