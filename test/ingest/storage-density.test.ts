/**
 * The stored density rule (ingest/storage-density.ts, docs/polling.md "Stored
 * density") when the wall clock steps: two stored readings of a register are
 * never closer than its interval less the poll jitter, in wall time or in
 * monotonic time; the latest value is the one read last. Values are polled the
 * way the poller reports them: wall time and monotonic time of each read.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
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
/** The interval less the jitter allowed (5 s for a one-minute interval). */
const minGapMs = minute - 5_000;

function ingestEveryMinute() {
  return createIngest({
    store: site.store,
    clock: site.clock,
    logger: silentLogger(),
    storageIntervalMs: new Map([[site.registerUuid(air), minute]]),
    flushIntervalMs: 3_600_000, // flushed by hand
  });
}

/** Polls `air` every `everyMs` for `forMs`, letting both clocks run; raw values count up from `from`. */
async function poll(ingest: Awaited<ReturnType<typeof ingestEveryMinute>>, forMs: number, everyMs = 1_000, from = 0) {
  for (let elapsed = 0, index = from; elapsed < forMs; elapsed += everyMs, index++) {
    ingest.accept([
      { registerId: site.registerUuid(air), ts: site.clock.now(), monotonic: site.clock.monotonic(), raw: index },
    ]);
    site.clock.advance(everyMs);
  }
}

/** Stored history from 3 days back to 3 days ahead (the API shows history up to its own now: moved there for the look). */
async function stored(): Promise<number[]> {
  const now = site.clock.now();
  const since = new Date(now - 3 * 86_400_000).toISOString();
  const until = new Date(now + 3 * 86_400_000).toISOString();
  site.clock.set(now + 3 * 86_400_000);
  const response = await call<{ data: { ts: string }[] }>(
    site.baseUrl,
    `/v1/devices/${ids.acmeGateway1}/readings?register_id=${site.registerUuid(air)}&order=asc&limit=1000&since=${since}&until=${until}`,
    { key: site.keys.acme },
  );
  site.clock.set(now);
  return response.body.data.map((reading) => Date.parse(reading.ts));
}

async function latestTs(): Promise<number | null> {
  const response = await call<{ data: { id: string; latest_ts: string | null }[] }>(
    site.baseUrl,
    `/v1/devices/${ids.acmeGateway1}/registers`,
    { key: site.keys.acme },
  );
  const ts = response.body.data.find((entry) => entry.id === site.registerUuid(air))?.latest_ts ?? null;
  return ts === null ? null : Date.parse(ts);
}

function gapsOf(times: number[]): number[] {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.slice(1).map((ts, index) => ts - (sorted[index] ?? 0));
}

function alignToMinute() {
  site.clock.set(Math.ceil(site.clock.now() / minute) * minute + 500);
}

test("ManualClock: a step moves the wall clock alone, time passing moves both", () => {
  const wall = site.clock.now();
  const monotonic = site.clock.monotonic();
  site.clock.step(-3_600_000);
  site.clock.set(site.clock.now() + 86_400_000);
  expect(site.clock.monotonic()).toBe(monotonic);
  site.clock.advance(1_500);
  expect(site.clock.monotonic()).toBe(monotonic + 1_500);
  expect(site.clock.now()).toBe(wall - 3_600_000 + 86_400_000 + 1_500);
  // A negative advance is a step back: monotonic time does not go back.
  site.clock.advance(-10_000);
  expect(site.clock.monotonic()).toBe(monotonic + 1_500);
});

test("on a steady clock: the first value of each minute, on the grid", async () => {
  alignToMinute();
  const ingest = await ingestEveryMinute();
  await poll(ingest, 5 * minute);
  await ingest.flush();
  const times = await stored();
  expect(times).toHaveLength(5);
  for (const ts of times) expect(ts % minute).toBe(0);
  await ingest.stop();
});

test("after a step back, values near stored history are skipped until the clock has moved past it; latest follows", async () => {
  alignToMinute();
  const ingest = await ingestEveryMinute();
  await poll(ingest, 3 * minute);
  await ingest.flush();
  const before = await stored();
  expect(before).toHaveLength(3);
  // Back 2 minutes 30 s: the clock now reads inside stored history.
  site.clock.step(-150_000);
  await poll(ingest, 4 * minute, 1_000, 1_000);
  await ingest.flush();
  const after = await stored();
  // History before the step is kept; nothing new lies near it.
  for (const ts of before) expect(after).toContain(ts);
  for (const gap of gapsOf(after)) expect(gap).toBeGreaterThanOrEqual(minGapMs);
  // Polling went on: values are stored again once the clock moved past the history.
  expect(after.length).toBeGreaterThan(before.length);
  // The latest value is the one read last, though earlier than the latest before the step.
  expect(await latestTs()).toBe(site.clock.now() - 1_000);
  // Back an hour, clear of stored history: values are stored at once, a minute apart.
  site.clock.step(-3_600_000);
  const hourBack = site.clock.now();
  await poll(ingest, 3 * minute, 1_000, 2_000);
  await ingest.flush();
  const latest = await stored();
  expect(latest.filter((ts) => ts >= hourBack && ts < hourBack + 3 * minute).length).toBeGreaterThanOrEqual(2);
  for (const gap of gapsOf(latest)) expect(gap).toBeGreaterThanOrEqual(minGapMs);
  await ingest.stop();
});

test("a step forward and back within a minute stores nothing at the future time", async () => {
  alignToMinute();
  const ingest = await ingestEveryMinute();
  await poll(ingest, 90_000);
  site.clock.step(86_400_000);
  await poll(ingest, 20_000);
  site.clock.step(-86_400_000);
  await poll(ingest, 3 * minute);
  await ingest.flush();
  const times = await stored();
  for (const ts of times) expect(ts).toBeLessThanOrEqual(site.clock.now());
  for (const gap of gapsOf(times)) expect(gap).toBeGreaterThanOrEqual(minGapMs);
  await ingest.stop();
});

test("a restart starts from stored history, even history stored while the clock was ahead", async () => {
  alignToMinute();
  const first = await ingestEveryMinute();
  // Half a minute of polling with the clock a day ahead, then stopped.
  site.clock.step(86_400_000);
  await poll(first, 30_000);
  await first.stop();
  // The clock set right, and a restart: the future reading does not block today's,
  // and the restart neither repeats a stored minute nor stores within the gap.
  site.clock.step(-86_400_000);
  const second = await ingestEveryMinute();
  await poll(second, 3 * minute);
  await second.stop();
  const third = await ingestEveryMinute();
  await poll(third, 2 * minute);
  await third.stop();
  const times = await stored();
  expect(times.filter((ts) => ts > site.clock.now())).toHaveLength(1);
  expect(times.filter((ts) => ts <= site.clock.now()).length).toBeGreaterThanOrEqual(4);
  for (const gap of gapsOf(times)) expect(gap).toBeGreaterThanOrEqual(minGapMs);
});

test("a value early in its minute, within the gap of a late one before it, waits for the gap, within the minute", async () => {
  alignToMinute();
  const ingest = await ingestEveryMinute();
  const minuteStart = site.clock.now() - 500;
  const monotonicStart = site.clock.monotonic();
  const readAt = (offset: number) => ({
    registerId: site.registerUuid(air),
    ts: minuteStart + offset,
    monotonic: monotonicStart + offset,
    raw: offset,
  });
  // The first minute's value is read late (59.5 s); then a read every 5 s.
  const offsets = [59_500];
  for (let offset = 60_500; offset <= 125_500; offset += 5_000) offsets.push(offset);
  ingest.accept(offsets.map(readAt));
  await ingest.flush();
  // 60.5 s to 110.5 s lie within 55 s of it; 115.5 s is the first value of the
  // second minute clear of the gap; the third minute's early values are not.
  expect(await stored()).toEqual([minuteStart + 59_000, minuteStart + 115_000]);
  await ingest.stop();
});
