/** The demo's default data directory (demo/data-dir.ts): the user's own, private, never another user's. */
import { afterAll, expect, test } from "bun:test";
import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DemoDataDirError, defaultDemoDataDir, prepareDemoDataDir } from "../../src/demo/data-dir.ts";

const workDir = mkdtempSync(join(tmpdir(), "fieldhub-demo-dir-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

test("per user: the XDG state directory, else ~/.local/state", () => {
  expect(defaultDemoDataDir({ XDG_STATE_HOME: "/home/ann/.state", HOME: "/home/ann" })).toBe(
    "/home/ann/.state/fieldhub-demo",
  );
  expect(defaultDemoDataDir({ HOME: "/home/ann" })).toBe("/home/ann/.local/state/fieldhub-demo");
  // A relative XDG_STATE_HOME is invalid by the XDG spec and ignored.
  expect(defaultDemoDataDir({ XDG_STATE_HOME: "state", HOME: "/home/ann" })).toBe(
    "/home/ann/.local/state/fieldhub-demo",
  );
});

test("created 0700; a looser one of the same user is made private", () => {
  const dir = join(workDir, "state", "fieldhub-demo");
  prepareDemoDataDir(dir);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  const loose = join(workDir, "loose");
  mkdirSync(loose, { mode: 0o755 });
  prepareDemoDataDir(loose);
  expect(statSync(loose).mode & 0o777).toBe(0o700);
});

test.skipIf(process.getuid?.() !== 0)("a directory of another user is refused, naming it", () => {
  const dir = join(workDir, "someone-else");
  mkdirSync(dir, { mode: 0o700 });
  chownSync(dir, 54_321, 54_321);
  expect(() => prepareDemoDataDir(dir)).toThrow(DemoDataDirError);
  expect(() => prepareDemoDataDir(dir)).toThrow(`${dir} belongs to another user (uid 54321`);
});
