/**
 * The `--data` directory of `serve` and `demo`. They may start a new store, but a
 * mistyped path must not quietly become one (an empty store and a new setup token
 * look like lost data): the directory is created only inside a parent that exists,
 * and a new store is announced (README, "Command line"; docs/install.md).
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { storeFileName } from "../store/index.ts";
import { CommandError } from "./args.ts";

/** What the start found in the directory. */
export interface PreparedDataDir {
  /** The directory did not exist and was created now. */
  created: boolean;
  /** It holds no store file: this start makes a new, empty store (SQLite only; a central's store is PostgreSQL). */
  newStore: boolean;
}

export function prepareDataDir(dataDir: string, onPostgres: boolean): PreparedDataDir {
  const found = statOrNull(dataDir);
  let created = false;
  if (found === null) {
    const parent = dirname(resolve(dataDir));
    const parentFound = statOrNull(parent);
    if (parentFound === null || !parentFound.isDirectory()) {
      throw new CommandError(
        `--data ${dataDir}: no such directory, and its parent ${parent} ${parentFound === null ? "does not exist" : "is not a directory"}; check the path (a data directory is created only inside one that exists)`,
      );
    }
    try {
      // Private, whoever creates it: the store in it holds secrets.
      mkdirSync(dataDir, { mode: 0o700 });
    } catch (error) {
      throw new CommandError(`--data ${dataDir}: cannot create it: ${reason(error)}`);
    }
    created = true;
  } else if (!found.isDirectory()) {
    throw new CommandError(
      `--data ${dataDir}: not a directory; give the directory that holds (or will hold) the store`,
    );
  }
  return { created, newStore: !onPostgres && !existsSync(join(dataDir, storeFileName)) };
}

/** What the operator reads about a new store, in the banner and the log; null when the store was there. */
export function newStoreNote(dataDir: string, prepared: PreparedDataDir): string | null {
  if (!prepared.newStore) return null;
  return prepared.created
    ? `created ${dataDir} and a new, empty store in it`
    : `a new, empty store in ${dataDir} (it held no ${storeFileName})`;
}

function statOrNull(path: string) {
  try {
    return statSync(path);
  } catch (error) {
    // ENOTDIR: a file on the way, reported as the parent that is not a directory.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw new CommandError(`--data ${path}: ${reason(error)}`);
  }
}

/** An fs error in words, without the stack: `permission denied`. */
export function reason(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return typeof code === "string"
    ? `${message.replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/, "")} (${code})`
    : String(error);
}
