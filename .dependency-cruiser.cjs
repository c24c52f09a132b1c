/**
 * The import direction between the parts under src/, stated once as allow-lists
 * (docs/product.md "Source layout"; docs/architecture.md "Folders and the import rule").
 * `npm run lint` runs `depcruise` with this file; test/tooling/import-direction.test.ts
 * proves an upward import fails it.
 *
 * Each key is a folder under src/ (or "main" for src/main.ts); its value lists the
 * folders it may import besides itself. Imports outside src/ (packages, web/, package.json)
 * are not ruled here. Tests and scripts may import anything.
 */
const mayImport = {
  lib: [],
  config: ["lib", "modbus", "alerting", "modbus-server"],
  store: ["lib"],
  modbus: ["lib"],
  "modbus-server": ["modbus", "store", "lib"],
  ingest: ["store", "lib"],
  alerting: ["store", "lib"],
  webhooks: ["store", "lib"],
  uplink: ["store", "lib"],
  mqtt: ["store", "lib"],
  http: ["store", "alerting", "webhooks", "lib"],
  app: ["config", "lib", "store", "modbus", "modbus-server", "ingest", "alerting", "webhooks", "uplink", "mqtt", "http"],
  demo: ["modbus", "lib", "config", "store"],
  "history-io": ["lib"],
  cli: "everything",
  // main.ts also reads lib/version.ts for `--version`.
  main: ["cli", "lib"],
};

/**
 * The store's engines (docs/architecture.md "Store"): SQLite on a box, PostgreSQL on a
 * central. Each is reached through src/store/index.ts (openStore, openStoreAt); only
 * src/store/, tests and benchmarks import an engine folder directly (the SQLite test
 * door, sqlite/sqlite-internals.ts, among them). Everything else imports the store's
 * types, enums and errors from src/store/contract/ or src/store/index.ts.
 */
const storeEngines = ["src/store/sqlite/", "src/store/postgres/"];

/** What the store contract never imports: either engine, or an engine's client or schema builder. */
const engineModules = [...storeEngines.map((folder) => `^${folder}`), "^bun:sqlite$", "^bun$", "(^|/)node_modules/drizzle-orm/"];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const folderPath = (folder) => (folder === "main" ? "^src/main\\.ts$" : `^src/${folder}/`);

const directionRules = Object.entries(mayImport)
  .filter(([, allowed]) => allowed !== "everything")
  .map(([folder, allowed]) => {
    const own = folder === "main" ? [] : [folder];
    const targets = [...own, ...allowed].map((name) => (name === "main" ? "main\\.ts$" : `${name}/`));
    return {
      name: `${folder}-imports-only-${allowed.length ? allowed.join("-") : "nothing"}`,
      comment: `src/${folder === "main" ? "main.ts" : `${folder}/`} may import from src/ only: ${
        allowed.length ? allowed.join(", ") : "nothing"
      } (docs/architecture.md).`,
      severity: "error",
      from: { path: folderPath(folder) },
      to: { path: "^src/", pathNot: `^src/(${targets.join("|")})` },
    };
  });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...directionRules,
    {
      name: "store-engines-behind-store-index",
      comment: "src/store/sqlite/ and src/store/postgres/ are imported only by src/store/ (index.ts opens them), test/ and scripts/bench/ (the store is the only place that speaks SQL).",
      severity: "error",
      from: { pathNot: "^(src/store/|test/|scripts/bench/)" },
      to: { path: `^(${storeEngines.map(escape).join("|")})` },
    },
    {
      name: "store-contract-imports-no-engine",
      comment: "src/store/contract/ imports neither engine folder nor bun:sqlite, Bun's SQL client or drizzle: both engines implement it.",
      severity: "error",
      from: { path: "^src/store/contract/" },
      to: { path: `(${engineModules.join("|")})` },
    },
    {
      name: "src-does-not-import-tests-or-scripts",
      comment: "Product code does not depend on test/ or scripts/.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|scripts)/" },
    },
    {
      name: "no-unresolvable-import",
      comment: "An import that resolves to nothing is a typo or a moved file.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // node_modules stays in the graph (not followed): the store contract rule sees drizzle-orm.
    exclude: { path: "(^|/)migrations/meta/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types", "bun"],
      extensions: [".ts", ".js", ".json", ".d.ts"],
    },
  },
};
