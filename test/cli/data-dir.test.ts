/**
 * A wrong `--data`, as processes: a file given as the data directory is one line
 * naming it (no stack trace), exit 1, for serve, demo and the short commands; a
 * mistyped directory is not silently made into a new store: serve creates one only
 * inside a parent that exists, and says in its banner and its log when it starts
 * a new store (README, "Command line"; docs/install.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";

let workDir: string;
let configPath: string;
let aFile: string;
beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-data-dir-"));
  configPath = join(workDir, "fieldhub.yaml");
  writeFileSync(configPath, "organizations: [{ key: acme, name: Acme }]\n");
  aFile = join(workDir, "fieldhub.yaml.bak");
  writeFileSync(aFile, "not a directory\n");
});
afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

const serveOn = (dataDir: string) => serveArgs(configPath, dataDir);

/** One line on stderr, naming the path; nothing that looks like a stack trace or source. */
function expectOneLineNaming(result: { code: number; stdout: string; stderr: string }, path: string) {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toEqual([expect.stringMatching(/^fieldhub: --data /)]);
  expect(lines[0]).toContain(path);
}

interface LogLine {
  level: number;
  msg: string;
  new_store?: boolean;
  url?: string;
}

const logLines = (stdout: string): LogLine[] =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);

describe("--data naming a file", () => {
  test("serve: one line naming the path, exit 1", async () => {
    expectOneLineNaming(await runCli(serveOn(aFile)), aFile);
  });

  test("demo: one line naming the path, exit 1", async () => {
    expectOneLineNaming(await runCli(["demo", "--port", "0", "--data", aFile]), aFile);
  });

  test("the short commands: one line naming the path, exit 1", async () => {
    for (const args of [
      ["keys", "list", "--data", aFile],
      ["alerts", "list", "--data", aFile],
      ["endpoints", "list", "--data", aFile],
      ["history", "export", "--data", aFile],
    ]) {
      const result = await runCli(args);
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      expectOneLineNaming(result, aFile);
      expect(result.stderr).toContain("not a directory");
    }
  });

  test("serve with a file on the way (FILE/data): one line naming the path, exit 1", async () => {
    expectOneLineNaming(await runCli(serveOn(join(aFile, "data"))), aFile);
  });
});

describe("a data directory that does not exist", () => {
  test("inside a parent that does not exist either: refused, nothing created", async () => {
    const mistyped = join(workDir, "var-lib-fieldhbu", "data");
    const result = await runCli(serveOn(mistyped));
    expectOneLineNaming(result, mistyped);
    expect(result.stderr).toContain("does not exist");
    expect(existsSync(join(workDir, "var-lib-fieldhbu"))).toBe(false);
  });

  test("inside a parent that exists: created private, and the banner and log say a new store starts there", async () => {
    const dataDir = join(workDir, "fresh");
    const serve = startCli(serveOn(dataDir));
    try {
      await serve.waitFor(servedUrl);
      const banner = await serve.waitFor((_log, stderr) => (stderr.includes("setup token") ? stderr : null));
      expect(banner).toContain(`created ${dataDir} and a new, empty store in it`);
      const newStoreLines = logLines(serve.stdout()).filter((line) => line.new_store === true);
      expect(newStoreLines.map((line) => line.msg)).toEqual([
        `created ${dataDir} and a new, empty store in it`,
        expect.stringMatching(new RegExp(`^fieldhub serving on .*; created ${dataDir} and a new, empty store in it$`)),
      ]);
      expect((statSync(dataDir).mode & 0o777).toString(8)).toBe("700");
    } finally {
      expect(await serve.stop()).toBe(0);
    }
    // The next start finds its store: no word of a new one.
    const again = startCli(serveOn(dataDir));
    try {
      await again.waitFor(servedUrl);
      expect(logLines(again.stdout()).filter((line) => line.new_store === true)).toEqual([]);
      expect(logLines(again.stdout()).find((line) => line.url !== undefined)?.new_store).toBe(false);
    } finally {
      await again.stop();
    }
  }, 30_000);

  test("a directory that exists but holds no store: the banner and log say so too", async () => {
    const dataDir = join(workDir, "empty");
    mkdirSync(dataDir);
    const serve = startCli(serveOn(dataDir));
    try {
      await serve.waitFor(servedUrl);
      const banner = await serve.waitFor((_log, stderr) => (stderr.includes("setup token") ? stderr : null));
      const words = `a new, empty store in ${dataDir} (it held no fieldhub.db)`;
      expect(banner).toContain(words);
      expect(logLines(serve.stdout()).some((line) => line.new_store === true && line.msg === words)).toBe(true);
    } finally {
      await serve.stop();
    }
  }, 30_000);
});
