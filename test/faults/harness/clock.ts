/**
 * Steps the wall clock of a running process with Debian's libfaketime.
 *
 * Measured with Bun 1.4: with LD_PRELOAD of libfaketime.so.1,
 * FAKETIME_TIMESTAMP_FILE and FAKETIME_NO_CACHE=1, Date.now() follows each write
 * to the file ("+1d", "+0", "@2026-12-01 00:00:00") at once. libfaketime must not
 * fake the monotonic clock (DONT_FAKE_MONOTONIC=1): when it does, Bun's timers
 * (setTimeout, Bun.sleep) never fire after a step and the process hangs. That is
 * also the real world: NTP steps CLOCK_REALTIME, never CLOCK_MONOTONIC.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
export const hasFaketime = existsSync(libfaketime);
export const faketimeSkipReason = "needs Debian's libfaketime (apt-get install faketime)";

export function steppableClock(workDir: string) {
  const file = join(workDir, "faketime");
  writeFileSync(file, "+0\n");
  return {
    env: {
      LD_PRELOAD: libfaketime,
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_NO_CACHE: "1",
      DONT_FAKE_MONOTONIC: "1",
    },
    /** "+1d", "-2h", "+0" (the real time), or "@YYYY-MM-DD hh:mm:ss". */
    step(spec: string): void {
      writeFileSync(file, `${spec}\n`);
    },
  };
}
