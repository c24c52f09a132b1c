/**
 * Query results as the store interfaces give them: Bun.SQL returns an array with
 * the statement's bookkeeping attached (count, command), read here as plain rows.
 * Millisecond times are `bigint` columns, which Bun.SQL returns as strings: the
 * store's SELECTs cast them `::float8` (exact up to 2^53 ms), so they arrive as numbers.
 */
export async function rowsOf<T>(query: Promise<unknown>): Promise<T[]> {
  return [...((await query) as T[])];
}

export async function firstOf<T>(query: Promise<unknown>): Promise<T | null> {
  return ((await query) as T[])[0] ?? null;
}
