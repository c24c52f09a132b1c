/** pino: JSON lines for machines; pretty lines when a person watches a terminal. */
import pino from "pino";
import pretty from "pino-pretty";

export type Logger = pino.Logger;

export function createLogger(options: { level?: string; pretty?: boolean } = {}): Logger {
  const level = options.level ?? process.env.FIELDHUB_LOG_LEVEL ?? "info";
  const wantPretty = options.pretty ?? (process.stdout.isTTY === true && process.env.CI !== "true");
  if (!wantPretty) return pino({ level, base: { app: "fieldhub" } });
  // pino-pretty as a stream in this thread, not a transport: a transport loads
  // its module by name in a worker, which a compiled executable cannot do.
  return pino({ level, base: undefined }, pretty({ colorize: true, translateTime: "SYS:HH:MM:ss.l", sync: true }));
}

/** A logger that drops everything, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
