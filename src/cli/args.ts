/** Command-line parsing on node:util's parseArgs, with usage errors that name the command. */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { databaseUrlVariable, storeFileName } from "../store/index.ts";

/** A mistake in how a command was called: printed with its usage, exit code 2. */
export class UsageError extends Error {}

/** A command that ran and failed for a stated reason: exit code 1. */
export class CommandError extends Error {}

export function parseCommandArgs<const Options extends NonNullable<ParseArgsConfig["options"]>>(
  argv: string[],
  options: Options,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function requireOption(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`${flag} is required`);
  return value;
}

export function parsePort(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port: not a port number: ${text}`);
  return port;
}

/**
 * `--data` of a command that works on an existing store (all but serve and demo):
 * a mistyped directory is refused instead of silently getting a new, empty store.
 */
export function requireDataDir(value: string | undefined): string {
  const dataDir = requireOption(value, "--data");
  // On a central the store is PostgreSQL (command-store.ts): the directory holds no store file.
  const onPostgres = (process.env[databaseUrlVariable] ?? "") !== "";
  if (!onPostgres && existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    throw new CommandError(
      `--data ${dataDir}: not a directory; give the --data directory \`fieldhub serve\` runs with`,
    );
  }
  if (!onPostgres && !existsSync(join(dataDir, storeFileName))) {
    throw new CommandError(
      `no fieldhub store in ${dataDir} (no ${storeFileName} there); give the --data directory \`fieldhub serve\` runs with`,
    );
  }
  return dataDir;
}
