/**
 * Progress of a long history command on stderr: a redrawn bar with rate and ETA
 * when stderr is a terminal, a plain line every few seconds otherwise (logs,
 * pipes), nothing when quiet. The caller reports rows done and, when it knows one,
 * the fraction of the work done; the ETA follows that fraction.
 */
export interface ProgressOptions {
  /** What is counted: "rows exported", "rows read", ... */
  label: string;
  /** The unit of the rate (default "rows": rows/s). */
  unit?: string;
  quiet: boolean;
  /** Where it goes (default process.stderr). */
  out?: { isTTY?: boolean; write(text: string): unknown };
  /** Milliseconds between plain lines when not a terminal (default 5000). */
  plainEveryMs?: number;
}

export interface Progress {
  /** `fraction` is 0 to 1, or null when the total is not known (reading stdin, say). */
  update(rows: number, fraction: number | null): void;
  /** Clears the bar and prints the summary line (none when empty); quiet prints neither. */
  done(summary: string): void;
}

const barWidth = 30;

export function createProgress(options: ProgressOptions): Progress {
  const out = options.out ?? process.stderr;
  if (options.quiet) return { update() {}, done() {} };
  const tty = out.isTTY === true;
  const started = performance.now();
  const everyMs = tty ? 100 : (options.plainEveryMs ?? 5000);
  let shownAt = started;
  let drawn = false;

  return {
    update(rows, fraction) {
      const now = performance.now();
      if (now - shownAt < everyMs) return;
      shownAt = now;
      const seconds = (now - started) / 1000;
      const rate = `${formatCount(rows / Math.max(seconds, 0.001))} ${options.unit ?? "rows"}/s`;
      const share = fraction === null ? null : Math.min(1, Math.max(0, fraction));
      const eta = share === null || share <= 0 ? "" : ` ETA ${formatDuration((seconds * (1 - share)) / share)}`;
      if (tty) {
        const filled = share === null ? 0 : Math.round(share * barWidth);
        const bar =
          share === null ? "" : `[${"#".repeat(filled)}${".".repeat(barWidth - filled)}] ${Math.floor(share * 100)}% `;
        out.write(`\r\x1b[2K${bar}${formatCount(rows)} ${options.label}, ${rate}${eta}`);
        drawn = true;
      } else {
        const percent = share === null ? "" : ` (${Math.floor(share * 100)}%)`;
        out.write(`${formatCount(rows)} ${options.label}${percent}, ${rate}${eta}\n`);
      }
    },
    done(summary) {
      if (drawn) out.write("\r\x1b[2K");
      if (summary !== "") out.write(`${summary}\n`);
    },
  };
}

function formatCount(count: number): string {
  if (count >= 1e6) return `${(count / 1e6).toFixed(1)}M`;
  if (count >= 1e4) return `${Math.round(count / 1e3)}k`;
  return String(Math.round(count));
}

function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  const hours = Math.floor(minutes / 60);
  const pad = (n: number) => String(n).padStart(2, "0");
  return hours > 0 ? `${hours}:${pad(minutes % 60)}:${pad(whole % 60)}` : `${minutes}:${pad(whole % 60)}`;
}
