/**
 * Code a box does not use is not loaded (docs/benchmarks.md, "Footprint"): `serve`
 * on SQLite, logging JSON, without `mqtt`, loads neither the PostgreSQL engine, the
 * OpenAPI document, the MQTT publisher nor pino-pretty; the OpenAPI document is
 * loaded by the first request for it and answers as before.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningCli, repoRoot, serveArgs, servedUrl, startCli } from "../harness/cli.ts";

let workDir = "";
let server: RunningCli;
let baseUrl = "";
let record = "";

const loaded = () =>
  existsSync(record)
    ? readFileSync(record, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((path) => (path.startsWith(`${repoRoot}/`) ? path.slice(repoRoot.length + 1) : path))
    : [];

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-lazy-"));
  record = join(workDir, "loads.txt");
  const config = join(workDir, "fieldhub.yaml");
  writeFileSync(
    config,
    "organizations: [{ key: site, name: Site }]\ngateways: [{ serial: GW-1, name: Gateway, bus: { type: tcp } }]\n",
  );
  server = startCli(serveArgs(config, join(workDir, "data"), "--log-format", "json"), {
    BUN_OPTIONS: `--preload ${join(repoRoot, "test", "fixtures", "record-module-loads.ts")}`,
    FIELDHUB_RECORD_LOADS: record,
  });
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
