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
// A dashboard's origin the server allows, so that its preflights are answered (docs/api.md).
const dashboard = "https://dash.example.com";
const cleanup = new Cleanup();
let server: RunningServe;
let key = "";

beforeAll(async () => {
  const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-http-"));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  server = await startServe({
    workDir,
    yaml: `api: { rate_limit_per_minute: ${defaultLimit}, cors_origins: ["${dashboard}"] }\norganizations: [{ key: site, name: Site }]\n`,
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

  test("a preflight shows the client address's window without counting against it", async () => {
    const preflight = () =>
      rawRequest(
        server.url,
        `OPTIONS /v1/devices HTTP/1.1\r\nHost: x\r\nOrigin: ${dashboard}\r\nAccess-Control-Request-Method: GET\r\nConnection: close\r\n\r\n`,
      );
    // Inside one minute (windows reset on the minute), three preflights leave the same allowance.
    if (Date.now() % 60_000 > 55_000) await Bun.sleep(60_000 - (Date.now() % 60_000) + 100);
    const remaining: string[] = [];
    for (let n = 0; n < 3; n++) {
      const response = await preflight();
      expect(response.status).toBe(204);
      expect(response.headers["x-ratelimit-limit"]).toBe(String(defaultLimit));
      remaining.push(response.headers["x-ratelimit-remaining"] ?? "missing");
    }
    // Run before the tests that use the window up: there is room left to see a count.
    expect(Number(remaining[0])).toBeGreaterThan(0);
    expect(remaining).toEqual([remaining[0]!, remaining[0]!, remaining[0]!]);
    // A request without a key from the same address is counted in that window: the preflight's figure moves.
    await fetch(`${server.url}/v1/devices`);
    const after = Number((await preflight()).headers["x-ratelimit-remaining"]);
    expect(after).toBe(Number(remaining[0]) - 1);
  }, 80_000);

  test("every method on every /v1 path, with a key, without one, and as a browser's preflight", async () => {
    const openApi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const someId = "00000000-0000-4000-8000-000000000000";
    const paths = [
      ...Object.keys(openApi.paths)
        .filter((path) => path.startsWith("/v1/"))
        .map((path) => path.replaceAll(/\{[^}]+\}/g, someId)),
      "/v1",
      "/v1/nothing",
    ];
    expect(paths.length).toBeGreaterThanOrEqual(7);
    const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    const answers: { request: string; status: number; missing: string[] }[] = [];
    const check = async (request: string, head: string) => {
      const response = await rawRequest(server.url, `${head}Host: x\r\nConnection: close\r\n\r\n`);
      const missing = apiHeaders.filter((name) => response.headers[name] === undefined);
      answers.push({ request, status: response.status, missing });
      return response;
    };
    for (const path of paths) {
      for (const method of methods) {
        await check(`${method} ${path} with a key`, `${method} ${path} HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n`);
        await check(`${method} ${path} without a key`, `${method} ${path} HTTP/1.1\r\n`);
      }
      const preflight = await check(
        `preflight ${path}`,
        `OPTIONS ${path} HTTP/1.1\r\nOrigin: ${dashboard}\r\nAccess-Control-Request-Method: GET\r\n`,
      );
      expect({ path, status: preflight.status }).toEqual({ path, status: 204 });
    }
    expect(answers.filter((answer) => answer.missing.length > 0 || answer.status === 0)).toEqual([]);
    expect(answers.length).toBe(paths.length * (methods.length * 2 + 1));
  }, 60_000);

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
