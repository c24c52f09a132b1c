/**
 * A real small filesystem that fills: a tmpfs mounted by the test (needs root),
 * filled with a file written until ENOSPC and freed by deleting that file.
 */
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export const isRoot = process.getuid?.() === 0;
export const smallFsSkipReason = "needs root to mount a small tmpfs for the data directory";

export async function mountSmallFs(dir: string, sizeMb = 8) {
  mkdirSync(dir, { recursive: true });
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", dir]);
  if (mount.exitCode !== 0) throw new Error(`mount tmpfs on ${dir} failed: ${mount.stderr.toString()}`);
  const filler = join(dir, "filler");
  return {
    dir,
    /** Writes until the filesystem refuses (ENOSPC): no byte is left for the store. */
    fill(): void {
      const fd = openSync(filler, "a");
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
      // The last few bytes too: a smaller write may still fit.
      const small = Buffer.alloc(512, 1);
      try {
        for (;;) writeSync(fd, small);
      } catch {
        // full
      }
      closeSync(fd);
    },
    free(): void {
      rmSync(filler, { force: true });
    },
    unmount(): void {
      Bun.spawnSync(["umount", "-l", dir]);
    },
  };
}
