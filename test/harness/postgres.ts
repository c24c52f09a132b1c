/**
 * A private PostgreSQL for tests and benchmarks, from Debian's packages
 * (`postgresql`, installed by scripts/test-peers.sh): initdb in a temp directory, a
 * free port on 127.0.0.1, the unix socket in the same directory, fsync off (the
 * data is thrown away), stopped and removed afterwards.
 *
 * PostgreSQL refuses to run as root, and the tests here run as root: then initdb
 * and the server run as `nobody` (setpriv), with the temp directory chowned to it.
 * As any other user they run as that user.
 */
import { spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const binCandidates = [process.env.FIELDHUB_PG_BIN, "/usr/lib/postgresql/15/bin"];

function findBin(): string | null {
  for (const dir of binCandidates) if (dir !== undefined && existsSync(join(dir, "postgres"))) return dir;
  // Another Debian major version.
  if (existsSync("/usr/lib/postgresql")) {
    for (const version of readdirSync("/usr/lib/postgresql").sort().reverse()) {
      const dir = `/usr/lib/postgresql/${version}/bin`;
      if (existsSync(join(dir, "postgres"))) return dir;
    }
  }
  return null;
}

const bin = findBin();

/** Whether a private PostgreSQL can be started here (for test.skipIf). */
export const postgresAvailable = bin !== null;
export const postgresMissingReason = "skipped without PostgreSQL: Debian apt-get install postgresql";

export interface PrivatePostgres {
  /** postgres://fieldhub@127.0.0.1:PORT/fieldhub */
  url: string;
  port: number;
  /** The data directory (for a test that looks at files). */
  dataDir: string;
  /** A new empty database on the same server; returns its URL (one per test that wants a clean store). */
  database(name: string): Promise<string>;
  /** Stops the server as `pg_ctl stop -m fast` does, keeping its data and port for `resume`. */
  halt(): Promise<void>;
  /** Starts the halted server again on the same data and port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const nobody = 65534;
const asRoot = process.getuid?.() === 0;

/** The command as the unprivileged user when we are root. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  if (!asRoot) return [command, args];
  return ["setpriv", [`--reuid=${nobody}`, `--regid=${nobody}`, "--clear-groups", "--", command, ...args]];
}

function chownTree(path: string): void {
  chownSync(path, nobody, nobody);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child);
    else chownSync(child, nobody, nobody);
  }
}

/** A port nothing listens on right now (bound on port 0 and released; the server may still lose a race, so starting retries). */
async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const running = new Set<{ kill(signal: NodeJS.Signals): void }>();
// A test run that ends without stop() (a crash, an uncaught failure) still leaves no server behind.
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export interface PostgresOptions {
  /** shared_buffers (default 64MB: several test files may run servers at once). */
  sharedBuffers?: string;
  /** Keep fsync, full page writes and synchronous commit on, as in service (benchmarks); tests turn them off. */
  durable?: boolean;
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PrivatePostgres> {
  if (bin === null) throw new Error(postgresMissingReason);
  const root = mkdtempSync(join(tmpdir(), "fieldhub-pg-"));
  const dataDir = join(root, "data");
  if (asRoot) chownTree(root);
  const [initCommand, initArgs] = asServerUser(join(bin, "initdb"), [
    "-D",
    dataDir,
    "-U",
    "fieldhub",
    "-A",
    "trust",
    "-E",
    "UTF8",
    "--no-sync",
    "--no-instructions",
  ]);
  const init = spawnSync(initCommand, initArgs, { encoding: "utf8" });
  if (init.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr}`);
  }
  type Server = ReturnType<typeof spawn>;
  /** The server on `port`; null when it did not come up (its log says why). */
  const launch = async (port: number): Promise<{ child: Server | null; log: string }> => {
    const [command, args] = asServerUser(join(bin, "postgres"), [
      "-D",
      dataDir,
      "-p",
      String(port),
      "-k",
      root,
      "-c",
      "listen_addresses=127.0.0.1",
      ...(options.durable === true
        ? []
        : ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
      "-c",
      `shared_buffers=${options.sharedBuffers ?? "64MB"}`,
      "-c",
      "max_connections=50",
    ]);
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    running.add(child);
    let log = "";
    const started = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 30_000);
      child.stderr?.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("ready to accept connections")) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once("exit", () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!started) {
      child.kill("SIGKILL");
      running.delete(child);
      return { child: null, log };
    }
    child.stderr?.removeAllListeners("data");
    child.stderr?.resume();
    return { child, log };
  };
  /** Fast shutdown (SIGINT, what `pg_ctl stop -m fast` sends): clients are disconnected, the data stays. */
  const halt = async (child: Server): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    running.delete(child);
  };
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const launched = await launch(port);
    if (launched.child === null) {
      if (attempt < 5 && /could not bind|Address already in use/.test(launched.log)) continue;
      rmSync(root, { recursive: true, force: true });
      throw new Error(`postgres did not start:\n${launched.log}`);
    }
    let child: Server = launched.child;
    const createdb = spawnSync(
      join(bin, "createdb"),
      ["-h", "127.0.0.1", "-p", String(port), "-U", "fieldhub", "fieldhub"],
      { encoding: "utf8" },
    );
    if (createdb.status !== 0) {
      child.kill("SIGKILL");
      running.delete(child);
      rmSync(root, { recursive: true, force: true });
      throw new Error(`createdb failed: ${createdb.stderr}`);
    }
    const url = `postgres://fieldhub@127.0.0.1:${port}/fieldhub`;
    return {
      url,
      port,
      dataDir,
      async database(name: string) {
        const admin = new Bun.SQL(url, { max: 1 });
        try {
          await admin.unsafe(`CREATE DATABASE "${name.replace(/"/g, "")}"`);
        } finally {
          await admin.close();
        }
        return `postgres://fieldhub@127.0.0.1:${port}/${encodeURIComponent(name)}`;
      },
      halt: () => halt(child),
      async resume() {
        const again = await launch(port);
        if (again.child === null) throw new Error(`postgres did not start again:\n${again.log}`);
        child = again.child;
      },
      async stop() {
        await halt(child);
        rmSync(root, { recursive: true, force: true });
      },
    };
  }
}
