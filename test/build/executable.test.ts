/**
 * The compiled executable as it ships (scripts/build, docs/install.md): built once
 * for this machine, copied away from the source tree and run from there. Also the
 * Dockerfile: its build step is scripts/build, run here on a copy of the build
 * context that .dockerignore leaves, and the paths it copies exist afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { demoSandboxKey } from "../../src/demo/demo-config.ts";
import { freePort } from "../harness/cli.ts";

const repoRoot = join(import.meta.dir, "..", "..");
const hostTarget = process.arch === "arm64" ? "linux-arm64" : "linux-x64";
const cleanEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", CI: "true" };

let work: string;
let exe: string;
let runDir: string;
const running: Bun.Subprocess[] = [];

function gitShortHead(): string {
  const result = Bun.spawnSync(["git", "-C", repoRoot, "rev-parse", "--short", "HEAD"], { stderr: "ignore" });
  return result.exitCode === 0 ? result.stdout.toString().trim() : "unknown";
}

function run(cmd: string[], options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}) {
  const result = Bun.spawnSync(cmd, {
    cwd: options.cwd ?? runDir,
    env: options.env ?? cleanEnv,
    stdout: "pipe",
    stderr: "pipe",
    timeout: options.timeoutMs ?? 30_000,
  });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

let commitsAroundBuild: string[];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "fieldhub-build-test-"));
  const before = gitShortHead();
  const started = performance.now();
  const build = run(["bash", join(repoRoot, "scripts/build"), "--target", hostTarget, "--out", join(work, "dist")], {
    cwd: repoRoot,
    env: { ...cleanEnv },
    timeoutMs: 120_000,
  });
  if (build.code !== 0) throw new Error(`scripts/build failed (${build.code}):\n${build.stdout}\n${build.stderr}`);
  commitsAroundBuild = [before, gitShortHead()];
  console.log(`scripts/build --target ${hostTarget}: ${Math.round(performance.now() - started)} ms\n${build.stdout}`);
  // Away from the source tree: nothing may be read from it.
  runDir = join(work, "elsewhere");
  mkdirSync(runDir);
  exe = join(runDir, "fieldhub");
  copyFileSync(join(work, "dist", `fieldhub-${hostTarget}`), exe);
  run(["chmod", "0755", exe]);
});

afterAll(async () => {
  for (const proc of running) {
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await proc.exited;
  }
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** Starts the executable and waits until `ready` matches its output (banners are on stderr beside JSON logs). */
async function start(args: string[], ready: RegExp, timeoutMs = 30_000) {
  const proc = Bun.spawn([exe, ...args], { cwd: runDir, env: cleanEnv, stdout: "pipe", stderr: "pipe" });
  running.push(proc);
  let stdout = "";
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stdout) stdout += new TextDecoder().decode(chunk);
  })();
  void (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  const deadline = Date.now() + timeoutMs;
  while (!ready.test(stdout) && !ready.test(stderr)) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`fieldhub ${args.join(" ")} did not start (exit ${proc.exitCode}):\n${stdout}\n${stderr}`);
    }
    await Bun.sleep(25);
  }
  return { proc, stdout: () => stdout, stderr: () => stderr };
}

describe("the executable", () => {
  test("prints the version from package.json and the commit it was built from", () => {
    const result = run([exe, "version"]);
    expect(result.code).toBe(0);
    const match = /^fieldhub (\S+) \((\S+)\)\n$/.exec(result.stdout);
    expect(match?.[1]).toBe(packageJson.version);
    expect(commitsAroundBuild).toContain(match?.[2] as string);
  });

  test("runs the demo: the API with the sandbox key, the docs page, the admin page and their embedded assets", async () => {
    const port = freePort();
    const data = join(work, "demo-data");
    await start(["demo", "--port", String(port), "--data", data, "--days", "1"], /curl -H "Authorization: Bearer/);
    const base = `http://127.0.0.1:${port}`;

    const introspect = await fetch(`${base}/v1/introspect`, { headers: { authorization: `Bearer ${demoSandboxKey}` } });
    expect(introspect.status).toBe(200);
    const body = (await introspect.json()) as { data: { key: { name: string; scopes: string[] } } };
    expect(body.data.key.scopes).toEqual(["devices:read", "registers:read", "alerts:read"]);

    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("/docs/assets/swagger-ui-bundle.js");

    const bundle = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    const script = await bundle.text();
    expect(script.length).toBeGreaterThan(100_000);
    expect(script).toContain("SwaggerUIBundle");

    const css = await fetch(`${base}/docs/assets/swagger-ui.css`);
    expect(css.status).toBe(200);

    // The admin page and what it loads, embedded in the executable.
    const admin = await fetch(`${base}/admin`);
    expect(admin.status).toBe(200);
    const adminHtml = await admin.text();
    expect(adminHtml).toContain("fieldhub admin");
    const assets = [...adminHtml.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const response = await fetch(`${base}${asset}`);
      expect(response.status).toBe(200);
      expect((await response.text()).length).toBeGreaterThan(100);
    }
    expect(await (await fetch(`${base}/admin/api/setup`)).json()).toEqual({ needed: true });
    const openapi = (await (await fetch(`${base}/docs/json`)).json()) as { openapi: string };
    expect(openapi.openapi).toStartWith("3.1");
  });

  test("config check passes on fieldhub.example.yaml, and on its commented gateways once uncommented", () => {
    const example = join(repoRoot, "fieldhub.example.yaml");
    const plain = run([exe, "config", "check", example]);
    expect(plain.stderr).toBe("");
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(": ok (1 organisation, 0 gateways");

    // The commented-out gateways are a starting point: they must stay valid.
    const lines = readFileSync(example, "utf8").split("\n");
    const from = lines.findIndex((line) => line.startsWith("# gateways:"));
    expect(from).toBeGreaterThan(0);
    const uncommented = [...lines.slice(0, from), ...lines.slice(from).map((line) => line.replace(/^# ?/, ""))];
    const file = join(work, "uncommented.yaml");
    writeFileSync(file, uncommented.join("\n"));
    const full = run([exe, "config", "check", file]);
    expect(full.stderr).toBe("");
    expect(full.code).toBe(0);
    expect(full.stdout).toContain("2 gateways");
  });

  test("config check refuses a bad config with its problems", () => {
    const file = join(work, "bad.yaml");
    writeFileSync(file, "server:\n  port: 70000\norganizations:\n  - key: site\n    name: Site\n");
    const result = run([exe, "config", "check", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("server.port");
  });
});

// ---------------------------------------------------------------- Dockerfile

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's instructions per stage (continuation lines joined, comments dropped). */
function dockerStages(): Instruction[][] {
  const text = readFileSync(join(repoRoot, "Dockerfile"), "utf8");
  const logical = text
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\\n/g, " ");
  const stages: Instruction[][] = [];
  for (const line of logical.split("\n")) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const instruction = { op: match[1] as string, args: (match[2] as string).trim() };
    if (instruction.op === "FROM") stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

function ignoredByDockerignore(): (relativePath: string) => boolean {
  const patterns = readFileSync(join(repoRoot, ".dockerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  expect(patterns.some((pattern) => pattern.startsWith("!"))).toBe(false); // not supported below
  const globs = patterns.map((pattern) => new Bun.Glob(pattern.replace(/\/$/, "")));
  return (relativePath) => globs.some((glob) => glob.match(relativePath));
}

describe("the Dockerfile", () => {
  const stages = dockerStages();
  const [buildStage, runtimeStage] = stages;

  test("builds in node:20 with npm ci and scripts/build, and runs on a small Debian as a non-root user", () => {
    expect(stages.length).toBe(2);
    const from = (stage: Instruction[] | undefined) => stage?.find((i) => i.op === "FROM")?.args ?? "";
    expect(from(buildStage)).toMatch(/node:20-bookworm AS build$/);
    expect(from(runtimeStage)).toBe("debian:bookworm-slim");
    const buildRuns = buildStage?.filter((i) => i.op === "RUN").map((i) => i.args) ?? [];
    expect(buildRuns[0]).toStartWith("npm ci");
    expect(buildRuns.some((args) => /scripts\/build --target "linux-\$arch"/.test(args))).toBe(true);

    const ops = (op: string) => runtimeStage?.filter((i) => i.op === op).map((i) => i.args) ?? [];
    expect(ops("USER")).toEqual(["fieldhub"]);
    expect(ops("RUN").join(" ")).toContain("--groups dialout");
    expect(ops("VOLUME")).toEqual(["/var/lib/fieldhub"]);
    expect(ops("EXPOSE")).toEqual(["8080"]);
    // The same runtime environment as install.sh's unit (docs/benchmarks.md, "Footprint").
    expect(ops("ENV")).toEqual(["BUN_JSC_forceRAMSize=67108864"]);
    expect(JSON.parse(ops("ENTRYPOINT")[0] ?? "null")).toEqual([
      "/usr/local/bin/fieldhub",
      "serve",
      "--config",
      "/etc/fieldhub/fieldhub.yaml",
      "--data",
      "/var/lib/fieldhub",
    ]);
    expect(ops("HEALTHCHECK")[0]).toContain("/healthz");
  });

  test("its build step, run on the context .dockerignore leaves, makes the executable the image copies", () => {
    // The build context, as Docker would send it; `npm ci` is replaced by a link.
    const context = join(work, "docker-context");
    const ignored = ignoredByDockerignore();
    cpSync(repoRoot, context, {
      recursive: true,
      filter: (source) => {
        const relative = source.slice(repoRoot.length + 1);
        return relative === "" || !ignored(relative);
      },
    });
    for (const needed of [
      "package.json",
      "package-lock.json",
      "src/main.ts",
      "scripts/build",
      "fieldhub.example.yaml",
    ]) {
      expect(Bun.file(join(context, needed)).size).toBeGreaterThan(0);
    }
    expect(Bun.file(join(context, ".git/HEAD")).size).toBe(0);
    expect(Bun.file(join(context, "node_modules/.bin/bun")).size).toBe(0);
    symlinkSync(join(repoRoot, "node_modules"), join(context, "node_modules"));

    const workdir = buildStage?.find((i) => i.op === "WORKDIR")?.args as string;
    const step = buildStage?.find((i) => i.op === "RUN" && i.args.includes("scripts/build"))?.args as string;
    // RUN's shell form is /bin/sh -c (dash on Debian).
    const result = run(["sh", "-c", step], {
      cwd: context,
      env: { ...cleanEnv, TARGETARCH: process.arch === "arm64" ? "arm64" : "amd64", FIELDHUB_COMMIT: "dockertest" },
      timeoutMs: 120_000,
    });
    if (result.code !== 0) throw new Error(`the Dockerfile's build step failed:\n${result.stdout}\n${result.stderr}`);

    const copies = runtimeStage?.filter((i) => i.op === "COPY") ?? [];
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const [source] = copy.args.split(/\s+/).filter((word) => !word.startsWith("--"));
      const fromBuild = copy.args.includes("--from=build");
      const path = fromBuild
        ? join(context, (source as string).slice(workdir.length + 1))
        : join(context, source as string);
      expect(Bun.file(path).size).toBeGreaterThan(0);
    }
    const copied = join(context, "dist", "fieldhub");
    expect(run([copied, "version"]).stdout).toBe(`fieldhub ${packageJson.version} (dockertest)\n`);
  });

  test("its entrypoint serves the default config, its healthcheck passes, and SIGTERM stops it cleanly", async () => {
    const port = freePort();
    const entrypoint = JSON.parse(runtimeStage?.find((i) => i.op === "ENTRYPOINT")?.args ?? "[]") as string[];
    const data = join(work, "serve-data");
    const args = entrypoint
      .slice(1)
      .map((arg) => (arg === "/etc/fieldhub/fieldhub.yaml" ? join(repoRoot, "fieldhub.example.yaml") : arg))
      .map((arg) => (arg === "/var/lib/fieldhub" ? data : arg));
    const served = await start([...args, "--host", "127.0.0.1", "--port", String(port)], /"url":"http/);

    const healthcheck = runtimeStage?.find((i) => i.op === "HEALTHCHECK")?.args ?? "";
    const command = JSON.parse(/CMD (\[.*\])$/.exec(healthcheck)?.[1] ?? "[]") as string[];
    expect(command.join(" ")).toContain("127.0.0.1/8080");
    const onPort = command.map((arg) => arg.replace("127.0.0.1/8080", `127.0.0.1/${port}`));
    const healthy = run(onPort, { timeoutMs: 5_000 });
    expect(`${healthy.code} ${healthy.stderr}`).toBe("0 ");

    served.proc.kill("SIGTERM");
    const code = await Promise.race([served.proc.exited, Bun.sleep(10_000).then(() => "still running")]);
    expect(code).toBe(0);

    // Nothing listening: the healthcheck fails.
    expect(run(onPort, { timeoutMs: 5_000 }).code).not.toBe(0);
  });
});
