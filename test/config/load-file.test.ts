import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exampleConfigYaml, loadConfigFile } from "../../src/config/index.ts";

const dir = mkdtempSync(join(tmpdir(), "fieldhub-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("reads and checks a file", () => {
  const path = join(dir, "fieldhub.yaml");
  writeFileSync(path, exampleConfigYaml);
  expect(loadConfigFile(path).ok).toBe(true);
});

test("an unreadable file is one problem at the root", () => {
  const path = join(dir, "missing.yaml");
  const result = loadConfigFile(path);
  expect(result).toEqual({
    ok: false,
    problems: [{ path: "", message: expect.stringContaining(path) }],
  });
});

test("a directory is one problem at the root", () => {
  const result = loadConfigFile(dir);
  expect(result.ok).toBe(false);
  if (!result.ok) expect(result.problems.map((p) => p.path)).toEqual([""]);
});
