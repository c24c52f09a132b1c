/**
 * Code a box does not use is not loaded (docs/benchmarks.md, "Footprint"): `serve`
 * on SQLite, logging JSON, without `mqtt`, without templates or `sunspec:` devices,
 * loads neither the PostgreSQL engine, the OpenAPI document, the MQTT publisher,
 * pino-pretty, the template library, the SunSpec model tables, the code of the
 * other commands (endpoints, history) nor prom-client's Pushgateway and default
 * metrics; the OpenAPI document is loaded by the first
 * request for it and answers as before; a config that names a template and a
 * SunSpec device loads those two, and is checked as before.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningCli, repoRoot, runCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";

let workDir = "";
let server: RunningCli;
let baseUrl = "";
let record = "";

const loaded = (file = record) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((path) => (path.startsWith(`${repoRoot}/`) ? path.slice(repoRoot.length + 1) : path))
    : [];

const recordingEnv = (file: string) => ({
  BUN_OPTIONS: `--preload ${join(repoRoot, "test", "fixtures", "record-module-loads.ts")}`,
  FIELDHUB_RECORD_LOADS: file,
});

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-lazy-"));
  record = join(workDir, "loads.txt");
  const config = join(workDir, "fieldhub.yaml");
  writeFileSync(
    config,
    "organizations: [{ key: site, name: Site }]\ngateways: [{ serial: GW-1, name: Gateway, bus: { type: tcp } }]\n",
  );
  server = startCli(serveArgs(config, join(workDir, "data"), "--log-format", "json"), recordingEnv(record));
  baseUrl = await server.waitFor(servedUrl, 30_000);
}, 40_000);

afterAll(async () => {
  await server?.stop();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

test("serve on SQLite without mqtt, logging JSON, loads none of the watched modules", async () => {
  const health = await fetch(`${baseUrl}/healthz`);
  expect(health.status).toBe(200);
  expect(loaded()).toEqual([]);
});

test("the OpenAPI document is loaded by the first request for it, once", async () => {
  const first = await fetch(`${baseUrl}/docs/json`);
  expect(first.status).toBe(200);
  const document = (await first.json()) as { openapi: string; paths: Record<string, unknown> };
  expect(document.openapi).toStartWith("3.1");
  // The seven /v1 operations (test/http/openapi.test.ts checks the document itself).
  expect(Object.keys(document.paths).length).toBe(7);
  for (const path of Object.keys(document.paths)) expect(path).toStartWith("/v1/");
  const again = await fetch(`${baseUrl}/openapi.json`);
  expect(await again.json()).toEqual(document);
  expect(loaded()).toEqual(["src/http/docs/openapi.ts"]);
});

test("a config naming a template and a SunSpec device loads the template library and the model tables", async () => {
  const file = join(workDir, "check-loads.txt");
  const config = join(workDir, "devices.yaml");
  writeFileSync(
    config,
    `organizations: [{ key: site, name: Site }]
gateways:
  - serial: GW-2
    name: Gateway
    bus: { type: tcp }
    devices:
      - { name: meter, slave_id: 1, host: 127.0.0.1, template: { brand: Eastron, model: SDM630 } }
      - { name: inverter, slave_id: 2, host: 127.0.0.1, sunspec: { models: [1, 999] } }
`,
  );
  const result = await runCli(["config", "check", config], 30_000, recordingEnv(file));
  // Checked as before: the unknown model is named with the models the tables hold.
  expect(result.code).toBe(1);
  expect(result.stderr).toContain("is not a SunSpec model fieldhub knows: 999; it knows 1, 101,");
  expect(loaded(file).sort()).toEqual(["src/config/templates/library.ts", "src/modbus/sunspec/models/index.ts"]);
});
