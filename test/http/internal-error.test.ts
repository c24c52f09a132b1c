/** docs/api.md section 7: a failure inside fieldhub is 500 internal_error, with nothing internal in the body. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Writable } from "node:stream";
import pino from "pino";
import { createHttpApp } from "../../src/http/app.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { expectApiHeaders, expectProblem } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
const logLines: string[] = [];
let baseUrl = "";
let stopApp: () => Promise<void>;

beforeAll(async () => {
  site = await startTestSite();
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );
  const app = await createHttpApp({
    store: site.store,
    clock: new ManualClock(site.clock.now()),
    logger,
    publicUrl: null,
    defaultLimitPerMinute: 1000,
    // Every request logged, as with `server.log_requests: true` (off by default: only refusals and errors).
    logRequests: true,
  });
  app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
  baseUrl = `http://127.0.0.1:${app.server?.port}`;
  stopApp = async () => {
    await app.stop(true);
  };
  // Break the store under the running app: every query now throws.
  await site.execute("ALTER TABLE registers RENAME TO registers_gone");
});

afterAll(async () => {
  await stopApp();
  await site.stop();
});

test("a failing query answers 500 internal_error without stack, SQL or message", async () => {
  const response = await fetch(`${baseUrl}/v1/devices/${ids.acmeGateway1}/readings`, {
    headers: { authorization: `Bearer ${site.keys.acme}` },
  });
  const text = await response.text();
  const body = JSON.parse(text);
  expectProblem({ status: response.status, headers: response.headers, body, text }, 500, "internal_error");
  expectApiHeaders({ status: response.status, headers: response.headers, body, text });
  expect(Object.keys(body).sort()).toEqual(["code", "request_id", "status", "title", "type"]);
  for (const leak of ["readings", "SELECT", "SQLite", "no such table", "does not exist", "at ", ".ts"]) {
    expect(text).not.toContain(leak);
  }

  // The log has the failure, under the same request id.
  const failure = logLines.map((line) => JSON.parse(line)).find((entry) => entry.msg === "request failed");
  expect(failure?.request_id).toBe(body.request_id);
  // SQLite's words, or PostgreSQL's (FIELDHUB_TEST_STORE=postgres).
  expect(JSON.stringify(failure?.err)).toMatch(/no such table|relation \\"registers\\" does not exist/);
});

test("the other operations keep working", async () => {
  const response = await fetch(`${baseUrl}/v1/devices`, { headers: { authorization: `Bearer ${site.keys.acme}` } });
  expect(response.status).toBe(200);
});

test("every request is logged once with its request id and the status it was answered", async () => {
  const notFound = await fetch(`${baseUrl}/v1/nothing`, { headers: { authorization: `Bearer ${site.keys.acme}` } });
  await notFound.text();
  const id = notFound.headers.get("x-request-id");
  const requestLines = () =>
    logLines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === "request" && entry.request_id === id);
  // The line is written after the response has gone out.
  for (let waited = 0; requestLines().length === 0 && waited < 1_000; waited += 10) await Bun.sleep(10);
  await Bun.sleep(20);
  const lines = requestLines();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ method: "GET", path: "/v1/nothing", status: 404 });
  const failed = logLines
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === "request" && entry.status === 500);
  expect(failed.length).toBeGreaterThan(0);
});
