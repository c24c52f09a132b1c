/**
 * Where `fieldhub demo` keeps its store when no --data is given: a directory of
 * the user's own (XDG state directory), created 0700. A directory of another
 * user at that path is refused: its store would hold someone else's keys and
 * admin accounts.
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";

export class DemoDataDirError extends Error {}

/** $XDG_STATE_HOME/fieldhub-demo, else ~/.local/state/fieldhub-demo; /tmp/fieldhub-demo-UID without a home. */
export function defaultDemoDataDir(env: Record<string, string | undefined> = process.env): string {
  const stateHome = env.XDG_STATE_HOME;
  if (stateHome !== undefined && isAbsolute(stateHome)) return join(stateHome, "fieldhub-demo");
  const home = env.HOME ?? homedir();
  if (home !== "" && home !== "/") return join(home, ".local", "state", "fieldhub-demo");
  return join(tmpdir(), `fieldhub-demo-${process.getuid?.() ?? "user"}`);
}

/** Creates DIR (0700) or checks that the one found is a directory of this user, made private. */
export function prepareDemoDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const found = statSync(dir);
  if (!found.isDirectory()) throw new DemoDataDirError(`${dir} is not a directory; pass --data DIR`);
  const uid = process.getuid?.();
  if (uid !== undefined && found.uid !== uid) {
    throw new DemoDataDirError(
      `${dir} belongs to another user (uid ${found.uid}, you are uid ${uid}); remove it or pass --data DIR`,
    );
  }
  if ((found.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
