/**
 * Each engine's refusals become the one StoreUnavailableError
 * (src/store/contract/store-unavailable.ts); any other error stays as it was.
 * PostgreSQL's codes by mapping (a real central stopped, ended and made read-only:
 * test/faults/postgres-outage.test.ts; disk full 53100 on a real server:
 * test/faults/postgres-disk-full.test.ts); SQLite's also through a real store whose
 * writes are refused.
 */
import { describe, expect, test } from "bun:test";
import { isStoreUnavailable, StoreUnavailableError } from "../../src/store/contract/store-unavailable.ts";
import { openStoreFile } from "../../src/store/index.ts";
import { postgresRefusal } from "../../src/store/postgres/refusals.ts";
import { sqliteRefusal } from "../../src/store/sqlite/refusals.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";

/** An error as Bun.SQL raises it: its own `code`, the server's SQLSTATE in `errno`. */
function postgresError(message: string, code: string, errno?: string): Error {
  return new Bun.SQL.PostgresError(message, { code, errno });
}

describe("PostgreSQL's refusals", () => {
  const refused: [string, string | undefined, string][] = [
    ["ERR_POSTGRES_SERVER_ERROR", "53100", "could not extend file: No space left on device"],
    ["ERR_POSTGRES_SERVER_ERROR", "53300", "sorry, too many clients already"],
    ["ERR_POSTGRES_SERVER_ERROR", "08000", "connection exception"],
    ["ERR_POSTGRES_SERVER_ERROR", "08001", "could not connect"],
    ["ERR_POSTGRES_SERVER_ERROR", "08003", "connection does not exist"],
    ["ERR_POSTGRES_SERVER_ERROR", "08004", "server rejected the connection"],
    ["ERR_POSTGRES_SERVER_ERROR", "08006", "connection failure"],
    ["ERR_POSTGRES_SERVER_ERROR", "57P01", "terminating connection due to administrator command"],
    ["ERR_POSTGRES_SERVER_ERROR", "57P02", "terminating connection because of crash of another server process"],
    ["ERR_POSTGRES_SERVER_ERROR", "57P03", "the database system is starting up"],
    ["ERR_POSTGRES_SERVER_ERROR", "25006", "cannot execute INSERT in a read-only transaction"],
    ["ERR_POSTGRES_SERVER_ERROR", "58030", "could not write to file"],
    ["ERR_POSTGRES_CONNECTION_REFUSED", undefined, "Failed to connect"],
    ["ERR_POSTGRES_CONNECTION_CLOSED", undefined, "Connection closed"],
    ["ERR_POSTGRES_CONNECTION_FAILED", undefined, "Connection failed"],
    ["ERR_POSTGRES_CONNECTION_TIMEOUT", undefined, "Connection timeout"],
  ];
  for (const [code, state, message] of refused) {
    test(`${state ?? code} is the store unavailable, with the engine's code and message`, () => {
      const original = postgresError(message, code, state);
      const mapped = postgresRefusal(original);
      expect(mapped).toBeInstanceOf(StoreUnavailableError);
      expect(mapped).toMatchObject({
        engine: "postgres",
        engineCode: state ?? code,
        reason: `PostgreSQL: ${message} (${state ?? code})`,
        cause: original,
      });
    });
  }

  const faults: [string, string | undefined][] = [
    ["ERR_POSTGRES_SERVER_ERROR", "23505"], // unique violation: the caller's to handle
    ["ERR_POSTGRES_SERVER_ERROR", "42P01"], // undefined table: a fault
    ["ERR_POSTGRES_SERVER_ERROR", "40001"], // serialization failure
    ["ERR_POSTGRES_SERVER_ERROR", "57014"], // statement cancelled
    ["ERR_POSTGRES_SYNTAX_ERROR", undefined],
  ];
  for (const [code, state] of faults) {
    test(`${state ?? code} stays as it was`, () => {
      const original = postgresError("not a refusal", code, state);
      expect(postgresRefusal(original)).toBe(original);
    });
  }

  test("a plain error, or a thrown non-error, stays as it was", () => {
    const plain = new Error("bug");
    expect(postgresRefusal(plain)).toBe(plain);
    expect(postgresRefusal("text")).toBe("text");
    expect(postgresRefusal(null)).toBe(null);
  });
});

describe("SQLite's refusals", () => {
  for (const code of ["SQLITE_FULL", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_READONLY", "SQLITE_IOERR_WRITE"]) {
    test(`${code} is the store unavailable`, () => {
      const original = Object.assign(new Error("database or disk is full"), { code });
      expect(sqliteRefusal(original)).toMatchObject({
        engine: "sqlite",
        engineCode: code,
        reason: "database or disk is full",
      });
    });
  }

  test("a constraint stays as it was", () => {
    const original = Object.assign(new Error("UNIQUE constraint failed"), { code: "SQLITE_CONSTRAINT_UNIQUE" });
    expect(sqliteRefusal(original)).toBe(original);
  });

  test("a real store whose writes are refused rejects with it from every door: a domain, readings, the health write", async () => {
    const store = openStoreFile(":memory:");
    try {
      await store.secrets.getOrCreate("before");
      // SQLite refuses every write from now on (SQLITE_READONLY), as on a read-only mount.
      sqliteOf(store).run("PRAGMA query_only = 1");
      const refusals = await Promise.all([
        store.secrets.getOrCreate("after").catch((error: unknown) => error),
        store.readings.record([{ registerId: 1, ts: 1_000, rawValue: 1 }]).catch((error: unknown) => error),
        store.checkWritable().catch((error: unknown) => error),
      ]);
      for (const refusal of refusals) {
        expect(isStoreUnavailable(refusal)).toBe(true);
        expect(refusal).toMatchObject({ engine: "sqlite", engineCode: expect.stringMatching(/^SQLITE_READONLY/) });
      }
      // Reads still answer.
      expect((await store.secrets.getOrCreate("before")).length).toBeGreaterThan(0);
    } finally {
      await store.close().catch(() => {});
    }
  });
});
