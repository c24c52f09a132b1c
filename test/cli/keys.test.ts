/**
 * `fieldhub keys create|list|revoke` as a user runs them: separate processes on the
 * data directory of a running `fieldhub serve`, checked through its HTTP API
 * (product: "A key is shown once; only its hash is stored"; docs/api.md section 5).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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
  - serial: KEYS-1
    name: Greenhouse 1
    organization: acme
    bus: { type: tcp }
  - serial: KEYS-2
    name: Substation
    organization: globex
    bus: { type: tcp }
`;

let workDir: string;
let dataDir: string;
let server: ReturnType<typeof startCli>;
let baseUrl: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-keys-cli-"));
  dataDir = join(workDir, "data");
  const configPath = join(workDir, "fieldhub.yaml");
  writeFileSync(configPath, configYaml);
  server = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
  baseUrl = await server.waitFor(servedUrl);
}, 30_000);

afterAll(async () => {
  if (server !== undefined && server.proc.exitCode === null) {
    server.proc.kill("SIGTERM");
    const exited = await Promise.race([server.proc.exited, Bun.sleep(5_000).then(() => null)]);
    if (exited === null) server.proc.kill("SIGKILL");
  }
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

async function get(path: string, key: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: JSON.parse(text) as any,
    text,
  };
}

interface CreatedJson {
  key: string;
  id: string;
  prefix: string;
  name: string;
  organization: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  rate_limit_per_minute: number | null;
}

interface ListedJson {
  id: string;
  prefix: string;
  name: string;
  organization: string;
  scopes: string[];
  kind: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

async function createKey(name: string, extra: string[] = [], scopes = "devices:read"): Promise<CreatedJson> {
  const result = await runCli([
    "keys",
    "create",
    "--data",
    dataDir,
    "--org",
    "acme",
    "--name",
    name,
    "--scopes",
    scopes,
    "--json",
    ...extra,
  ]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as CreatedJson;
}

async function listKeys(): Promise<ListedJson[]> {
  const result = await runCli(["keys", "list", "--data", dataDir, "--json"]);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as ListedJson[];
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Everything SQLite may hold of the store: the database file and its WAL. */
function storeBytes(): string {
  const file = join(dataDir, "fieldhub.db");
  let bytes = readFileSync(file).toString("latin1");
  if (existsSync(`${file}-wal`)) bytes += readFileSync(`${file}-wal`).toString("latin1");
  return bytes;
}

describe("keys create while serve runs", () => {
  test("prints the key once as JSON, and the key works on the very next request", async () => {
    const before = Date.now();
    const created = await createKey("integration-first");
    expect(created.key).toMatch(/^fh_[0-9a-f]{40}$/);
    expect(created.prefix).toBe(created.key.slice(0, created.prefix.length));
    expect(created.prefix.length).toBeGreaterThanOrEqual(6);
    expect(created.prefix.length).toBeLessThan(created.key.length);
    expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(created.name).toBe("integration-first");
    expect(created.organization).toBe("acme");
    expect(created.scopes).toEqual(["devices:read"]);
    expect(created.expires_at).toBeNull();
    expect(Date.parse(created.created_at)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(created.created_at)).toBeLessThanOrEqual(Date.now() + 1_000);

    const devices = await get("/v1/devices", created.key);
    expect(devices.status).toBe(200);
    // The key's organisation only: acme's gateway, not globex's.
    expect(devices.body.data.map((gateway: { serial: string }) => gateway.serial)).toEqual(["KEYS-1"]);
    expect(devices.body.meta.total).toBe(1);

    // Its scopes are the ones given: alerts need alerts:read.
    const alerts = await get("/v1/alerts", created.key);
    expect(alerts.status).toBe(403);
    expect(alerts.body.code).toBe("insufficient_scope");

    const introspect = await get("/v1/introspect", created.key);
    expect(introspect.status).toBe(200);
    expect(introspect.body.data.key.name).toBe("integration-first");
    expect(introspect.body.data.key.scopes).toEqual(["devices:read"]);
    expect(introspect.body.data.organization.name).toBe("Acme Greenhouses");
  });

  test("without --json only the key is on stdout; the notice goes to stderr", async () => {
    const result = await runCli([
      "keys",
      "create",
      "--data",
      dataDir,
      "--org",
      "acme",
      "--name",
      "plain-output",
      "--scopes",
      "devices:read,alerts:read",
    ]);
    expect(result.code).toBe(0);
    const key = result.stdout.trim();
    expect(result.stdout).toBe(`${key}\n`);
    expect(key).toMatch(/^fh_[0-9a-f]{40}$/);
    expect(result.stderr).toContain("plain-output");
    expect(result.stderr).not.toContain(key);
    expect((await get("/v1/alerts", key)).status).toBe(200);
    expect((await get("/v1/devices", key)).status).toBe(200);
  });

  test("a key with a future expiry is accepted and reports it", async () => {
    const created = await createKey("expires-later", ["--expires", "2999-01-01T00:00:00Z"]);
    expect(Date.parse(created.expires_at ?? "")).toBe(Date.UTC(2999, 0, 1));
    expect((await get("/v1/devices", created.key)).status).toBe(200);
  });
});

describe("keys create --scopes registers:write", () => {
  test("is accepted and listed with the key", async () => {
    const created = await createKey("writer", [], "registers:read,registers:write");
    const listed = (await listKeys()).find((key) => key.name === "writer");
    expect(listed?.scopes).toEqual(["registers:read", "registers:write"]);
    expect(created.key).toStartWith("fh_");
  });
});

describe("keys list", () => {
  test("shows each key by prefix, never the key itself or its hash", async () => {
    const created = await createKey("listed-key");
    const result = await runCli(["keys", "list", "--data", dataDir, "--json"]);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as ListedJson[];
    const row = rows.find((candidate) => candidate.id === created.id);
    expect(row).toBeDefined();
    expect(row?.prefix).toBe(created.prefix);
    expect(row?.name).toBe("listed-key");
    expect(row?.organization).toBe("acme");
    expect(row?.scopes).toEqual(["devices:read"]);
    expect(row?.revoked_at).toBeNull();
    expect(result.stdout).not.toContain(created.key);
    expect(result.stdout).not.toContain(sha256(created.key));
    for (const listed of rows) {
      expect(Object.keys(listed)).not.toContain("key");
      expect(Object.keys(listed)).not.toContain("hash");
    }

    const text = await runCli(["keys", "list", "--data", dataDir]);
    expect(text.code).toBe(0);
    const line = text.stdout.split("\n").find((candidate) => candidate.includes(created.id));
    expect(line).toBeDefined();
    expect(line).toContain(created.prefix);
    expect(text.stdout).not.toContain(created.key);
    expect(text.stdout).not.toContain(sha256(created.key));
  });
});

describe("keys revoke", () => {
  test("by prefix: the very next request is 401 api_key_revoked", async () => {
    const created = await createKey("to-revoke");
    expect((await get("/v1/devices", created.key)).status).toBe(200);

    const result = await runCli(["keys", "revoke", "--data", dataDir, created.prefix]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("revoked 1 key");

    const after = await get("/v1/devices", created.key);
    expect(after.status).toBe(401);
    expect(after.contentType).toBe("application/problem+json");
    expect(after.body.code).toBe("api_key_revoked");

    const row = (await listKeys()).find((candidate) => candidate.id === created.id);
    expect(row?.revoked_at).not.toBeNull();
  });

  test("by id works too, and revoking nothing is an error", async () => {
    const created = await createKey("revoke-by-id");
    const result = await runCli(["keys", "revoke", "--data", dataDir, created.id]);
    expect(result.code).toBe(0);
    expect((await get("/v1/devices", created.key)).body.code).toBe("api_key_revoked");

    const again = await runCli(["keys", "revoke", "--data", dataDir, created.id]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(created.id);
  });
});

describe("keys create refuses", () => {
  const refusedCases: { title: string; args: string[]; mentions: RegExp }[] = [
    {
      title: "an expiry in the past",
      args: [
        "--org",
        "acme",
        "--name",
        "refused-past",
        "--scopes",
        "devices:read",
        "--expires",
        "2020-01-01T00:00:00Z",
      ],
      mentions: /--expires.*past/,
    },
    {
      title: "an expiry that is not a date-time",
      args: ["--org", "acme", "--name", "refused-bad-date", "--scopes", "devices:read", "--expires", "tomorrow"],
      mentions: /--expires.*tomorrow/,
    },
    {
      title: "an unknown scope",
      args: ["--org", "acme", "--name", "refused-scope", "--scopes", "devices:read,devices:write"],
      mentions: /devices:write/,
    },
    {
      title: "an unknown organisation",
      args: ["--org", "initech", "--name", "refused-org", "--scopes", "devices:read"],
      mentions: /"initech"/,
    },
    {
      title: "a missing --org",
      args: ["--name", "refused-no-org", "--scopes", "devices:read"],
      mentions: /--org/,
    },
  ];

  for (const { title, args, mentions } of refusedCases) {
    test(title, async () => {
      const before = await listKeys();
      const result = await runCli(["keys", "create", "--data", dataDir, ...args, "--json"]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(mentions);
      expect(result.stdout).not.toMatch(/fh_[0-9a-f]{40}/);
      const after = await listKeys();
      expect(after.length).toBe(before.length);
    });
  }

  test("the unknown-organisation message names the organisations that exist", async () => {
    const result = await runCli([
      "keys",
      "create",
      "--data",
      dataDir,
      "--org",
      "initech",
      "--name",
      "x",
      "--scopes",
      "devices:read",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("acme");
    expect(result.stderr).toContain("globex");
  });
});

describe("the store", () => {
  test("holds no plain key, only what identifies it", async () => {
    const created = await createKey("never-stored-plain");
    // The row is there (its name and prefix are in the bytes we read) ...
    const bytes = storeBytes();
    expect(bytes).toContain("never-stored-plain");
    expect(bytes).toContain(created.prefix);
    // ... but not the key.
    expect(bytes).not.toContain(created.key);
    expect(bytes).not.toContain(created.key.slice(created.prefix.length));
  });
});
