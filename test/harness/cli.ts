/**
 * fieldhub's CLI as a user runs it: separate processes from the source tree
 * (CI=true, so logs are JSON lines on stdout and the banners of serve and demo on
 * stderr), with their output collected as it arrives.
 */
import { join } from "node:path";

export const repoRoot = join(import.meta.dir, "..", "..");
const bun = process.execPath;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function spawnCli(args: string[], env: Record<string, string> = {}) {
  return Bun.spawn([bun, "src/main.ts", ...args], {
    cwd: repoRoot,
    env: { ...process.env, CI: "true", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** Runs the CLI to its end; a process still running after `timeoutMs` is killed and fails the test. */
export async function runCli(args: string[], timeoutMs = 15_000, env: Record<string, string> = {}): Promise<CliResult> {
  const proc = spawnCli(args, env);
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (proc.signalCode === "SIGKILL") {
      throw new Error(`fieldhub ${args.join(" ")} was still running after ${timeoutMs} ms:\n${stdout}\n${stderr}`);
    }
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

export type RunningCli = ReturnType<typeof startCli>;

/** Collects a child's stdout and stderr as they arrive; each getter returns all so far. */
export function collectOutput(proc: { stdout: ReadableStream<Uint8Array>; stderr: ReadableStream<Uint8Array> }) {
  let stdout = "";
  let stderr = "";
  const pump = async (stream: ReadableStream<Uint8Array>, add: (text: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
  };
  void pump(proc.stdout, (text) => {
    stdout += text;
  });
  void pump(proc.stderr, (text) => {
    stderr += text;
  });
  return { stdout: () => stdout, stderr: () => stderr };
}

/** A long-running CLI process (serve, demo) whose output is collected as it arrives. */
export function startCli(args: string[], env: Record<string, string> = {}) {
  const proc = spawnCli(args, env);
  const { stdout, stderr } = collectOutput(proc);
  return {
    proc,
    stdout,
    stderr,
    /**
     * Waits until `find` returns something for the output so far. With JSON logs
     * (CI=true) stdout is the log and stderr the banner (src/cli/appliance-process.ts).
     */
    async waitFor<T>(find: (stdout: string, stderr: string) => T | null, timeoutMs = 15_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const found = find(stdout(), stderr());
        if (found !== null) return found;
        if (proc.exitCode !== null) break;
        await Bun.sleep(25);
      }
      throw new Error(
        `process did not print what was awaited (exit ${proc.exitCode}).\nstdout:\n${stdout()}\nstderr:\n${stderr()}`,
      );
    },
    /** SIGTERM, then SIGKILL after `timeoutMs`; the exit code, or null when it had to be killed. */
    async stop(timeoutMs = 10_000): Promise<number | null> {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      const code = await Promise.race([proc.exited, Bun.sleep(timeoutMs).then(() => null)]);
      if (code === null) proc.kill("SIGKILL");
      return code;
    },
  };
}

/** The arguments of `serve` on CONFIG and DATA, on 127.0.0.1 and any free port. */
export function serveArgs(configPath: string, dataDir: string, ...extra: string[]): string[] {
  return ["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0", ...extra];
}

/** `serve` logs pino JSON lines on stdout; one of them carries the URL it serves on. */
export function servedUrl(stdout: string): string | null {
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line) as { url?: unknown };
      if (typeof entry.url === "string") return entry.url;
    } catch {
      // a partial line: wait for the rest
    }
  }
  return null;
}

/** A port nothing listens on right now: bound on port 0, then released. */
export function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}
