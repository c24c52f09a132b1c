/**
 * What `serve` and `demo` share as processes: the data directory's lock, its
 * store, the appliance started on it, and a clean stop on SIGINT/SIGTERM.
 */
import type { Appliance } from "../app/appliance.ts";
import { DataDirInUseError, lockDataDir } from "../app/data-dir-lock.ts";
import { ListenError } from "../app/http-server.ts";
import { defaultLogFormat, type LogFormat, type Logger, logFormats } from "../lib/logger.ts";
import { databaseUrlVariable, type Store } from "../store/index.ts";
import { CommandError, UsageError } from "./args.ts";
import { openCommandStore } from "./command-store.ts";
import { newStoreNote, prepareDataDir, reason } from "./data-dir.ts";

/** What `runAppliance` started, and whether its store is new. */
export interface RunningAppliance {
  appliance: Appliance;
  /** The banner's and log's words about a new store, or null when the store was there. */
  newStore: string | null;
}

/**
 * Checks DATA (created only inside a parent that exists, data-dir.ts), locks it
 * (or fails at once naming the running pid), opens its store and runs `start` on
 * it; stops everything `start` started on SIGINT/SIGTERM.
 */
export async function runAppliance(
  dataDir: string,
  logger: Logger,
  start: (store: Store) => Promise<{ appliance: Appliance; stopAlso?: () => Promise<void> }>,
): Promise<RunningAppliance> {
  // What the config's checks left behind goes before the appliance starts, not on top of its start (docs/benchmarks.md, "Footprint").
  Bun.gc(true);
  const newStore = newStoreNote(dataDir, prepareDataDir(dataDir, onPostgres()));
  let lock: ReturnType<typeof lockDataDir>;
  try {
    lock = lockDataDir(dataDir);
  } catch (error) {
    if (error instanceof DataDirInUseError) throw new CommandError(error.message);
    if (typeof (error as NodeJS.ErrnoException).code === "string") {
      throw new CommandError(`--data ${dataDir}: cannot take its lock: ${reason(error)}`);
    }
    throw error;
  }
  if (newStore !== null) logger.info({ data: dataDir, new_store: true }, newStore);
  // The serving process never waits long for another process's lock: a write is
  // synchronous and would hold every request; its writers retry on timers instead
  //. The short CLI commands keep the default and may wait.
  const store = await openCommandStore(dataDir, { busyTimeoutMs: servingBusyTimeoutMs });
  keepRunningOnStrayErrors(logger);
  let started: Awaited<ReturnType<typeof start>>;
  try {
    started = await start(store);
  } catch (error) {
    await store.close();
    lock.release();
    if (error instanceof ListenError) throw new CommandError(error.message);
    throw error;
  }
  const { appliance, stopAlso } = started;
  // The executable starts with JIT tier-up thresholds 100 times the normal ones
  // (scripts/build --compile-jit-policy): start-up code (the config's checks, the
  // migrations) runs a few times and is not worth optimising. From here on they are
  // 30 times the normal ones: a loop that runs hot (a history page, an export) is
  // still optimised within its first milliseconds, while the poll path, run every
  // few seconds, is not optimised for nothing; the optimised code it no longer keeps
  // is about 1.7 MB of a 1,000-register box (docs/benchmarks.md, "Footprint").
  Bun.unsafe.setJITPolicy(jitPolicyWhileServing);
  stopOnSignals(async () => {
    await appliance.stop();
    await stopAlso?.();
    await store.close();
    lock.release();
  }, logger);
  return { appliance, newStore };
}

/**
 * `--log-format json|pretty` of serve and demo; without it, pretty on a terminal
 * and JSON lines otherwise (README, "Command line").
 */
export function parseLogFormat(text: string | undefined): LogFormat {
  if (text === undefined) return defaultLogFormat();
  const format = logFormats.find((known) => known === text);
  if (format === undefined) throw new UsageError(`--log-format: json or pretty, not ${JSON.stringify(text)}`);
  return format;
}

/**
 * Prints the banner, the lines for a person at start: on stdout beside pretty log
 * lines; on stderr with JSON lines, so that stdout stays JSON only (journald, log
 * shippers).
 */
export function printBanner(format: LogFormat, text: string): void {
  (format === "json" ? process.stderr : process.stdout).write(text.endsWith("\n") ? text : `${text}\n`);
}

function onPostgres(): boolean {
  return (process.env[databaseUrlVariable] ?? "") !== "";
}

/** JIT tier-up thresholds, as a multiple of the normal ones, once the appliance runs (docs/benchmarks.md, "Footprint"). */
const jitPolicyWhileServing = 30;

/** At most this long a write of the serving process waits for a lock (docs/reliability.md). */
const servingBusyTimeoutMs = 20;

/**
 * The last line, not the fix: every writer catches and retries what the store
 * refuses, but an error that still escapes to the event loop is logged and the
 * appliance goes on serving rather than ending.
 */
function keepRunningOnStrayErrors(logger: Logger): void {
  process.on("unhandledRejection", (reason) => logger.error({ err: reason }, "unhandled rejection; still running"));
  process.on("uncaughtException", (error) => logger.error({ err: error }, "uncaught exception; still running"));
}

/** Stops cleanly on SIGINT/SIGTERM, once: exit code 0, or 1 when stopping failed. */
function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, "stop failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => handler("SIGINT"));
  process.on("SIGTERM", () => handler("SIGTERM"));
}
