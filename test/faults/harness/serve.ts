/**
 * A real `fieldhub serve` (or `demo`) child process, started the way systemd
 * starts it (`bun src/main.ts serve --config FILE --data DIR`), optionally under
 * a changed environment (libfaketime), with its output collected as it arrives.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { collectOutput, repoRoot, runCli, servedUrl } from "../../harness/cli.ts";

export interface ServeOptions {
  /** The config file's text (serve only). */
  yaml?: string;
  /** Where the config file is written (and, without `dataDir`, where `data/` goes). */
  workDir: string;
  dataDir?: string;
  /** Added to the child's environment (e.g. libfaketime's). */
  env?: Record<string, string>;
  command?: "serve" | "demo";
  extraArgs?: string[];
}

export type RunningServe = Awaited<ReturnType<typeof startServe>>;

/** Spawns the process; `ready` resolves with its URL once it logs that it serves. */
export function spawnServe(options: ServeOptions) {
  const command = options.command ?? "serve";
  const dataDir = options.dataDir ?? join(options.workDir, "data");
  const args = [process.execPath, "src/main.ts", command];
  const configPath = join(options.workDir, "fieldhub.yaml");
  if (command === "serve") {
    mkdirSync(options.workDir, { recursive: true });
    writeFileSync(configPath, options.yaml ?? "organizations: [{ key: site, name: Site }]\n");
    args.push("--config", configPath);
  }
  args.push("--data", dataDir, "--host", "127.0.0.1", "--port", "0", ...(options.extraArgs ?? []));
  const proc = Bun.spawn(args, {
    cwd: repoRoot,
    env: { ...process.env, CI: "true", ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const { stdout, stderr } = collectOutput(proc);
  const output = () => `stdout:\n${stdout().slice(-4000)}\nstderr:\n${stderr().slice(-4000)}`;
  const logLines = (): Record<string, unknown>[] =>
    stdout()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  return {
    proc,
    dataDir,
    stdout,
    stderr,
    output,
    /** The parsed JSON log lines so far. */
    logLines,
    alive: () => proc.exitCode === null && proc.signalCode === null,
    /** Writes the config file anew, sends SIGHUP and waits for the reload's log line (serve only). */
    async reload(yaml: string): Promise<void> {
      const reloads = () => logLines().filter((line) => String(line.msg).startsWith("config reloaded")).length;
      const done = reloads();
      writeFileSync(configPath, yaml);
      proc.kill("SIGHUP");
      await eventually(reloads, (count) => count === done + 1);
    },
    async waitForUrl(timeoutMs = 20_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const url = command === "demo" ? demoUrl(stdout()) : servedUrl(stdout());
        if (url !== null) return url;
        if (proc.exitCode !== null) break;
        await Bun.sleep(25);
      }
      throw new Error(`${command} did not start serving (exit ${proc.exitCode}).\n${output()}`);
    },
    /** SIGTERM, then SIGKILL after `timeoutMs`. */
    async stop(timeoutMs = 5_000): Promise<void> {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const code = await Promise.race([proc.exited, Bun.sleep(timeoutMs).then(() => null)]);
      if (code === null) {
        proc.kill("SIGKILL");
        await proc.exited;
      }
    },
  };
}

/** Starts serve/demo and waits until it answers HTTP. */
export async function startServe(options: ServeOptions) {
  const running = spawnServe(options);
  const url = await running.waitForUrl();
  return { ...running, url };
}

function demoUrl(stdout: string): string | null {
  return servedUrl(stdout) ?? /(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] ?? null;
}

/** A key of `org` made with the CLI beside the running server (as an operator does). */
export async function createKey(
  dataDir: string,
  org: string,
  scopes = "devices:read,registers:read,alerts:read",
  env: Record<string, string> = {},
) {
  const created = await runCli(
    [
      "keys",
      "create",
      "--data",
      dataDir,
      "--org",
      org,
      "--name",
      "fault-test",
      "--scopes",
      scopes,
      "--rate-limit",
      "100000",
      "--json",
    ],
    30_000,
    env,
  );
  if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  return JSON.parse(created.stdout) as { key: string; id: string };
}

/** A webhook endpoint of `org` for `events`, made with the CLI beside the running server: its id and signing secret. */
export async function createEndpoint(dataDir: string, org: string, url: string, events: readonly string[]) {
  const args = ["endpoints", "create", "--data", dataDir, "--org", org, "--url", url, "--events", events.join(",")];
  const created = await runCli([...args, "--json"]);
  if (created.code !== 0) throw new Error(`endpoints create failed: ${created.stderr}`);
  return JSON.parse(created.stdout) as { id: string; secret: string };
}

/** Polls `read` until `accept` holds; throws with the last value after `timeoutMs`. */
export async function eventually<T>(
  read: () => Promise<T> | T,
  accept: (value: T) => boolean,
  timeoutMs = 10_000,
  stepMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!accept(last)) {
    if (Date.now() > deadline)
      throw new Error(`not reached in ${timeoutMs} ms; last: ${JSON.stringify(last).slice(0, 1500)}`);
    await Bun.sleep(stepMs);
    last = await read();
  }
  return last;
}

/** A short CLI command under a changed environment (the same libfaketime clock as the server). */
export async function runCliIn(env: Record<string, string>, args: string[]) {
  const proc = Bun.spawn([process.execPath, "src/main.ts", ...args], {
    cwd: repoRoot,
    env: { ...process.env, CI: "true", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** A counter's value from /metrics (summed over its labels). */
export async function metricValue(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

/** Waits until `request` is answered 200 (a fault's recovery); throws after `timeoutMs`. */
export async function untilAnswered200(request: () => Promise<Response>, timeoutMs = 15_000): Promise<void> {
  await eventually(
    async () => {
      const response = await request();
      await response.arrayBuffer();
      return response.status;
    },
    (status) => status === 200,
    timeoutMs,
    200,
  );
}

/** The log lines of an error fieldhub did not handle: a 500, or one caught only by the process's last-line handler. */
export function strayErrors(server: { logLines(): Record<string, unknown>[] }): Record<string, unknown>[] {
  return server
    .logLines()
    .filter((line) => /unhandled rejection|uncaught exception|request failed/.test(String(line.msg)));
}
