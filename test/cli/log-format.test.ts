/**
 * `--log-format json|pretty` of serve and demo, as processes: with json, stdout
 * carries JSON lines only (what journald and log shippers read), the banner goes
 * to stderr and, for serve, only while it carries the setup token; with pretty,
 * lines for a person. Without the flag: pretty on a terminal, JSON otherwise.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, runCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";

let workDir: string;
let configPath: string;
beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-log-format-"));
  configPath = join(workDir, "fieldhub.yaml");
  writeFileSync(configPath, "organizations: [{ key: acme, name: Acme }]\n");
});
afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

const serveOn = (dataDir: string, format?: string) =>
  serveArgs(configPath, dataDir, ...(format === undefined ? [] : ["--log-format", format]));

const lines = (text: string) => text.split("\n").filter((line) => line !== "");

function parsesAsJson(line: string): boolean {
  try {
    return typeof JSON.parse(line) === "object";
  } catch {
    return false;
  }
}

/** The lines of stdout once the process has logged a refused request (a line it must write). */
async function logAfterARequest(serve: ReturnType<typeof startCli>, url: string): Promise<string[]> {
  expect((await fetch(`${url}/v1/devices`)).status).toBe(401);
  await serve.waitFor((stdout) => (stdout.includes("/v1/devices") ? true : null));
  return lines(serve.stdout());
}

describe("serve --log-format json", () => {
  test("stdout is JSON lines only; the banner with the setup token is on stderr, and only while there is one", async () => {
    const dataDir = join(workDir, "json");
    const first = startCli(serveOn(dataDir, "json"));
    try {
      const url = await first.waitFor(servedUrl);
      const log = await logAfterARequest(first, url);
      expect(log.filter((line) => !parsesAsJson(line))).toEqual([]);
      expect(log.some((line) => line.includes('"msg":"fieldhub serving on'))).toBe(true);
      const banner = await first.waitFor((_log, stderr) => (stderr.includes("setup token") ? stderr : null));
      expect(lines(banner)).toEqual([expect.stringMatching(/^fieldhub serving on .*with setup token \S+, or run/)]);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    // Once an admin account exists there is no token: nothing but JSON lines, on stdout alone.
    const account = Bun.spawn(
      [process.execPath, "src/main.ts", "admin", "set-password", "--data", dataDir, "--user", "owner"],
      { cwd: repoRoot, stdin: new TextEncoder().encode("correct horse battery\n"), stdout: "pipe", stderr: "pipe" },
    );
    expect(await account.exited).toBe(0);
    const second = startCli(serveOn(dataDir, "json"));
    try {
      const url = await second.waitFor(servedUrl);
      const log = await logAfterARequest(second, url);
      expect(log.filter((line) => !parsesAsJson(line))).toEqual([]);
      expect(second.stderr()).toBe("");
    } finally {
      await second.stop();
    }
  }, 40_000);
});

describe("serve --log-format pretty", () => {
  test("lines for a person: the banner and the log's lines, none of them JSON, no colours into a pipe", async () => {
    const serve = startCli(serveOn(join(workDir, "pretty"), "pretty"));
    try {
      const url = await serve.waitFor(
        (stdout) => /fieldhub serving on (http:\/\/127\.0\.0\.1:\d+);/.exec(stdout)?.[1] ?? null,
      );
      const log = await logAfterARequest(serve, url);
      expect(log.filter(parsesAsJson)).toEqual([]);
      expect(log.some((line) => / INFO: fieldhub serving on /.test(line))).toBe(true);
      expect(log.some((line) => / WARN: request/.test(line))).toBe(true);
      expect(log.filter((line) => line.includes("\u001b["))).toEqual([]);
      expect(serve.stderr()).toBe("");
    } finally {
      await serve.stop();
    }
  }, 30_000);
});

describe("without --log-format", () => {
  // util-linux's `script` gives the process a terminal as its stdout.
  const script = ["/usr/bin/script", "/bin/script"].find((path) => existsSync(path));
  test.skipIf(script === undefined)(
    "pretty lines on a terminal",
    async () => {
      const env = { ...process.env };
      delete env.CI;
      const command = [process.execPath, "src/main.ts", ...serveOn(join(workDir, "terminal"))].join(" ");
      const proc = Bun.spawn([script!, "-qec", `timeout -s INT 5 ${command}`, "/dev/null"], {
        cwd: repoRoot,
        env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const output = await new Response(proc.stdout).text();
      await proc.exited;
      const printed = lines(output.replaceAll("\r", ""));
      expect(printed.some((line) => line.includes("fieldhub serving on"))).toBe(true);
      expect(printed.filter((line) => line.startsWith("{"))).toEqual([]);
    },
    20_000,
  );

  test("JSON lines into a pipe", async () => {
    const serve = startCli(serveOn(join(workDir, "pipe")));
    try {
      const url = await serve.waitFor(servedUrl);
      expect((await logAfterARequest(serve, url)).filter((line) => !parsesAsJson(line))).toEqual([]);
    } finally {
      await serve.stop();
    }
  }, 30_000);

  test("another format is a usage error", async () => {
    const result = await runCli(serveOn(join(workDir, "xml"), "xml"));
    expect(result.code).toBe(2);
    expect(result.stderr).toStartWith('fieldhub: --log-format: json or pretty, not "xml"');
  });
});

describe("demo --log-format json", () => {
  test("stdout is JSON lines only, with the URL; the banner is on stderr", async () => {
    const demo = startCli([
      "demo",
      "--port",
      "0",
      "--data",
      join(workDir, "demo"),
      "--days",
      "1",
      "--log-format",
      "json",
    ]);
    try {
      const url = await demo.waitFor(servedUrl, 30_000);
      const banner = await demo.waitFor((_log, stderr) => (stderr.includes("curl -H") ? stderr : null));
      expect(banner).toContain(`fieldhub demo on ${url}`);
      expect((await logAfterARequest(demo, url)).filter((line) => !parsesAsJson(line))).toEqual([]);
    } finally {
      await demo.stop();
    }
  }, 40_000);
});
