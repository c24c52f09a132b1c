/**
 * One running appliance per data directory: `serve` and `demo` hold an
 * exclusive flock(2) on DATA/fieldhub.lock for as long as they run, with their
 * pid written in it. Two would poll the same buses and send every webhook twice.
 * The short CLI commands (keys, alerts, endpoints, admin) take no lock: they work
 * beside a running server through SQLite's own locking.
 *
 * flock rather than a lock held through SQLite: the lock and the pid that holds
 * it are one file (a SQLite lock blocks reading the database it locks, so the
 * pid would need a second file), and the kernel drops it when the process dies,
 * kill -9 included. It is called through bun:ffi as modbus/serial/termios.ts
 * calls libc; LOCK_EX and LOCK_NB have the same values on Linux and macOS.
 */
import { dlopen, FFIType } from "bun:ffi";
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

export const lockFileName = "fieldhub.lock";
const LOCK_EX = 2;
const LOCK_NB = 4;

/** Another process holds the data directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | null,
  ) {
    super(
      `${dataDir} is in use by another fieldhub (${pid === null ? "pid unknown" : `pid ${pid}`}); stop it first or pass another --data directory`,
    );
  }
}

export interface DataDirLock {
  /** Lets the next process in; the kernel does the same when this one dies. */
  release(): void;
}

let libc: { symbols: { flock(fd: number, operation: number): number } } | null = null;

function flock(fd: number, operation: number): number {
  libc ??= dlopen(process.platform === "darwin" ? "libc.dylib" : "libc.so.6", {
    flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  });
  return libc.symbols.flock(fd, operation);
}

/**
 * Takes the lock of DATA (a directory that exists: the command checked or created
 * it), or throws `DataDirInUseError` at once (no waiting).
 */
export function lockDataDir(dataDir: string): DataDirLock {
  // Private, whoever made it: the store beside it holds secrets.
  if ((statSync(dataDir).mode & 0o077) !== 0) chmodSync(dataDir, 0o700);
  const path = join(dataDir, lockFileName);
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    closeSync(fd);
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    throw new DataDirInUseError(dataDir, Number.isInteger(pid) && pid > 0 ? pid : null);
  }
  // Written over the old content, then cut to length: on a full disk the file's
  // existing block takes the pid, where truncating first would need a new one. The
  // pid only helps the message of a second start; the lock is what counts.
  const pid = `${process.pid}\n`;
  try {
    writeSync(fd, pid, 0);
    ftruncateSync(fd, Buffer.byteLength(pid));
  } catch {
    // A full disk: run without the pid in the file.
  }
  return {
    release() {
      // Emptied first, so no one reads this pid as the holder's after the lock is gone.
      try {
        ftruncateSync(fd, 0);
      } catch {
        // Nothing to do: the next holder writes over it.
      }
      closeSync(fd);
    },
  };
}
