import { expect, test } from "bun:test";
import { LoggedFailure } from "../../src/lib/log-once.ts";

test("a failure is to be logged when it begins, when its message changes, and its end once", () => {
  const failure = new LoggedFailure();
  expect(failure.ended()).toBe(false);
  expect(failure.occurred("disk full")).toBe(true);
  expect(failure.occurred("disk full")).toBe(false);
  expect(failure.occurred("disk full")).toBe(false);
  expect(failure.occurred("database is locked")).toBe(true);
  expect(failure.ended()).toBe(true);
  expect(failure.ended()).toBe(false);
  expect(failure.occurred("database is locked")).toBe(true);
});
