/**
 * The import direction (.dependency-cruiser.cjs, docs/architecture.md "Folders and the
 * import rule") is checked by `npm run lint`. Here the same rules run through
 * dependency-cruiser's API on small fixture trees, so an upward import is proven to fail.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
  // Packages resolve as in the repository (drizzle-orm, for the store contract's rule).
  symlinkSync(join(import.meta.dir, "../../node_modules"), join(root, "node_modules"));
  // Paths in the rules are relative to the tree's root, as they are to the repository's.
  const folders = ["src", "test", "scripts"].filter((folder) => existsSync(join(root, folder)));
  const result = await cruise(folders, {
    baseDir: root,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    exclude: config.options.exclude,
    doNotFollow: config.options.doNotFollow,
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

test("an engine folder is imported only by the store, by tests and by benchmarks", async () => {
  const violations = await violationsIn({
    "src/store/sqlite/sqlite-internals.ts": "export const raw = 1;\n",
    "src/store/postgres/index.ts": "export const pg = 1;\n",
    "src/store/index.ts":
      'import { pg } from "./postgres/index.ts";\nimport { raw } from "./sqlite/sqlite-internals.ts";\nexport const store = raw + pg;\n',
    "src/cli/serve.ts": 'import { raw } from "../store/sqlite/sqlite-internals.ts";\nexport const serve = raw;\n',
    "src/http/app.ts": 'import { pg } from "../store/postgres/index.ts";\nexport const app = pg;\n',
    "test/store/raw.test.ts":
      'import { raw } from "../../src/store/sqlite/sqlite-internals.ts";\nexport const t = raw;\n',
    "scripts/bench/pg.ts": 'import { pg } from "../../src/store/postgres/index.ts";\nexport const b = pg;\n',
  });
  expect(violations.sort()).toEqual([
    "store-engines-behind-store-index: src/cli/serve.ts -> src/store/sqlite/sqlite-internals.ts",
    "store-engines-behind-store-index: src/http/app.ts -> src/store/postgres/index.ts",
  ]);
});

test("the store contract imports neither engine nor an engine's client or drizzle", async () => {
  const violations = await violationsIn({
    "src/store/sqlite/schema.ts": "export const gateways = 1;\n",
    "src/store/postgres/schema.ts": "export const pgGateways = 1;\n",
    "src/store/contract/gateways.ts":
      'import { gateways } from "../sqlite/schema.ts";\nimport { pgGateways } from "../postgres/schema.ts";\nexport const statuses = gateways + pgGateways;\n',
    "src/store/contract/readings.ts": 'import { Database } from "bun:sqlite";\nexport const db = Database;\n',
    "src/store/contract/alerts.ts": 'import { sql } from "drizzle-orm";\nexport const q = sql;\n',
    "src/store/contract/events.ts": 'import { SQL } from "bun";\nexport const client = SQL;\n',
    "src/store/contract/keys.ts": 'import { statuses } from "./gateways.ts";\nexport const kinds = statuses;\n',
    "src/store/sqlite/keys.ts": 'import { kinds } from "../contract/keys.ts";\nexport const k = kinds;\n',
  });
  // A package's resolved path depends on where node_modules lives: named by the package here.
  const named = violations.map((v) => v.replace(/-> \S*node_modules\/(drizzle-orm)\/\S*$/, "-> $1"));
  expect(named.sort()).toEqual([
    "store-contract-imports-no-engine: src/store/contract/alerts.ts -> drizzle-orm",
    "store-contract-imports-no-engine: src/store/contract/events.ts -> bun",
    "store-contract-imports-no-engine: src/store/contract/gateways.ts -> src/store/postgres/schema.ts",
    "store-contract-imports-no-engine: src/store/contract/gateways.ts -> src/store/sqlite/schema.ts",
    "store-contract-imports-no-engine: src/store/contract/readings.ts -> bun:sqlite",
  ]);
});
