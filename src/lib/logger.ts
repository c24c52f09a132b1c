/**
 * pino: JSON lines for machines (journald, log shippers); pretty lines when a
 * person watches a terminal. `serve` and `demo` choose with `--log-format`
 * (README, "Command line").
 */
import pino from "pino";

export type Logger = pino.Logger;

export const logFormats = ["json", "pretty"] as const;
export type LogFormat = (typeof logFormats)[number];

/** Without a choice: pretty when stdout is a terminal (and not in CI), JSON lines otherwise. */
export function defaultLogFormat(): LogFormat {
  return process.stdout.isTTY === true && process.env.CI !== "true" ? "pretty" : "json";
}

export function createLogger(options: { level?: string; format?: LogFormat; destination?: 1 | 2 } = {}): Logger {
  const level = options.level ?? process.env.FIELDHUB_LOG_LEVEL ?? "info";
  const destination = options.destination ?? 1;
  if ((options.format ?? defaultLogFormat()) === "json") {
    return pino({ level, base: { app: "fieldhub" } }, pino.destination({ fd: destination, sync: true }));
  }
  // pino-pretty as a stream in this thread, not a transport: a transport loads
  // its module by name in a worker, which a compiled executable cannot do.
  // Required here, not imported: a box logging JSON never evaluates it
  // (docs/benchmarks.md, "Footprint").
  const pretty = require("pino-pretty") as typeof import("pino-pretty");
  return pino(
    { level, base: undefined },
    pretty({ colorize: isTerminal(destination), translateTime: "SYS:HH:MM:ss.l", sync: true, destination }),
  );
}

function isTerminal(fd: 1 | 2): boolean {
  return (fd === 1 ? process.stdout : process.stderr).isTTY === true;
}

/** A logger that drops everything, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
