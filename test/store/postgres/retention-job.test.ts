/**
 * Retention (ReadingStore.prune, src/store/contract/readings.ts) on both engines (engines.ts): every
 * reading before the cutoff goes, every one after stays. On PostgreSQL the months
 * wholly before the cutoff go first as whole partitions (one DROP TABLE each;
 * docs/fleet.md, "Retention"), the edge month by the per-register batches.
 */
import { beforeAll, expect, test } from "bun:test";
import { describeOnBothEngines, type OpenDomains } from "./engines.ts";

const hour = 3_600_000;
const start = Date.UTC(2026, 0, 10);
const end = Date.UTC(2026, 3, 20);
// Inside March: January and February wholly before it.
const cutoff = Date.UTC(2026, 2, 15, 6, 30);

describeOnBothEngines("the retention job", start, (opened, engine) => {
  let store: OpenDomains;
  let registers: number[] = [];
  beforeAll(async () => {
    store = opened();
    registers = (await store.query("SELECT id FROM registers ORDER BY id LIMIT 2")).map((row) => Number(row.id));
    const batch: [number, number, number | null][] = [];
    for (let ts = start; ts < end; ts += hour) for (const id of registers) batch.push([id, ts, ts % 1000]);
    await store.importReadings(batch, new Map(registers.map((id) => [id, hour])));
    // Into blocks, as a running central's compaction leaves them (on PostgreSQL, in month partitions).
    await store.closePeriods(end + 2 * 24 * hour);
  });
  /** PostgreSQL's month partitions of history_blocks (none on SQLite). */
  const months = async () =>
    engine.name === "PostgreSQL"
      ? (
          await store.query(
            "SELECT relname FROM pg_class WHERE relname LIKE 'history_blocks_y%' AND relkind = 'r' ORDER BY relname",
          )
        ).map((row) => String(row.relname))
      : [];
  const count = async (registerId: number, since: number, until: number) => {
    let total = 0;
    let after = null;
    for (;;) {
      const page = await store.page({ registerIds: [registerId], since, until, order: "asc", limit: 5000, after });
      total += page.rows.length;
      const last = page.rows.at(-1);
      if (!page.hasMore || last === undefined) return total;
      after = { ts: last.ts, registerId: last.registerId };
    }
  };

  test("every reading before the cutoff goes, every one after stays", async () => {
    const before = Math.ceil((cutoff - start) / hour);
    const after = Math.ceil((end - start) / hour) - before;
    const monthsBefore = await months();
    const result = await store.pruneReadings(cutoff);
    expect(result.deleted).toBe(before * registers.length);
    for (const id of registers) {
      expect(await count(id, 0, cutoff)).toBe(0);
      expect(await count(id, cutoff, end)).toBe(after);
    }
    if (engine.name === "PostgreSQL") {
      expect(monthsBefore).toEqual([
        "history_blocks_y2026m01",
        "history_blocks_y2026m02",
        "history_blocks_y2026m03",
        "history_blocks_y2026m04",
      ]);
      expect(await months()).toEqual(["history_blocks_y2026m03", "history_blocks_y2026m04"]);
    }
    // Once more: nothing left to delete.
    expect((await store.pruneReadings(cutoff)).deleted).toBe(0);
  });
});
