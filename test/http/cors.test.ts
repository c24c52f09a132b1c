/**
 * CORS on /v1 (config `api.cors_origins`, docs/api.md section 4.11): a
 * browser dashboard on an allowed origin gets its preflight answered without a key
 * and the CORS headers on every answer, errors included; other origins get none.
 * Through a real `fieldhub serve` with its config, as a browser would call it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/index.ts";
import { createHttpApp } from "../../src/http/app.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { openStoreFile, type Store } from "../../src/store/index.ts";
import { runCli, servedUrl, startCli } from "../harness/cli.ts";

const dashboard = "https://dash.example.com";
const configYaml = `
api:
  cors_origins: ["${dashboard}", "http://localhost:5173"]
organizations:
  - key: acme
    name: Acme
gateways:
  - serial: CORS-1
    name: Greenhouse
    organization: acme
    bus: { type: tcp }
`;

let workDir: string;
let server: ReturnType<typeof startCli>;
let baseUrl: string;
let key: string;
let devicesOnlyKey: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-cors-"));
  const dataDir = join(workDir, "data");
  const configPath = join(workDir, "fieldhub.yaml");
  writeFileSync(configPath, configYaml);
  server = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
  baseUrl = await server.waitFor(servedUrl);
  const create = async (scopes: string, extra: string[] = []) => {
    const result = await runCli([
      "keys",
      "create",
      "--data",
      dataDir,
      "--org",
      "acme",
      "--name",
      scopes,
      "--scopes",
      scopes,
      ...extra,
    ]);
    expect(result.code).toBe(0);
    return result.stdout.trim();
  };
  key = await create("devices:read,registers:read,alerts:read");
  // Two requests a minute: the third is refused with 429.
  devicesOnlyKey = await create("devices:read", ["--rate-limit", "2"]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

const exposed = ["x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"];

function expectCorsFor(response: Response, origin: string) {
  expect(response.headers.get("access-control-allow-origin")).toBe(origin);
  expect(response.headers.get("vary")).toContain("Origin");
  const exposedHeaders = (response.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(/,\s*/);
  for (const header of exposed) expect(exposedHeaders).toContain(header);
}

describe("an allowed origin", () => {
  test("a browser's preflight then GET: 204 without a key, then the data with the CORS headers", async () => {
    // What a browser sends before a GET with an Authorization header from another origin.
    const preflight = await fetch(`${baseUrl}/v1/devices`, {
      method: "OPTIONS",
      headers: {
        origin: dashboard,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(preflight.status).toBe(204);
    expectCorsFor(preflight, dashboard);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
    expect((preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase()).toContain("authorization");
    expect(Number(preflight.headers.get("access-control-max-age"))).toBeGreaterThan(0);
    expect(await preflight.text()).toBe("");

    const answer = await fetch(`${baseUrl}/v1/devices`, {
      headers: { origin: dashboard, authorization: `Bearer ${key}` },
    });
    expect(answer.status).toBe(200);
    expectCorsFor(answer, dashboard);
    expect(answer.headers.get("x-ratelimit-remaining")).not.toBeNull();
    expect(((await answer.json()) as { data: unknown[] }).data.length).toBe(1);
  });

  test("a preflight for any path under /v1 is answered, a path that does not exist too", async () => {
    for (const path of ["/v1/introspect", "/v1/devices/00000000-0000-4000-8000-000000000000/readings", "/v1/nope"]) {
      const preflight = await fetch(`${baseUrl}${path}`, {
        method: "OPTIONS",
        headers: { origin: "http://localhost:5173", "access-control-request-method": "GET" },
      });
      expect(preflight.status).toBe(204);
      expectCorsFor(preflight, "http://localhost:5173");
    }
  });

  test("errors carry the headers too: 401, 403, 404 and 429 problem+json", async () => {
    const get = (path: string, bearer?: string) =>
      fetch(`${baseUrl}${path}`, {
        headers: { origin: dashboard, ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }) },
      });
    const answers = [
      [401, await get("/v1/devices")],
      [403, await get("/v1/alerts", devicesOnlyKey)],
      [404, await get("/v1/devices/00000000-0000-4000-8000-000000000000", devicesOnlyKey)],
      [429, await get("/v1/devices", devicesOnlyKey)],
    ] as const;
    for (const [status, response] of answers) {
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expectCorsFor(response, dashboard);
    }
    expect(answers[3][1].headers.get("retry-after")).not.toBeNull();
  });
});

describe("other origins and other paths", () => {
  test("an origin not in the list gets no CORS headers, and its preflight is not answered", async () => {
    const answer = await fetch(`${baseUrl}/v1/devices`, {
      headers: { origin: "https://evil.example", authorization: `Bearer ${key}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    // The answer depends on the origin, so caches must keep them apart.
    expect(answer.headers.get("vary")).toContain("Origin");
    const preflight = await fetch(`${baseUrl}/v1/devices`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(401);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    // A trailing slash is another origin (browsers never send one).
    const slash = await fetch(`${baseUrl}/v1/devices`, {
      headers: { origin: `${dashboard}/`, authorization: `Bearer ${key}` },
    });
    expect(slash.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("a request without Origin (curl, a server) is unchanged", async () => {
    const answer = await fetch(`${baseUrl}/v1/devices`, { headers: { authorization: `Bearer ${key}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("the admin API is not opened to other origins", async () => {
    const preflight = await fetch(`${baseUrl}/admin/api/session`, {
      method: "OPTIONS",
      headers: { origin: dashboard, "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe('cors_origins: ["*"]', () => {
  let store: Store;
  let app: Awaited<ReturnType<typeof createHttpApp>>;
  let url: string;
  beforeAll(async () => {
    store = openStoreFile(":memory:");
    app = await createHttpApp({
      store,
      clock: new ManualClock(Date.UTC(2026, 0, 1)),
      logger: silentLogger(),
      publicUrl: null,
      defaultLimitPerMinute: 1000,
      corsOrigins: ["*"],
    });
    app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
    url = `http://127.0.0.1:${app.server?.port}`;
  });
  afterAll(async () => {
    await app.stop(true);
    await store.close();
  });

  test("any origin: preflight 204 and `*` on answers, without Vary", async () => {
    const preflight = await fetch(`${url}/v1/devices`, {
      method: "OPTIONS",
      headers: { origin: "https://anywhere.example", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    const refused = await fetch(`${url}/v1/devices`, { headers: { origin: "https://anywhere.example" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("vary")).toBeNull();
  });
});

describe("the config setting", () => {
  const withOrigins = (origins: string) =>
    parseConfig(`api:\n  cors_origins: ${origins}\norganizations:\n  - key: acme\n    name: Acme\n`);

  test("defaults to no origins, and takes origins and *", () => {
    const none = withOrigins("[]");
    expect(none.ok && none.config.http.corsOrigins).toEqual([]);
    const some = withOrigins('["*", "https://dash.example.com", "http://10.0.0.5:3000"]');
    expect(some.ok && some.config.http.corsOrigins).toEqual(["*", "https://dash.example.com", "http://10.0.0.5:3000"]);
  });

  test("refuses a URL with a path or a trailing slash, naming the item", () => {
    const result = withOrigins('["https://dash.example.com/", "dash.example.com"]');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((problem) => problem.path)).toEqual(["api.cors_origins[0]", "api.cors_origins[1]"]);
    expect(result.problems[0]?.message).toContain("scheme://host[:port]");
  });
});
