/**
 * Every curl and `fieldhub` example in README.md and docs/*.md code blocks runs as
 * printed against a running demo, and so do the hints the CLI
 * prints. The demo stands in for the box the docs talk about: its address replaces
 * 127.0.0.1:8080 / localhost:8080, its data directory replaces /var/lib/fieldhub, and
 * `fieldhub` is this checkout. Examples that cannot run here are listed in `skipped`,
 * each with its reason; every other one must exit 0 (curl: answer 2xx).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { demoOrganizationKey } from "../../src/demo/demo-config.ts";
import { type RunningCli, repoRoot, startCli } from "../harness/cli.ts";

interface Example {
  /** `docs/api.md:81` */
  where: string;
  command: string;
}

/** Examples that cannot run against a demo on this machine, by their first characters. */
const skipped: { startsWith: string; reason: string }[] = [
  {
    startsWith: "fieldhub discover --host 192.168.1.40",
    reason: "scans a site's Modbus server; test/cli/discover.test.ts runs discover against pymodbus",
  },
  {
    startsWith: "fieldhub discover --serial /dev/ttyUSB0",
    reason: "scans a site's RTU line; test/cli/discover.test.ts scans a socat pty",
  },
  {
    startsWith: "fieldhub discover --host 192.168.1.50 --port 4001 --rtu-over-tcp",
    reason: "scans a site's serial device server; test/cli/discover.test.ts scans pymodbus framing RTU over TCP",
  },
  {
    startsWith: "fieldhub config check found.yaml",
    reason: "checks the file the scan above writes; test/cli/discover.test.ts checks one",
  },
  {
    startsWith: "./bin/fieldhub serve --config fieldhub.yaml",
    reason: "starts a server that runs until stopped; the demo this test runs against is one",
  },
  {
    startsWith: "sudo -u fieldhub fieldhub config check /etc/fieldhub/fieldhub.yaml --data /var/lib/fieldhub",
    reason: "needs the installed config and systemd (test/build/install.test.ts covers install.sh)",
  },
  {
    startsWith: "fieldhub endpoints create --data /var/lib/fieldhub --org acme --url https://hooks.acme.example",
    reason: "an illustrative session: its receiver is on the internet, where tests send nothing",
  },
  {
    startsWith: "fieldhub endpoints test --data /var/lib/fieldhub 3f0c2a9e",
    reason: "an illustrative session: the endpoint id is the one printed above it",
  },
  {
    startsWith: "fieldhub endpoints resend --data /var/lib/fieldhub 3f0c2a9e",
    reason:
      "an illustrative session: the endpoint id is the one created above (test/e2e/webhook-resend.test.ts runs it)",
  },
  {
    startsWith: "fieldhub webhooks listen --port 9000 --secret whsec_...",
    reason: "a usage line with placeholders for a receiver that runs until stopped (test/cli/webhooks-listen.test.ts)",
  },
];

const documents = ["README.md", ...readdirSync(join(repoRoot, "docs")).map((name) => `docs/${name}`)].filter((path) =>
  path.endsWith(".md"),
);

/** A command line runs a curl or fieldhub example when one of them is in command position. */
const runsExample = /(^|[|&;]\s*)(sudo -u \S+ )?(curl|fieldhub|\.\/bin\/fieldhub)\s/;

/** Commands in shell code blocks (console blocks: the `$ ` lines), continuations joined, comments cut. */
function examplesIn(path: string): Example[] {
  const text = readFileSync(join(repoRoot, path), "utf8");
  const examples: Example[] = [];
  for (const block of text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    const language = block[1] ?? "";
    if (!["", "sh", "bash", "shell", "console"].includes(language)) continue;
    const firstLine = text.slice(0, block.index).split("\n").length + 1;
    const lines = (block[2] ?? "").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const start = i;
      let line = lines[i] ?? "";
      if (language === "console") {
        if (!line.startsWith("$ ")) continue;
        line = line.slice(2);
      }
      while (line.endsWith("\\") && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
      const command = line.replace(/\s+#\s.*$/, "").trim();
      if (runsExample.test(command)) examples.push({ where: `${path}:${firstLine + start}`, command });
    }
  }
  return examples;
}

const examples = documents.flatMap(examplesIn);
const skipReason = (command: string) => skipped.find((skip) => command.startsWith(skip.startsWith))?.reason;

let workDir: string;
let dataDir: string;
let baseUrl: string;
let demo: RunningCli;
let shimPath: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-doc-examples-"));
  dataDir = join(workDir, "data");
  // `fieldhub` on the PATH is this checkout, as ./bin/fieldhub is.
  const bin = join(workDir, "bin");
  Bun.spawnSync(["mkdir", "-p", bin]);
  const shim = join(bin, "fieldhub");
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, "src/main.ts")}" "$@"\n`);
  chmodSync(shim, 0o755);
  shimPath = `${bin}:${process.env.PATH ?? ""}`;
  demo = startCli(["demo", "--port", "0", "--data", dataDir, "--days", "1"]);
  baseUrl = await demo.waitFor(
    (_log, banner) => /API base URL\s+(http:\/\/\S+)\/v1\n/.exec(banner)?.[1] ?? null,
    60_000,
  );
}, 90_000);

afterAll(async () => {
  await demo?.stop();
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

/** The example as it runs here: the demo's address and data, curl failing on a non-2xx answer. */
function localised(command: string): string {
  return (
    command
      .replaceAll("http://127.0.0.1:8080", baseUrl)
      .replaceAll("http://localhost:8080", baseUrl)
      .replaceAll("/var/lib/fieldhub", dataDir)
      .replaceAll("sudo -u fieldhub ", "")
      .replaceAll("./bin/fieldhub ", "fieldhub ")
      // fieldhub.example.yaml's organisation (docs/install.md) is the demo's here.
      .replaceAll("--org site ", `--org ${demoOrganizationKey} `)
      .replace(/(^|[|&;]\s*)curl /g, "$1curl -sS --fail --max-time 10 ")
  );
}

async function runShell(command: string) {
  const proc = Bun.spawn(["sh", "-c", command], {
    cwd: workDir,
    env: { ...process.env, CI: "true", PATH: shimPath },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe("the docs' examples", () => {
  test("there are examples, and each skip still names one", () => {
    expect(examples.length).toBeGreaterThan(5);
    for (const skip of skipped) {
      expect({
        skip: skip.startsWith,
        found: examples.some((example) => example.command.startsWith(skip.startsWith)),
      }).toEqual({ skip: skip.startsWith, found: true });
    }
  });

  for (const example of examples) {
    const reason = skipReason(example.command);
    if (reason !== undefined) {
      test.skip(`${example.where}: ${example.command} (${reason})`, () => {});
      continue;
    }
    test(`${example.where}: ${example.command}`, async () => {
      const result = await runShell(localised(example.command));
      expect({ example: example.where, code: result.code, stderr: result.stderr }).toEqual({
        example: example.where,
        code: 0,
        stderr: expect.any(String),
      });
    }, 30_000);
  }
});

describe("the CLI's hints", () => {
  test("the demo banner's curl line runs as printed", async () => {
    const line = /^\s*(curl .*)$/m.exec(demo.stderr())?.[1];
    expect(line).toBeDefined();
    const result = await runShell(line!.replace(/^curl /, "curl -sS --fail --max-time 10 "));
    expect(result.code).toBe(0);
  });

  test("`endpoints create` names a command that runs as printed", async () => {
    // Nothing listens on port 9 of loopback: the dispatcher's attempts fail there and go nowhere else.
    const created = await runShell(
      `fieldhub endpoints create --data ${dataDir} --org ${demoOrganizationKey} --url http://127.0.0.1:9/hook`,
    );
    expect(created.code).toBe(0);
    const hint = /`(fieldhub endpoints secret [^`]+)`/.exec(created.stderr)?.[1];
    expect(hint).toContain(`--data ${dataDir}`);
    const shown = await runShell(hint!);
    expect(shown.stderr).toBe("");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(/secret\s+(whsec_\S+)/.exec(created.stdout)?.[1] ?? "no secret printed");
  });
});
