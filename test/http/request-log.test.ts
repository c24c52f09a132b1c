/**
 * Per-request logs off by default (docs/config.md): a gateway
 * polled every second must not fill its journal with a line per request. Refusals
 * and errors are still logged; `api.log_requests: true` (or
 * FIELDHUB_LOG_REQUESTS=1) logs every request. Through `fieldhub serve` as a process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requestLogLevel, requestLogsWanted } from "../../src/http/request-log.ts";
import { serveArgs, servedUrl, startCli } from "../harness/cli.ts";

const configYaml = (logRequests: boolean | null) => `
${logRequests === null ? "" : `api:\n  log_requests: ${logRequests}\n`}organizations:
  - key: acme
    name: Acme
`;

interface LogLine {
  level: number;
  msg: string;
  path?: string;
  status?: number;
}
const info = 30;
const warn = 40;

const answer = (path: string, status: number) => ({ route: path, method: "GET", path, status });

const requestLines = (stdout: string): LogLine[] =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.msg === "request");

let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-request-log-"));
});
afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** Starts serve, answers one good request and one refused one, and returns the request log lines. */
async function requestLogOf(name: string, logRequests: boolean | null): Promise<LogLine[]> {
  const configPath = join(workDir, `${name}.yaml`);
  writeFileSync(configPath, configYaml(logRequests));
  const server = startCli(serveArgs(configPath, join(workDir, name)));
  try {
    const url = await server.waitFor(servedUrl);
    expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
    expect((await fetch(`${url}/v1/devices`)).status).toBe(401);
    // Lines come in order: once the refusal is logged, the answer before it would be too.
    await server.waitFor((stdout) => (requestLines(stdout).some((line) => line.status === 401) ? true : null));
    return requestLines(server.stdout());
  } finally {
    await server.stop();
  }
}

describe("serve", () => {
  test("by default logs refusals at warn and no line for an answered request", async () => {
    const lines = await requestLogOf("default", null);
    expect(lines.filter((line) => line.level <= info)).toEqual([]);
    expect(lines).toEqual([expect.objectContaining({ level: warn, path: "/v1/devices", status: 401 })]);
  }, 30_000);

  test("with api.log_requests: true logs every request", async () => {
    const lines = await requestLogOf("enabled", true);
    expect(lines).toEqual([
      expect.objectContaining({ level: info, path: "/openapi.json", status: 200 }),
      expect.objectContaining({ level: warn, path: "/v1/devices", status: 401 }),
    ]);
  }, 30_000);
});

describe("the admin page", () => {
  test("a page load without a session logs no warning; a wrong password still does", async () => {
    const configPath = join(workDir, "admin-page.yaml");
    writeFileSync(configPath, configYaml(null));
    const server = startCli(serveArgs(configPath, join(workDir, "admin-page")));
    try {
      const url = await server.waitFor(servedUrl);
      // What web/admin.ts asks at every load: the page, then whether it has a session, then whether setup is needed.
      expect((await fetch(`${url}/admin`)).status).toBe(200);
      expect((await fetch(`${url}/admin/api/me`)).status).toBe(401);
      expect((await fetch(`${url}/admin/api/setup`)).status).toBe(200);
      const login = await fetch(`${url}/admin/api/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "nobody", password: "not the password" }),
      });
      expect(login.status).toBe(401);
      // Lines come in order: once the failed login is logged, the page load's lines would be too.
      const loginLine = (stdout: string) =>
        requestLines(stdout).some((line) => line.path === "/admin/api/login") ? true : null;
      await server.waitFor(loginLine);
      const warnings = server
        .stdout()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as LogLine)
        .filter((line) => line.level >= warn);
      // The one warning: the failed login.
      expect(warnings).toEqual([expect.objectContaining({ level: warn, path: "/admin/api/login", status: 401 })]);
    } finally {
      await server.stop();
    }
  }, 30_000);
});

describe("the rule", () => {
  test("refusals (401, 403, 429) and server errors always; the rest only when asked", () => {
    for (const status of [401, 403, 429, 500, 503])
      expect(requestLogLevel(answer("/v1/devices", status), false)).toBe("warn");
    for (const status of [200, 204, 304, 400, 404]) {
      expect(requestLogLevel(answer("/v1/devices", status), false)).toBe("debug");
      expect(requestLogLevel(answer("/v1/devices", status), true)).toBe("info");
    }
    // Health checks and scrapes stay at debug even when requests are logged.
    expect(requestLogLevel(answer("/healthz", 200), true)).toBe("debug");
  });

  test("the admin page asking whether it has a session is not a warning; a failed login is", () => {
    const me = { route: "(no route)", method: "GET", path: "/admin/api/me", status: 401 };
    expect(requestLogLevel(me, false)).toBe("debug");
    expect(requestLogLevel(me, true)).toBe("info");
    const login = { route: "/admin/api/login", method: "POST", path: "/admin/api/login", status: 401 };
    expect(requestLogLevel(login, false)).toBe("warn");
    expect(requestLogLevel({ ...me, status: 403 }, false)).toBe("warn");
  });

  test("FIELDHUB_LOG_REQUESTS=1 turns the log on like the config setting", () => {
    expect(requestLogsWanted(false, {})).toBe(false);
    expect(requestLogsWanted(true, {})).toBe(true);
    expect(requestLogsWanted(false, { FIELDHUB_LOG_REQUESTS: "1" })).toBe(true);
    expect(requestLogsWanted(false, { FIELDHUB_LOG_REQUESTS: "true" })).toBe(true);
    expect(requestLogsWanted(false, { FIELDHUB_LOG_REQUESTS: "0" })).toBe(false);
  });
});
