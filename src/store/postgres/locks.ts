/**
 * The advisory lock every writer of history_blocks holds for its transaction
 * (compaction, retention): blocks of a (register, period) are read, merged and
 * written back, which two processes must not do at once. Recording takes no lock:
 * it only inserts into history_tail, where the key settles duplicates.
 */
import type { Sql } from "./connection.ts";

const historyLockKey = 0x66_68_62_6c; // "fhbl"

/** Waits for the history lock, released when the transaction ends. */
export async function lockHistory(tx: Sql): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${historyLockKey})`;
}

/** Takes the history lock if no one holds it; false when another transaction does. */
export async function tryLockHistory(tx: Sql): Promise<boolean> {
  const [row] = (await tx`SELECT pg_try_advisory_xact_lock(${historyLockKey}) AS locked`) as { locked: boolean }[];
  return row?.locked === true;
}
