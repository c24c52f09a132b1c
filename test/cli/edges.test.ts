/**
 * `fieldhub edges create|list|revoke` as an operator runs them on a central: separate
 * processes on the data directory of a running `fieldhub serve` (docs/fleet.md,
 * "Edge tokens"). A token is printed once, only its hash is stored, it is bound to
 * one organisation, and a revoked token is marked at once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, servedUrl, startCli } from "../harness/cli.ts";

const configYaml = `
organizations:
  - key: acme
    name: Acme Greenhouses
  - key: globex
    name: Globex Utilities
gateways:
  - serial: EDGES-1
    name: Greenhouse 1
    organization: acme
    bus: { type: tcp }
`;

let workDir: string;
let dataDir: string;
let server: ReturnType<typeof startCli>;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-edges-cli-"));
  dataDir = join(workDir, "data");
  const configPath = join(workDir, "fieldhub.yaml");
  writeFileSync(configPath, configYaml);
  server = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
  await server.waitFor(servedUrl);
}, 30_000);

afterAll(async () => {
  if (server !== undefined && server.proc.exitCode === null) {
    server.proc.kill("SIGTERM");
    const exited = await Promise.race([server.proc.exited, Bun.sleep(5_000).then(() => null)]);
    if (exited === null) server.proc.kill("SIGKILL");
  }
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

interface ListedEdge {
  id: string;
  prefix: string;
  name: string;
  organization: string;
  status: "active" | "revoked";
  created_at: string;
  revoked_at: string | null;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Everything SQLite may hold of the store: the database file and its WAL. */
function storeBytes(): string {
  const file = join(dataDir, "fieldhub.db");
  let bytes = readFileSync(file).toString("latin1");
  if (existsSync(`${file}-wal`)) bytes += readFileSync(`${file}-wal`).toString("latin1");
  return bytes;
}

async function listEdges(...args: string[]): Promise<ListedEdge[]> {
  const result = await runCli(["edges", "list", "--data", dataDir, "--json", ...args]);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as ListedEdge[];
}

test("create prints the token once on stdout; the store keeps its hash, never the token", async () => {
  const before = Date.now();
  const result = await runCli(["edges", "create", "--data", dataDir, "--org", "acme", "--name", "greenhouse-north"]);
  expect(result.code).toBe(0);
  const token = result.stdout.trim();
  expect(token).toMatch(/^fhe_[0-9a-f]{64}$/);
  expect(result.stdout).toBe(`${token}\n`);
  expect(result.stderr).toContain('site "greenhouse-north"');
  expect(result.stderr).toContain("shown only this once");
  expect(result.stderr).not.toContain(token);

  const bytes = storeBytes();
  expect(bytes).not.toContain(token);
  expect(bytes).toContain(sha256(token));

  const listed = (await listEdges()).find((edge) => edge.name === "greenhouse-north");
  expect(listed).toMatchObject({ organization: "acme", status: "active", revoked_at: null });
  expect(token.startsWith(listed?.prefix ?? "-")).toBe(true);
  expect(listed?.prefix.length).toBeLessThan(token.length / 4);
  expect(Date.parse(listed?.created_at ?? "")).toBeGreaterThanOrEqual(before - 1_000);
  const text = await runCli(["edges", "list", "--data", dataDir]);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain("greenhouse-north");
  expect(text.stdout).not.toContain(token);
});

test("a site name is unique among an organisation's live tokens; another organisation may use it", async () => {
  const first = await runCli(["edges", "create", "--data", dataDir, "--org", "acme", "--name", "pumphouse", "--json"]);
  expect(first.code).toBe(0);
  const created = JSON.parse(first.stdout) as ListedEdge & { token: string };
  expect(created).toMatchObject({ name: "pumphouse", organization: "acme", status: "active" });
  expect(created.token).toMatch(/^fhe_[0-9a-f]{64}$/);

  const again = await runCli(["edges", "create", "--data", dataDir, "--org", "acme", "--name", "pumphouse"]);
  expect(again.code).toBe(1);
  expect(again.stdout).toBe("");
  expect(again.stderr).toContain('already has an edge token named "pumphouse"');

  const other = await runCli(["edges", "create", "--data", dataDir, "--org", "globex", "--name", "pumphouse"]);
  expect(other.code).toBe(0);
  expect((await listEdges("--org", "globex")).map((edge) => edge.name)).toEqual(["pumphouse"]);
  expect((await listEdges("--org", "acme")).filter((edge) => edge.name === "pumphouse")).toHaveLength(1);
});

test("revoke by prefix or id marks the token at once; the name is free again; a second revoke is refused", async () => {
  const made = await runCli(["edges", "create", "--data", dataDir, "--org", "acme", "--name", "boiler-room", "--json"]);
  const created = JSON.parse(made.stdout) as ListedEdge & { token: string };

  const revoked = await runCli(["edges", "revoke", "--data", dataDir, created.prefix]);
  expect(revoked).toMatchObject({ code: 0, stdout: "revoked 1 edge token\n" });
  const listed = (await listEdges()).find((edge) => edge.id === created.id);
  expect(listed?.status).toBe("revoked");
  expect(Date.parse(listed?.revoked_at ?? "")).toBeGreaterThan(0);

  const twice = await runCli(["edges", "revoke", "--data", dataDir, created.id]);
  expect(twice.code).toBe(1);
  expect(twice.stderr).toContain(`no active edge token with id or prefix "${created.id}"`);

  const renewed = await runCli(["edges", "create", "--data", dataDir, "--org", "acme", "--name", "boiler-room"]);
  expect(renewed.code).toBe(0);
  expect(renewed.stdout.trim()).not.toBe(created.token);
  const byId = await runCli([
    "edges",
    "revoke",
    "--data",
    dataDir,
    (await listEdges()).find((edge) => edge.name === "boiler-room" && edge.status === "active")?.id ?? "-",
  ]);
  expect(byId.stdout).toBe("revoked 1 edge token\n");
});

test("bad input: an unknown organisation names the known ones; usage errors exit 2 and change nothing", async () => {
  const count = (await listEdges()).length;
  const unknown = await runCli(["edges", "create", "--data", dataDir, "--org", "initech", "--name", "x"]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('no organisation "initech"');
  expect(unknown.stderr).toContain("known: acme, globex");

  for (const args of [
    ["edges"],
    ["edges", "rotate", "--data", dataDir],
    ["edges", "create", "--data", dataDir, "--name", "x"],
    ["edges", "create", "--data", dataDir, "--org", "acme"],
    ["edges", "create", "--data", dataDir, "--org", "acme", "--name", "  "],
    ["edges", "revoke", "--data", dataDir],
    ["edges", "revoke", "--data", dataDir, "a", "b"],
  ]) {
    const result = await runCli(args);
    expect({ args, code: result.code }).toEqual({ args, code: 2 });
    expect(result.stderr).toMatch(/Usage:\s+fieldhub edges/);
  }
  expect(await listEdges()).toHaveLength(count);
});
