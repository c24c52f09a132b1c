/**
 * Generated malformed, boundary and hostile requests against every /v1
 * operation: nothing a client sends may produce a 5xx, and every error is a
 * problem+json with a code of docs/api.md section 7.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { apiErrorCodes } from "../../src/lib/errors.ts";
import { seededRandom } from "../harness/seeded-random.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
  await site.record([
    {
      registerId: site.registerId("ACME-1/Climate computer/air_temperature"),
      ts: site.clock.now() - 60_000,
      rawValue: 215,
    },
  ]);
});
afterAll(async () => {
  await site.stop();
});

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  const next = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, pick };
}

const values = [
  "",
  "0",
  "1",
  "-1",
  "100",
  "101",
  "1000",
  "1001",
  "1e3",
  "0x10",
  "1.5",
  " 5",
  "+5",
  "NaN",
  "Infinity",
  "null",
  "true",
  "[]",
  "{}",
  "%ZZ",
  "%",
  "%00",
  "%C3%A9",
  "é",
  "😀",
  "'; DROP TABLE readings; --",
  "<script>",
  "\\u0000",
  "9".repeat(40),
  "a".repeat(5000),
  "asc",
  "desc",
  "online",
  "resolved",
  "critical",
  "2026-03-10T11:00:00Z",
  "2026-03-10",
  "2026-02-30T00:00:00Z",
  "2026-03-10T11:00:00+25:00",
  "1970-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  "0000-01-01T00:00:00Z",
  "-000001-01-01T00:00:00Z",
  "00000000-0000-0000-0000-000000000000",
  "A8B1C1E6-17D8-531E-A0FB-B038FB7BC781",
  "not-a-uuid",
  "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4_QEFCQw",
];
const parameterNames = [
  "limit",
  "offset",
  "status",
  "severity",
  "device_id",
  "modbus_device_id",
  "register_id",
  "since",
  "until",
  "order",
  "cursor",
  "unknown",
  "LIMIT",
  "limit[]",
  "__proto__",
  "constructor",
  "",
];

function hostileRequest(generator: ReturnType<typeof random>, site: TestSite): { url: string; init: RequestInit } {
  const { pick, next } = generator;
  const gateway = pick([
    ids.acmeGateway1,
    ids.globexGateway,
    "00000000-0000-0000-0000-000000000000",
    "x",
    "%ZZ",
    "a".repeat(300),
  ]);
  const path = pick([
    "/v1/introspect",
    "/v1/devices",
    `/v1/devices/${gateway}`,
    `/v1/devices/${gateway}/registers`,
    `/v1/devices/${gateway}/readings`,
    "/v1/alerts",
    "/v1/devices//readings",
    "/v1/../v1/devices",
    `/v1/devices/${gateway}/readings/extra`,
    `/v1/${"x".repeat(3000)}`,
    "/v1/%2e%2e/%2e%2e/etc/passwd",
  ]);
  const parameters: string[] = [];
  const count = Math.floor(next() * 5);
  for (let index = 0; index < count; index++) {
    const name = pick(parameterNames);
    const value = pick(values);
    // Half of the values raw (broken percent-encoding included), half encoded.
    parameters.push(next() < 0.5 ? `${name}=${value}` : `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  const authorization = pick([
    `Bearer ${site.keys.acme}`,
    `Bearer ${site.keys.acme}`,
    `Bearer ${site.keys.globex}`,
    `Bearer ${site.keys.acmeDevicesOnly}`,
    "Bearer",
    `Bearer ${"x".repeat(6000)}`,
    "Basic YTpi",
    `bearer  ${site.keys.acme}  `,
    "",
  ]);
  const headers: Record<string, string> = {};
  if (authorization !== "") headers.authorization = authorization;
  if (next() < 0.2)
    headers["content-type"] = pick(["application/json", "text/plain", "multipart/form-data; boundary=x"]);
  const method = next() < 0.9 ? "GET" : pick(["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]);
  const init: RequestInit = { method, headers };
  if (method !== "GET" && method !== "OPTIONS" && next() < 0.5) init.body = pick(["{", "{}", "x".repeat(10_000)]);
  return { url: `${site.baseUrl}${path}${parameters.length > 0 ? `?${parameters.join("&")}` : ""}`, init };
}

// 10,000 in every run; the nightly form (scripts/nightly) sets more, and another seed.
const requestCount = Number(process.env.FIELDHUB_HOSTILE_REQUESTS ?? 10_000);
const seed = Number(process.env.FIELDHUB_HOSTILE_SEED ?? 20261122);

test(`${requestCount} generated hostile requests: no 5xx, every error a problem with a spec code`, async () => {
  const generator = random(seed);
  const statuses = new Map<number, number>();
  for (let index = 0; index < requestCount; index++) {
    const { url, init } = hostileRequest(generator, site);
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch {
      continue; // a URL the client itself refuses to send never reached the server
    }
    const text = await response.text();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    const context = `${init.method} ${url.slice(0, 200)} -> ${response.status} ${text.slice(0, 200)}`;
    expect(response.status, context).toBeLessThan(500);
    expect(response.headers.get("x-request-id"), context).toMatch(/^req_[0-9a-f]+$/);
    if (response.status >= 400) {
      expect(response.headers.get("content-type"), context).toBe("application/problem+json");
      const body = JSON.parse(text);
      expect(apiErrorCodes as string[], context).toContain(body.code);
      expect(body.request_id, context).toBe(response.headers.get("x-request-id"));
    }
  }
  // The generator must reach the interesting answers, or it proves little.
  for (const status of [200, 400, 401, 403, 404]) expect(statuses.get(status) ?? 0).toBeGreaterThan(10);
}, 300_000);
