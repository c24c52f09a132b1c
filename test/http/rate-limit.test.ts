/** docs/api.md sections 4 (headers on every response), 5.6 (sandbox key per visitor), 7 (429) and 8 (limits). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { type ApiResponse, call, expectApiHeaders, expectProblem } from "../harness/http.ts";
import { ids, startTestSite, startTime, type TestSite } from "../harness/site.ts";

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site.stop();
});

const minute = 60_000;
/** Each test gets a minute of its own: 12:00, 12:10, 12:20, ... so no window leaks between tests. */
let slot = 0;
function freshMinute(secondsIn = 0): number {
  slot += 10;
  const ms = startTime + slot * minute + secondsIn * 1000;
  site.clock.set(ms);
  return ms;
}

const rateHeaders = (response: { headers: Headers }) => ({
  limit: response.headers.get("x-ratelimit-limit"),
  remaining: response.headers.get("x-ratelimit-remaining"),
  reset: response.headers.get("x-ratelimit-reset"),
  retryAfter: response.headers.get("retry-after"),
});

const devices = (key: string, baseUrl = site.baseUrl) => call(baseUrl, "/v1/devices", { key });

function expectRateLimited(response: ApiResponse, limit: number, retryAfter: number): void {
  expectProblem(response, 429, "rate_limited");
  expectApiHeaders(response);
  expect(rateHeaders(response)).toEqual({
    limit: String(limit),
    remaining: "0",
    reset: String(retryAfter),
    retryAfter: String(retryAfter),
  });
}

/** A GET from a chosen source address (fetch cannot pick one): raw HTTP/1.1 over node:net. */
function rawGet(
  baseUrl: string,
  path: string,
  key: string,
  localAddress: string,
): Promise<{ status: number; headers: Headers; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    const chunks: Buffer[] = [];
    socket.on("connect", () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      );
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const [statusLine = "", ...headerLines] = text.slice(0, split).split("\r\n");
      const headers = new Headers();
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      let body = text.slice(split + 4);
      if ((headers.get("transfer-encoding") ?? "").includes("chunked")) {
        let decoded = "";
        let rest = body;
        for (;;) {
          const lineEnd = rest.indexOf("\r\n");
          const size = Number.parseInt(rest.slice(0, lineEnd), 16);
          if (!(size > 0)) break;
          decoded += rest.slice(lineEnd + 2, lineEnd + 2 + size);
          rest = rest.slice(lineEnd + 2 + size + 2);
        }
        body = decoded;
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
      socket.destroy();
    });
  });
}

describe("rate-limit headers on every response", () => {
  test("200, 400, 401, 403, 404 and 429 all carry X-RateLimit-Limit, -Remaining and -Reset", async () => {
    freshMinute();
    const key = await site.createKey("acme", ["devices:read"], { rateLimitPerMinute: 9 });
    const responses: [number, ApiResponse][] = [
      [200, await devices(key)],
      [400, await call(site.baseUrl, "/v1/devices?limit=0", { key })],
      [401, await call(site.baseUrl, "/v1/devices")],
      [401, await call(site.baseUrl, "/v1/devices", { key: "fh_0000000000000000000000000000000000000000" })],
      [403, await call(site.baseUrl, "/v1/alerts", { key })],
      [403, await call(site.baseUrl, "/v1/devices", { key, method: "POST" })],
      [404, await call(site.baseUrl, `/v1/devices/${ids.globexGateway}`, { key })],
      [404, await call(site.baseUrl, "/v1/nothing", { key })],
    ];
    for (let i = 0; i < 3; i++) responses.push([200, await devices(key)]);
    responses.push([429, await devices(key)]);
    for (const [status, response] of responses) {
      expect(response.status).toBe(status);
      expectApiHeaders(response);
      expect(response.headers.get("x-ratelimit-reset")).toBe("60");
    }
    // The key's own requests (whatever their outcome) count against the key: 9 allowed, then 429.
    const own = responses.filter((_, index) => ![2, 3].includes(index)).map(([, response]) => rateHeaders(response));
    expect(own.map((headers) => headers.limit)).toEqual(Array(10).fill("9"));
    expect(own.map((headers) => headers.remaining)).toEqual(["8", "7", "6", "5", "4", "3", "2", "1", "0", "0"]);
    expect(own.map((headers) => headers.retryAfter)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      "60",
    ]);
  });

  test("Retry-After appears only on 429", async () => {
    freshMinute();
    const response = await devices(site.keys.acme);
    expect(response.status).toBe(200);
    expect(response.headers.get("retry-after")).toBeNull();
  });
});

describe("a key with rateLimitPerMinute 5", () => {
  test("requests 1..5 succeed with Remaining 4..0, the 6th is 429 rate_limited with Retry-After to the next minute", async () => {
    freshMinute(20);
    const key = await site.createKey("acme", ["devices:read"], { rateLimitPerMinute: 5 });
    for (let i = 1; i <= 5; i++) {
      const response = await devices(key);
      expect(response.status).toBe(200);
      expect(rateHeaders(response)).toEqual({ limit: "5", remaining: String(5 - i), reset: "40", retryAfter: null });
    }
    expectRateLimited(await devices(key), 5, 40);
    // Still limited later in the same minute, with a shorter wait.
    site.clock.advance(25_000);
    expectRateLimited(await devices(key), 5, 15);
    site.clock.advance(14_000);
    expectRateLimited(await devices(key), 5, 1);
  });

  test("Retry-After is rounded up to whole seconds, never telling the client to come back too early", async () => {
    freshMinute(50.4);
    const key = await site.createKey("acme", ["devices:read"], { rateLimitPerMinute: 1 });
    const first = await devices(key);
    expect(rateHeaders(first)).toEqual({ limit: "1", remaining: "0", reset: "10", retryAfter: null });
    expectRateLimited(await devices(key), 1, 10);
  });

  test("keys are counted independently", async () => {
    freshMinute();
    const first = await site.createKey("acme", ["devices:read"], { rateLimitPerMinute: 5 });
    const second = await site.createKey("acme", ["devices:read"], { rateLimitPerMinute: 5 });
    const third = await site.createKey("globex", ["devices:read"], { rateLimitPerMinute: 5 });
    for (let i = 0; i < 5; i++) expect((await devices(first)).status).toBe(200);
    expectRateLimited(await devices(first), 5, 60);
    for (const key of [second, third]) {
      const response = await devices(key);
      expect(response.status).toBe(200);
      expect(rateHeaders(response).remaining).toBe("4");
    }
    // The other keys' requests did not use up anything of the first one's next minute either.
    expectRateLimited(await devices(first), 5, 60);
    // And the site's ordinary key is unaffected.
    expect((await devices(site.keys.acme)).status).toBe(200);
  });

  test("the window resets at the start of the next minute, not 60 s after the first request", async () => {
    const firstAt = freshMinute(50); // hh:mm:50
    const key = await site.createKey("acme", ["devices:read"], { rateLimitPerMinute: 5 });
    for (let i = 1; i <= 5; i++) {
      const response = await devices(key);
      expect(response.status).toBe(200);
      expect(rateHeaders(response)).toEqual({ limit: "5", remaining: String(5 - i), reset: "10", retryAfter: null });
    }
    expectRateLimited(await devices(key), 5, 10);

    // One millisecond before the boundary: still the old window.
    site.clock.set(firstAt + 9_999);
    expectRateLimited(await devices(key), 5, 1);

    // hh:(mm+1):00, only 10 s after the first request: a fresh window of 5.
    site.clock.set(firstAt + 10_000);
    expect(new Date(site.clock.now()).getUTCSeconds()).toBe(0);
    for (let i = 1; i <= 5; i++) {
      const response = await devices(key);
      expect(response.status).toBe(200);
      expect(rateHeaders(response)).toEqual({ limit: "5", remaining: String(5 - i), reset: "60", retryAfter: null });
    }
    expectRateLimited(await devices(key), 5, 60);

    // hh:(mm+1):50, 60 s after the first request: still the same window (a sliding window would reopen here).
    site.clock.set(firstAt + 60_000);
    expectRateLimited(await devices(key), 5, 10);

    // hh:(mm+2):00: fresh again.
    site.clock.set(firstAt + 70_000);
    const response = await devices(key);
    expect(response.status).toBe(200);
    expect(rateHeaders(response)).toEqual({ limit: "5", remaining: "4", reset: "60", retryAfter: null });
  });

  test("a quiet minute in between changes nothing: each minute starts from the full limit", async () => {
    const start = freshMinute(30);
    const key = await site.createKey("acme", ["devices:read"], { rateLimitPerMinute: 2 });
    expect(rateHeaders(await devices(key)).remaining).toBe("1");
    site.clock.set(start + 3 * minute);
    expect(rateHeaders(await devices(key)).remaining).toBe("1");
    expect(rateHeaders(await devices(key)).remaining).toBe("0");
    expectRateLimited(await devices(key), 2, 30);
  });
});

describe("the server default", () => {
  test("a key without a limit of its own gets the default: 100 requests, then 429", async () => {
    const other = await startTestSite({ defaultLimitPerMinute: 100 });
    try {
      other.clock.set(startTime + 15_000);
      const key = other.keys.acme;
      for (let i = 1; i <= 100; i++) {
        const response = await devices(key, other.baseUrl);
        expect(response.status).toBe(200);
        expect(rateHeaders(response)).toEqual({
          limit: "100",
          remaining: String(100 - i),
          reset: "45",
          retryAfter: null,
        });
      }
      expectRateLimited(await devices(key, other.baseUrl), 100, 45);
      // Another key of the same organisation has its own 100.
      const fresh = await devices(other.keys.globex, other.baseUrl);
      expect(fresh.status).toBe(200);
      expect(rateHeaders(fresh)).toEqual({ limit: "100", remaining: "99", reset: "45", retryAfter: null });
      // A key's own limit wins over the default, also when it is higher.
      const generous = await other.createKey("acme", ["devices:read"], { rateLimitPerMinute: 250 });
      expect(rateHeaders(await devices(generous, other.baseUrl))).toEqual({
        limit: "250",
        remaining: "249",
        reset: "45",
        retryAfter: null,
      });
      // The next minute the limited key is back.
      other.clock.set(startTime + minute);
      const next = await devices(key, other.baseUrl);
      expect(next.status).toBe(200);
      expect(rateHeaders(next)).toEqual({ limit: "100", remaining: "99", reset: "60", retryAfter: null });
    } finally {
      await other.stop();
    }
  });
});

describe("the sandbox key: 60 per minute per visitor", () => {
  test("from 127.0.0.1 it gets 60 then 429, while 127.0.0.2 still gets through with its own 60", async () => {
    freshMinute(5);
    const key = await site.createKey("acme", ["devices:read"], { sandbox: true });
    for (let i = 1; i <= 60; i++) {
      const response = await devices(key);
      expect(response.status).toBe(200);
      expect(rateHeaders(response)).toEqual({ limit: "60", remaining: String(60 - i), reset: "55", retryAfter: null });
    }
    expectRateLimited(await devices(key), 60, 55);

    const elsewhere = await rawGet(site.baseUrl, "/v1/devices", key, "127.0.0.2");
    expect(elsewhere.status).toBe(200);
    expect(rateHeaders(elsewhere)).toEqual({ limit: "60", remaining: "59", reset: "55", retryAfter: null });
    expect((JSON.parse(elsewhere.body) as { meta: { total: number } }).meta.total).toBe(4);
    for (let i = 2; i <= 60; i++) {
      const response = await rawGet(site.baseUrl, "/v1/devices", key, "127.0.0.2");
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(60 - i));
    }
    const limited = await rawGet(site.baseUrl, "/v1/devices", key, "127.0.0.2");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("55");
    expect((JSON.parse(limited.body) as { code: string }).code).toBe("rate_limited");

    // A third visitor is still fresh, and 127.0.0.1 stays limited.
    const third = await rawGet(site.baseUrl, "/v1/devices", key, "127.0.0.3");
    expect(third.status).toBe(200);
    expect(third.headers.get("x-ratelimit-remaining")).toBe("59");
    expectRateLimited(await devices(key), 60, 55);
  });

  test("the raw client really changes the source address (control: a standard key is per key, not per address)", async () => {
    freshMinute();
    const key = await site.createKey("acme", ["devices:read"], { rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await devices(key)).status).toBe(200);
    expectRateLimited(await devices(key), 3, 60);
    // A standard key is counted per key: another address does not get a new allowance.
    const elsewhere = await rawGet(site.baseUrl, "/v1/devices", key, "127.0.0.2");
    expect(elsewhere.status).toBe(429);
    expect(elsewhere.headers.get("retry-after")).toBe("60");
  });

  test("the sandbox key resets at the minute boundary for every visitor", async () => {
    const start = freshMinute(58);
    const key = await site.createKey("acme", ["devices:read"], { sandbox: true, rateLimitPerMinute: 2 });
    for (let i = 0; i < 2; i++) expect((await devices(key)).status).toBe(200);
    expectRateLimited(await devices(key), 2, 2);
    site.clock.set(start + 2_000);
    const again = await devices(key);
    expect(again.status).toBe(200);
    expect(rateHeaders(again)).toEqual({ limit: "2", remaining: "1", reset: "60", retryAfter: null });
  });
});
