/**
 * The latest values `record` holds before writing them (src/store/postgres/latest-values.ts):
 * newest kept per register with LatestValues.advance's comparison, and a failed write
 * keeps its values for the next one, which still runs. The SQL tag is a stand-in that
 * records what would be written (the statement itself is proved against PostgreSQL in
 * inventory-gateways-registers.test.ts).
 */
import { expect, test } from "bun:test";
import type { Sql } from "../../../src/store/postgres/connection.ts";
import { PendingLatest } from "../../../src/store/postgres/latest-values.ts";

test("held values: the newest per register (a same-time value does not replace); a failed write is retried by the next", async () => {
  const writes: number[][][] = [];
  let failNext = true;
  const sql = ((_strings: TemplateStringsArray, ...values: unknown[]) => {
    if (failNext) {
      failNext = false;
      return Promise.reject(new Error("connection lost"));
    }
    writes.push([values[0] as number[], values[1] as number[], values[2] as number[]]);
    return Promise.resolve([]);
  }) as unknown as Sql;
  const pending = new PendingLatest(sql, 60_000);
  pending.advance({ registerId: 1, ts: 2000, rawValue: 2 });
  pending.advance({ registerId: 1, ts: 1000, rawValue: 1 }); // older: kept out
  pending.advance({ registerId: 1, ts: 2000, rawValue: 9 }); // same time: kept out
  pending.advance({ registerId: 2, ts: 500, rawValue: 5 });
  await expect(pending.flush()).rejects.toThrow("connection lost");
  pending.advance({ registerId: 2, ts: 400, rawValue: 4 }); // older than the value kept from the failed write
  await pending.flush();
  expect(writes).toEqual([
    [
      [1, 2],
      [2000, 500],
      [2, 5],
    ],
  ]);
  await pending.flush(); // nothing held: nothing written
  expect(writes.length).toBe(1);
});
