/**
 * SerialTurns (src/lib/serial-turns.ts): turns run one after another in the order
 * queued, each only once the one before settled; a failed turn goes to onError
 * (run) or to the caller (result) and never stops the turns after it.
 */
import { expect, test } from "bun:test";
import { SerialTurns } from "../../src/lib/serial-turns.ts";

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

test("a turn starts only once the one before it has settled, in the order queued", async () => {
  const turns = new SerialTurns(() => {});
  const log: string[] = [];
  const gate = deferred();
  const first = turns.run(async () => {
    log.push("first starts");
    await gate.promise;
    log.push("first ends");
  });
  const second = turns.run(() => {
    log.push("second");
  });
  await Bun.sleep(5);
  expect(log).toEqual(["first starts"]);
  gate.resolve();
  await Promise.all([first, second]);
  expect(log).toEqual(["first starts", "first ends", "second"]);
});

test("run: a failure goes to onError, never to the caller, and the next turn runs", async () => {
  const errors: unknown[] = [];
  const turns = new SerialTurns((error) => errors.push(error));
  let ran = false;
  await expect(
    turns.run(async () => {
      throw new Error("disk full");
    }),
  ).resolves.toBeUndefined();
  await turns.run(() => {
    ran = true;
  });
  expect(errors.map((error) => (error as Error).message)).toEqual(["disk full"]);
  expect(ran).toBe(true);
});

test("result: the turn's value or its error reaches the caller; onError is not called; the turns go on", async () => {
  const errors: unknown[] = [];
  const turns = new SerialTurns((error) => errors.push(error));
  expect(await turns.result(async () => 42)).toBe(42);
  await expect(
    turns.result(() => {
      throw new Error("refused");
    }),
  ).rejects.toThrow("refused");
  expect(await turns.result(() => "after")).toBe("after");
  expect(errors).toEqual([]);
});

test("idle while nothing is queued; settled() waits for every turn queued so far", async () => {
  const turns = new SerialTurns(() => {});
  expect(turns.idle).toBe(true);
  const gate = deferred();
  let done = 0;
  void turns.run(async () => {
    await gate.promise;
    done++;
  });
  void turns.run(() => {
    done++;
  });
  expect(turns.idle).toBe(false);
  const settled = turns.settled();
  gate.resolve();
  await settled;
  expect(done).toBe(2);
  expect(turns.idle).toBe(true);
});
