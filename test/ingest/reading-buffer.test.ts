/**
 * Ingest's buffer (src/ingest/reading-buffer.ts): readings wait in the order
 * admitted; a write takes from the front and a refused one goes back in front of
 * everything taken since; a string register's text waits only when it changed.
 */
import { expect, test } from "bun:test";
import { ReadingBuffer } from "../../src/ingest/reading-buffer.ts";

test("a write takes the oldest readings, at most its share; the rest waits in order", () => {
  const buffer = new ReadingBuffer(new Map());
  for (let n = 0; n < 5; n++) buffer.add(1, n * 1000, n, 100 + n);
  const batch = buffer.take(3);
  expect(batch.rows.map(([, ts]) => ts)).toEqual([0, 1000, 2000]);
  expect(buffer.length).toBe(2);
  expect(buffer.take(10).rows.map(([, ts]) => ts)).toEqual([3000, 4000]);
  expect(buffer.empty).toBe(true);
});

test("a refused batch goes back in front of what was taken since", () => {
  const buffer = new ReadingBuffer(new Map());
  buffer.add(1, 1000, 1, 0);
  buffer.add(1, 2000, 2, 0);
  const refused = buffer.take(10);
  buffer.add(1, 3000, 3, 0);
  buffer.putBack(refused);
  expect(buffer.take(10).rows.map(([, ts]) => ts)).toEqual([1000, 2000, 3000]);
});

test("a text waits only while it differs from the stored one; a refused text never overrides a newer one", () => {
  const buffer = new ReadingBuffer(new Map([[7, "FW 1.0"]]));
  buffer.noteText(7, "FW 1.0");
  expect(buffer.empty).toBe(true);
  buffer.noteText(7, "FW 1.1");
  expect(buffer.empty).toBe(false);
  const refused = buffer.take(10);
  expect([...refused.texts]).toEqual([[7, "FW 1.1"]]);
  buffer.noteText(7, "FW 1.2");
  buffer.putBack(refused);
  const retried = buffer.take(10);
  expect([...retried.texts]).toEqual([[7, "FW 1.2"]]);
  buffer.written(retried);
  // Stored now: reading it again waits for nothing.
  buffer.noteText(7, "FW 1.2");
  expect(buffer.empty).toBe(true);
  // Read back to the stored text before a write: nothing waits.
  buffer.noteText(7, "FW 2");
  buffer.noteText(7, "FW 1.2");
  expect(buffer.empty).toBe(true);
});

test("lag: the age of the oldest waiting reading, 0 once it is written", () => {
  const buffer = new ReadingBuffer(new Map());
  expect(buffer.lagMs(500)).toBe(0);
  buffer.add(1, 0, 1, 100);
  buffer.add(1, 1000, 1, 300);
  expect(buffer.lagMs(1100)).toBe(1000);
  const batch = buffer.take(10);
  buffer.written(batch);
  expect(buffer.lagMs(2000)).toBe(0);
});

test("newestBetween: the later of the store's answer and a waiting reading in the window", () => {
  const buffer = new ReadingBuffer(new Map());
  buffer.add(1, 5000, 1, 0);
  buffer.add(1, 9000, 1, 0);
  buffer.add(2, 7000, 1, 0);
  expect(buffer.newestBetween(1, 0, 8000, null)).toBe(5000);
  expect(buffer.newestBetween(1, 0, 8000, 6000)).toBe(6000);
  expect(buffer.newestBetween(1, 0, 10_000, 6000)).toBe(9000);
  expect(buffer.newestBetween(1, 9001, 10_000, null)).toBeNull();
});
