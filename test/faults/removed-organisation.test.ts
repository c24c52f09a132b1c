/**
 * An organisation removed from the config kept its access
 * after a restart: its keys answered 200, its webhook endpoints stayed enabled,
 * and `keys create --org` still accepted it. Wanted: removal ends access,
 * permanently (re-adding the same key does not bring the old keys back).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../harness/cli.ts";
import { Cleanup } from "./harness/cleanup.ts";
import { createKey, startServe } from "./harness/serve.ts";

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

const both = "organizations:\n  - { key: stays, name: Stays }\n  - { key: leaves, name: Leaves }\n";
const one = "organizations:\n  - { key: stays, name: Stays }\n";

test("after removal and a restart: keys refused with api_key_revoked, endpoints disabled, the CLI refuses the organisation; re-adding it does not revive them", async () => {
  const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-removed-org-"));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  const first = await startServe({ workDir, yaml: both });
  cleanup.add(() => first.stop());
  const { key } = await createKey(first.dataDir, "leaves");
  const endpoint = await runCli([
    "endpoints",
    "create",
    "--data",
    first.dataDir,
    "--org",
    "leaves",
    "--url",
    "http://127.0.0.1:9/hook",
    "--json",
  ]);
  expect(endpoint.code).toBe(0);
  const devices = (url: string) => fetch(`${url}/v1/devices`, { headers: { authorization: `Bearer ${key}` } });
  expect((await devices(first.url)).status).toBe(200);
  await first.stop();

  const second = await startServe({ workDir, yaml: one });
  cleanup.add(() => second.stop());
  const refused = await devices(second.url);
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { code: string }).code).toBe("api_key_revoked");
  const listed = await runCli(["endpoints", "list", "--data", second.dataDir, "--json"]);
  const endpoints = JSON.parse(listed.stdout) as
    | { data?: { enabled?: boolean; status?: string }[] }
    | { enabled?: boolean; status?: string }[];
  const rows = Array.isArray(endpoints) ? endpoints : (endpoints.data ?? []);
  expect(rows.length).toBe(1);
  for (const row of rows)
    expect(row.enabled === false || (row.status !== undefined && row.status !== "enabled")).toBe(true);
  const created = await runCli([
    "keys",
    "create",
    "--data",
    second.dataDir,
    "--org",
    "leaves",
    "--name",
    "late",
    "--scopes",
    "devices:read",
  ]);
  expect(created.code).not.toBe(0);
  await second.stop();

  // Re-adding the same organisation key later does not hand the old keys to it.
  const third = await startServe({ workDir, yaml: both });
  cleanup.add(() => third.stop());
  expect((await devices(third.url)).status).toBe(401);
}, 40_000);
