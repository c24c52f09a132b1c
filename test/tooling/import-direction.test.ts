/**
 * The import direction (.dependency-cruiser.cjs, docs/architecture.md "Folders and the
 * import rule") is checked by `npm run lint`. Here the same rules run through
 * dependency-cruiser's API on small fixture trees, so an upward import is proven to fail.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";

const config = createRequire(import.meta.url)("../../.dependency-cruiser.cjs");
const trees: string[] = [];
afterAll(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

/** Writes the files into a fresh directory and returns the rules broken there. */
async function violationsIn(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), "fieldhub-imports-"));
  trees.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  // Paths in the rules are relative to the tree's root, as they are to the repository's.
  const folders = ["src", "test"].filter((folder) => existsSync(join(root, folder)));
  const result = await cruise(folders, {
    baseDir: root,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    exclude: config.options.exclude,
    tsPreCompilationDeps: true,
    enhancedResolveOptions: config.options.enhancedResolveOptions,
  });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

test("an upward import (lib -> http) fails the check", async () => {
  const violations = await violationsIn({
    "src/http/app.ts": "export const app = 1;\n",
    "src/lib/x.ts": 'import { app } from "../http/app.ts";\nexport const x = app;\n',
  });
  expect(violations).toEqual(["lib-imports-only-nothing: src/lib/x.ts -> src/http/app.ts"]);
});

test("imports the table allows pass: downward, within a folder, and from tests", async () => {
  const violations = await violationsIn({
    "src/lib/ids.ts": "export const id = 1;\n",
    "src/store/open.ts": 'import { id } from "../lib/ids.ts";\nexport const store = id;\n',
    "src/store/readings.ts": 'import { store } from "./open.ts";\nexport const readings = store;\n',
    "src/http/app.ts": 'import { readings } from "../store/readings.ts";\nexport const app = readings;\n',
    "test/http/app.test.ts": 'import { app } from "../../src/http/app.ts";\nexport const t = app;\n',
  });
  expect(violations).toEqual([]);
});

test("a sideways import between parts fails (ingest -> modbus)", async () => {
  const violations = await violationsIn({
    "src/modbus/poller.ts": "export const poller = 1;\n",
    "src/ingest/ingest.ts": 'import { poller } from "../modbus/poller.ts";\nexport const ingest = poller;\n',
  });
  expect(violations).toEqual(["ingest-imports-only-store-lib: src/ingest/ingest.ts -> src/modbus/poller.ts"]);
});

test("a store-internal module is imported only by the store and by tests", async () => {
  const violations = await violationsIn({
    "src/store/sqlite-internals.ts": "export const raw = 1;\n",
    "src/store/readings.ts": 'import { raw } from "./sqlite-internals.ts";\nexport const readings = raw;\n',
    "src/cli/serve.ts": 'import { raw } from "../store/sqlite-internals.ts";\nexport const serve = raw;\n',
    "test/store/raw.test.ts": 'import { raw } from "../../src/store/sqlite-internals.ts";\nexport const t = raw;\n',
  });
  expect(violations).toEqual(["store-internals-stay-in-store: src/cli/serve.ts -> src/store/sqlite-internals.ts"]);
});
