/** pino: JSON lines for machines; pretty lines when a person watches a terminal. */
import pino from "pino";

export type Logger = pino.Logger;

export function createLogger(options: { level?: string; pretty?: boolean } = {}): Logger {
  const level = options.level ?? process.env.FIELDHUB_LOG_LEVEL ?? "info";
  const pretty = options.pretty ?? (process.stdout.isTTY === true && process.env.CI !== "true");
  if (!pretty) return pino({ level, base: { app: "fieldhub" } });
  return pino({
    level,
    base: undefined,
    transport: { target: "pino-pretty", options: { colorize: true, translateTime: "SYS:HH:MM:ss.l" } },
  });
}

/** A logger that drops everything, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
