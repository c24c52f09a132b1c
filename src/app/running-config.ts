/**
 * The config a `serve` runs, recorded in its data directory at start and at each
 * reload (`DATA/running-config.json`: the file's path, hash and load time, and the
 * config as the diff compares it, its secrets as hashes), so that `fieldhub config
 * check FILE --data DIR` can say what a reload would change without asking the
 * process (docs/config.md, "Reloading the config").
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConfigSnapshot } from "../config/index.ts";

export interface RecordedConfig {
  sha256: string;
  /** ISO 8601 time of the load. */
  loadedAt: string;
  /** The file as serve was given it. */
  path: string;
  config: ConfigSnapshot;
}

const fileName = "running-config.json";

/** Written whole (a temporary file renamed over it): a reader sees the old record or the new one. */
export function recordRunningConfig(dataDir: string, config: RecordedConfig): void {
  const path = join(dataDir, fileName);
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

/** The config recorded in `dataDir`, or null when none is (no serve ran there since this record came in). */
export function readRunningConfig(dataDir: string): RecordedConfig | null {
  let text: string;
  try {
    text = readFileSync(join(dataDir, fileName), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<RecordedConfig>;
  if (
    typeof parsed.sha256 !== "string" ||
    typeof parsed.loadedAt !== "string" ||
    typeof parsed.path !== "string" ||
    typeof parsed.config !== "object" ||
    parsed.config === null
  )
    throw new Error(`${join(dataDir, fileName)} is not a recorded config`);
  return parsed as RecordedConfig;
}
