/**
 * Against a real `fieldhub serve`: requests a
 * browser would never send (no Host, an odd path, a /V1 prefix, headers past
 * Bun's limit) and a client guessing keys.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cleanup } from "./harness/cleanup.ts";
import { rawRequest } from "./harness/raw-http.ts";
import { createKey, type RunningServe, startServe } from "./harness/serve.ts";

// Failed keys allowed per minute and address: the default limit (docs/api.md section 8).
const defaultLimit = 5;
const cleanup = new Cleanup();
let server: RunningServe;
let key = "";

beforeAll(async () => {
  const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-http-"));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  server = await startServe({
    workDir,
    yaml: `api: { rate_limit_per_minute: ${defaultLimit} }\norganizations: [{ key: site, name: Site }]\n`,
  });
  cleanup.add(() => server.stop());
  key = (await createKey(server.dataDir, "site")).key;
}, 30_000);
afterAll(() => cleanup.run());

const apiHeaders = ["x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];

function expectApiHeaders(headers: Record<string, string>) {
  for (const name of apiHeaders)
    expect({ name, value: headers[name] ?? null }).toEqual({ name, value: expect.any(String) });
}

function expectProblem(
  response: { status: number; headers: Record<string, string>; body: string },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toContain("application/problem+json");
  const body = JSON.parse(response.body) as { code: string; request_id: string };
  expect(body.code).toBe(code);
  expect(body.request_id).toBe(response.headers["x-request-id"] as string);
}

describe("a request without a valid Host header", () => {
  test("gets the same answer as with one: the gate runs, problem+json, no stack trace in the log", async () => {
    const cases = [
      { name: "HTTP/1.0 without Host", head: "GET /v1/devices HTTP/1.0\r\n" },
      { name: "an invalid Host", head: "GET /v1/devices HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n" },
      {
        name: "a Host with an impossible port",
        head: "GET /v1/devices HTTP/1.1\r\nHost: fieldhub:99999\r\nConnection: close\r\n",
      },
    ];
    for (const { head } of cases) {
      // The gate runs: without a key, 401; with one, the answer the API gives.
      expectProblem(await rawRequest(server.url, `${head}\r\n`), 401, "missing_api_key");
      const withKey = await rawRequest(server.url, `${head}Authorization: Bearer ${key}\r\n\r\n`);
      expect(withKey.status).toBe(200);
      expectApiHeaders(withKey.headers);
      expect((JSON.parse(withKey.body) as { data: unknown[] }).data).toEqual([]);
      const missing = await rawRequest(
        server.url,
        `${head.replace("/v1/devices", "/v1/devices/00000000-0000-4000-8000-000000000000")}Authorization: Bearer ${key}\r\n\r\n`,
      );
      expectProblem(missing, 404, "not_found");
      expectProblem(
        await rawRequest(server.url, `${head.replace("/v1/devices", "/admin/api/me")}\r\n`),
        401,
        "unauthorized",
      );
    }
    await Bun.sleep(200);
    expect(server.logLines().filter((line) => line.level !== undefined && Number(line.level) >= 50)).toEqual([]);
  }, 20_000);
});

describe("every answer to a /v1 request carries the spec's headers", () => {
  test("odd paths under /v1 (dot segments, /V1) answer 404 with X-Request-Id and X-RateLimit-*", async () => {
    for (const path of ["/v1/%2e%2e/%2e%2e/etc/passwd", "/v1/../../etc/passwd", "/V1/devices", "/v1/nothing"]) {
      const response = await rawRequest(
        server.url,
        `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      );
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expectApiHeaders(response.headers);
    }
  }, 20_000);

  test("headers past Bun's limit: 431 from Bun itself, which lets no handler add headers (docs/api.md section 4.10)", async () => {
    const response = await rawRequest(
      server.url,
      `GET /v1/devices HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\nConnection: close\r\n\r\n`,
    );
    expect(response.status).toBe(431);
    // What Bun allows: nothing of ours runs. Documented; the process is unharmed.
    expect(server.alive()).toBe(true);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 20_000);
});

describe("guessing keys is throttled", () => {
  test(`after ${defaultLimit} failed keys a minute from one address, 429 rate_limited with Retry-After, before any key lookup`, async () => {
    // A server of its own: the other tests' 401s from this address count in the same minute.
    const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-guess-"));
    cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
    const guessed = await startServe({
      workDir,
      yaml: `api: { rate_limit_per_minute: ${defaultLimit} }\norganizations: [{ key: site, name: Site }]\n`,
    });
    cleanup.add(() => guessed.stop());
    const rightKey = (await createKey(guessed.dataDir, "site")).key;
    // Start inside a minute with room for the whole run (windows reset on the minute).
    if (Date.now() % 60_000 > 55_000) await Bun.sleep(60_000 - (Date.now() % 60_000) + 100);
    const guess = (n: number) =>
      fetch(`${guessed.url}/v1/devices`, {
        headers: { authorization: `Bearer fh_${n.toString(16).padStart(40, "0")}` },
      });
    const statuses: number[] = [];
    let last = new Response();
    for (let n = 0; n < defaultLimit + 3; n++) {
      last = await guess(n);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array(defaultLimit).fill(401), 429, 429, 429]);
    expect(last.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await last.json()) as { code: string }).code).toBe("rate_limited");
    // Refused before the lookup: even the right key from this address waits for the next minute.
    const right = await fetch(`${guessed.url}/v1/devices`, { headers: { authorization: `Bearer ${rightKey}` } });
    expect(right.status).toBe(429);
  }, 80_000);
});
