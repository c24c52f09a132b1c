/**
 * Another process holding the store's write lock, as a backup script or a
 * second tool would: Debian's sqlite3 CLI runs `BEGIN IMMEDIATE` and keeps the
 * transaction open for the time asked.
 */
import { join } from "node:path";

export const sqlite3 = "/usr/bin/sqlite3";

/** Resolves once the lock is held; `released` resolves when the holder has ended. */
export async function holdWriteLock(dataDir: string, holdMs: number) {
  const proc = Bun.spawn([sqlite3, join(dataDir, "fieldhub.db")], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  proc.stdin.write(".timeout 10000\nBEGIN IMMEDIATE;\nSELECT 'LOCKED';\n");
  proc.stdin.flush();
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 15_000;
  while (!text.includes("LOCKED")) {
    if (Date.now() > deadline) throw new Error(`sqlite3 did not take the write lock: ${text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`sqlite3 ended before taking the lock: ${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const timer = setTimeout(() => {
    proc.stdin.write("ROLLBACK;\n.quit\n");
    proc.stdin.end();
  }, holdMs);
  return {
    released: proc.exited,
    kill(): void {
      clearTimeout(timer);
      proc.kill("SIGKILL");
    },
  };
}
