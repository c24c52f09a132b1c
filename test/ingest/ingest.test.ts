/**
 * Readings in through ingest, out through the API: latest values fresh on every
 * reading, history at the stored density (the first value of each period), all
 * in batched transactions, nothing dropped silently.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createIngest } from "../../src/ingest/ingest.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { call } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
beforeEach(async () => {
  site = await startTestSite();
});
afterEach(async () => {
  await site.stop();
});

const minute = 60_000;
const air = "ACME-1/Climate computer/air_temperature";
const humidity = "ACME-1/Climate computer/humidity";

const setpoint = "ACME-1/Climate computer/setpoint";

function ingestFor(
  intervals: Record<string, number>,
  options: { maxQueued?: number; flushIntervalMs?: number; maxRowsPerTransaction?: number } = {},
) {
  return createIngest({
    store: site.store,
    clock: site.clock,
    logger: silentLogger(),
    storageIntervalMs: new Map(Object.entries(intervals).map(([path, ms]) => [site.registerUuid(path), ms])),
    flushIntervalMs: options.flushIntervalMs ?? 3_600_000, // flushed by hand unless a test says otherwise
    maxQueued: options.maxQueued,
    maxRowsPerTransaction: options.maxRowsPerTransaction,
  });
}

async function history(registerPath: string) {
  const response = await call<{ data: { raw_value: number; ts: string }[] }>(
    site.baseUrl,
    `/v1/devices/${ids.acmeGateway1}/readings?register_id=${site.registerUuid(registerPath)}&order=asc&limit=1000`,
    { key: site.keys.acme },
  );
  return response.body.data.map((reading) => [reading.ts, reading.raw_value]);
}

async function latest(registerPath: string) {
  const response = await call<{ data: { id: string; latest_raw_value: number | null; latest_ts: string | null }[] }>(
    site.baseUrl,
    `/v1/devices/${ids.acmeGateway1}/registers`,
    { key: site.keys.acme },
  );
  const register = response.body.data.find((entry) => entry.id === site.registerUuid(registerPath));
  return [register?.latest_ts ?? null, register?.latest_raw_value ?? null];
}

describe("stored density", () => {
  test("one stored value per register per period: the first read in it, with its own time", async () => {
    const ingest = await ingestFor({ [air]: 5 * minute });
    const start = Math.floor((site.clock.now() - 60 * minute) / (5 * minute)) * 5 * minute;
    // A poll every 10 s for 12 minutes: periods start at +0, +5 and +10 minutes.
    const polled = Array.from({ length: 72 }, (_, index) => ({
      registerId: site.registerUuid(air),
      ts: start + index * 10_000 + 1_234,
      raw: 200 + index,
    }));
    ingest.accept(polled);
    expect(await ingest.flush()).toBe(3);
    // Stored history keeps whole seconds (store/contract/readings.ts): 1.234 s past the poll's start is stored as 1 s.
    expect(await history(air)).toEqual([
      [new Date(start + 1_000).toISOString(), 200],
      [new Date(start + 30 * 10_000 + 1_000).toISOString(), 230],
      [new Date(start + 60 * 10_000 + 1_000).toISOString(), 260],
    ]);
    // Latest follows every reading, not only the stored ones, to the millisecond.
    expect(await latest(air)).toEqual([new Date(start + 71 * 10_000 + 1_234).toISOString(), 271]);
    await ingest.stop();
  });

  test("each register keeps its own period", async () => {
    const ingest = await ingestFor({ [air]: minute, [humidity]: 10 * minute });
    const start = Math.floor((site.clock.now() - 60 * minute) / (10 * minute)) * 10 * minute;
    for (let index = 0; index < 20; index++) {
      const ts = start + index * minute;
      ingest.accept([
        { registerId: site.registerUuid(air), ts, raw: index },
        { registerId: site.registerUuid(humidity), ts, raw: 500 + index },
      ]);
    }
    await ingest.flush();
    expect((await history(air)).length).toBe(20);
    expect((await history(humidity)).map(([, raw]) => raw)).toEqual([500, 510]);
    await ingest.stop();
  });

  test("after a restart, a period already stored is not stored twice", async () => {
    const first = await ingestFor({ [air]: 5 * minute });
    const start = Math.floor((site.clock.now() - 30 * minute) / (5 * minute)) * 5 * minute;
    first.accept([{ registerId: site.registerUuid(air), ts: start + 1000, raw: 1 }]);
    await first.stop();
    const second = await ingestFor({ [air]: 5 * minute });
    second.accept([
      { registerId: site.registerUuid(air), ts: start + 2000, raw: 2 },
      { registerId: site.registerUuid(air), ts: start + 5 * minute, raw: 3 },
    ]);
    await second.stop();
    expect((await history(air)).map(([, raw]) => raw)).toEqual([1, 3]);
  });
});

describe("per-period aggregates", () => {
  // air_temperature is scaled by 0.1: mean in engineering units, min and max raw.
  type Aggregated = {
    raw_value: number;
    raw_min: number | null;
    raw_max: number | null;
    mean: number | null;
    samples: number | null;
  };
  async function aggregated(registerPath: string): Promise<Aggregated[]> {
    const response = await call<{ data: Aggregated[] }>(
      site.baseUrl,
      `/v1/devices/${ids.acmeGateway1}/readings?register_id=${site.registerUuid(registerPath)}&order=asc&limit=1000`,
      { key: site.keys.acme },
    );
    return response.body.data.map(({ raw_value, raw_min, raw_max, mean, samples }) => ({
      raw_value,
      raw_min,
      raw_max,
      mean,
      samples,
    }));
  }

  test("each stored reading gets the min, max, mean and count of its period's polls once the period ended", async () => {
    const ingest = await ingestFor({ [air]: 5 * minute });
    const start = Math.floor((site.clock.now() - 60 * minute) / (5 * minute)) * 5 * minute;
    // 30 polls a period; the second period holds a spike of two polls and a value that cannot be read (null).
    const raws = Array.from({ length: 72 }, (_, index) => (index === 40 || index === 41 ? 600 : 200 + (index % 3)));
    ingest.accept(
      raws.map((raw, index) => ({
        registerId: site.registerUuid(air),
        ts: start + index * 10_000 + 1_234,
        raw: index === 45 ? null : raw,
      })),
    );
    await ingest.flush();
    const steady = { raw_min: 200, raw_max: 202, samples: 30 };
    const secondSum = raws.slice(30, 60).reduce((sum, raw, index) => sum + (index === 15 ? 0 : raw), 0);
    // The period in progress (the clock is an hour on) is finished too: it ended.
    const lastSum = raws.slice(60).reduce((sum, raw) => sum + raw, 0);
    expect(await aggregated(air)).toEqual([
      { raw_value: 200, ...steady, mean: 20.1 },
      { raw_value: 200, raw_min: 200, raw_max: 600, mean: secondSum / 29 / 10, samples: 29 },
      { raw_value: 200, raw_min: 200, raw_max: 202, mean: lastSum / 12 / 10, samples: 12 },
    ]);
    await ingest.stop();
  });

  test("a period still in progress has no aggregate until it ends, or until ingest stops", async () => {
    const ingest = await ingestFor({ [air]: 60 * minute });
    site.clock.advance(10_000);
    const start = Math.floor(site.clock.now() / (60 * minute)) * 60 * minute;
    ingest.accept([
      { registerId: site.registerUuid(air), ts: start + 1_000, raw: 5 },
      { registerId: site.registerUuid(air), ts: start + 2_000, raw: 9 },
    ]);
    await ingest.flush();
    expect(await aggregated(air)).toEqual([{ raw_value: 5, raw_min: null, raw_max: null, mean: null, samples: null }]);
    await ingest.stop();
    expect(await aggregated(air)).toEqual([{ raw_value: 5, raw_min: 5, raw_max: 9, mean: 0.7, samples: 2 }]);
  });
});

describe("batching and back-pressure", () => {
  test("readings are stored only when the batch commits, and counted then", async () => {
    const ingest = await ingestFor({ [air]: minute });
    const start = site.clock.now() - 30 * minute;
    ingest.accept(
      Array.from({ length: 10 }, (_, index) => ({
        registerId: site.registerUuid(air),
        ts: start + index * minute,
        raw: index,
      })),
    );
    expect(ingest.stats()).toMatchObject({ accepted: 10, queued: 10, committed: 0 });
    expect(await history(air)).toEqual([]);
    await ingest.flush();
    expect(ingest.stats()).toMatchObject({ queued: 0, committed: 10, batches: 1, dropped: 0 });
    expect((await history(air)).length).toBe(10);
    await ingest.stop();
  });

  test("past its memory bound, a batch is dropped and counted, not silently lost", async () => {
    const ingest = await ingestFor({ [air]: minute }, { maxQueued: 5 });
    const start = site.clock.now() - 30 * minute;
    const batch = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        registerId: site.registerUuid(air),
        ts: start + (from + index) * minute,
        raw: from + index,
      }));
    ingest.accept(batch(0, 4));
    ingest.accept(batch(4, 3)); // 4 + 3 > 5: refused whole
    expect(ingest.stats()).toMatchObject({ queued: 4, dropped: 3 });
    await ingest.flush();
    ingest.accept(batch(4, 3));
    await ingest.stop();
    expect((await history(air)).map(([, raw]) => raw)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  test("a backlog is written by the timer in bounded transactions, with the event loop free between them", async () => {
    const ingest = await ingestFor({ [humidity]: 1000 }, { flushIntervalMs: 20, maxRowsPerTransaction: 100 });
    const start = site.clock.now() - 2 * 3_600_000;
    ingest.accept(
      Array.from({ length: 1000 }, (_, index) => ({
        registerId: site.registerUuid(humidity),
        ts: start + index * 1000,
        raw: index,
      })),
    );
    // Other work scheduled the same way as the drain's next step: it runs between transactions.
    const queuedSeenByOtherWork: number[] = [];
    let sampling = true;
    const sample = () => {
      queuedSeenByOtherWork.push(ingest.stats().queued);
      if (sampling) setImmediate(sample);
    };
    setImmediate(sample);
    const deadline = Date.now() + 5_000;
    while (ingest.stats().committed < 1000 && Date.now() < deadline) await Bun.sleep(5);
    sampling = false;
    expect(ingest.stats()).toMatchObject({ committed: 1000, queued: 0, batches: 10 });
    // Seen between transactions: every step of the drain, not only before and after.
    for (const step of [900, 800, 500, 100]) expect(queuedSeenByOtherWork).toContain(step);
    expect((await history(humidity)).length).toBe(1000);
    await ingest.stop();
  });

  test("flush() writes the whole backlog at once, in bounded transactions", async () => {
    const ingest = await ingestFor({ [setpoint]: 1000 }, { maxRowsPerTransaction: 300 });
    const start = site.clock.now() - 2 * 3_600_000;
    ingest.accept(
      Array.from({ length: 1000 }, (_, index) => ({
        registerId: site.registerUuid(setpoint),
        ts: start + index * 1000,
        raw: index,
      })),
    );
    expect(await ingest.flush()).toBe(1000);
    expect(ingest.stats()).toMatchObject({ committed: 1000, queued: 0, batches: 4 });
    await ingest.stop();
  });

  test("readings for registers the store does not know are counted and skipped", async () => {
    const ingest = await ingestFor({});
    ingest.accept([{ registerId: "00000000-0000-0000-0000-000000000000", ts: site.clock.now(), raw: 1 }]);
    expect(ingest.stats()).toMatchObject({ accepted: 0, unknownRegisters: 1 });
    await ingest.stop();
  });
});

describe("text of string registers", () => {
  test("served as latest_text, written only when it changes, and never a readings row", async () => {
    // Ingest goes by the value it is handed: a polled value with text is a string register's.
    const writes: { registerId: number; text: string }[][] = [];
    const recordTexts = site.store.registers.recordTexts;
    site.store.registers.recordTexts = async (texts) => {
      writes.push([...texts]);
      await recordTexts(texts);
    };
    const ingest = await ingestFor({ [setpoint]: minute });
    const start = site.clock.now() - 10 * minute;
    const read = (index: number, text: string) =>
      ingest.accept([{ registerId: site.registerUuid(setpoint), ts: start + index * minute, raw: null, text }]);
    for (let index = 0; index < 3; index++) {
      read(index, "SDM630");
      expect(await ingest.flush()).toBe(0);
    }
    expect(writes.length).toBe(1);
    read(3, "SDM630-V2");
    await ingest.flush();
    expect(writes.length).toBe(2);

    const response = await call<{ data: { id: string; latest_text: string | null; latest_ts: string | null }[] }>(
      site.baseUrl,
      `/v1/devices/${ids.acmeGateway1}/registers`,
      { key: site.keys.acme },
    );
    const register = response.body.data.find((entry) => entry.id === site.registerUuid(setpoint));
    expect(register).toMatchObject({ latest_text: "SDM630-V2", latest_ts: new Date(start + 3 * minute).toISOString() });
    expect(await history(setpoint)).toEqual([]);

    // A new ingest (a restart) knows the stored text: the same text is not written again.
    await ingest.stop();
    const again = await ingestFor({ [setpoint]: minute });
    again.accept([{ registerId: site.registerUuid(setpoint), ts: start + 4 * minute, raw: null, text: "SDM630-V2" }]);
    await again.flush();
    expect(writes.length).toBe(2);
    await again.stop();
  });
});
