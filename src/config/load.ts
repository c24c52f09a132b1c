/**
 * parse -> check structure (TypeBox) -> index the file -> check cross-field rules ->
 * default -> normalise (with the same index) -> warnings (what is allowed but most
 * likely a mistake).
 * Both checks always run in full, so a refused file lists every problem at once.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Value } from "@sinclair/typebox/value";
import { modiconAddressWarnings } from "./address-references.ts";
import { normaliseConfig } from "./normalise.ts";
import { finishProblems } from "./problems.ts";
import { ruleFindings } from "./rules.ts";
import { configSchema } from "./schema.ts";
import { structuralFindings } from "./structure.ts";
import type { CheckedConfig, ConfigResult } from "./types.ts";
import { isRecord } from "./values.ts";
import { readYaml } from "./yaml.ts";

/** The config, or every problem as `path: message` (the form tests and scripts compare). */
export function parseConfig(yamlText: string): ConfigResult {
  return withoutLocations(checkConfig(yamlText));
}

export function loadConfigFile(path: string): ConfigResult {
  return withoutLocations(checkConfigFile(path));
}

/** As parseConfig, each problem also with its line, column and named path (for people). */
export function checkConfig(yamlText: string): CheckedConfig {
  try {
    return checkAndNormalise(yamlText);
  } catch (error) {
    // Callers rely on "never throws"; a bug here must still come out as a refusal.
    return {
      ok: false,
      problems: [
        {
          path: "",
          message: `internal error while checking the config: ${String(error)}`,
        },
      ],
    };
  }
}

export function checkConfigFile(path: string): CheckedConfig {
  return readConfigFile(path).checked;
}

/** A config file as read: the check of it and the SHA-256 of its bytes (hex; null when unreadable). */
interface ConfigFileRead {
  checked: CheckedConfig;
  sha256: string | null;
}

/**
 * Reads and checks a config file once; the hash names the file's bytes as `serve` runs
 * them (the log and /healthz, docs/config.md "Reloading the config").
 */
export function readConfigFile(path: string): ConfigFileRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return {
      sha256: null,
      checked: {
        ok: false,
        problems: [
          {
            path: "",
            message: `cannot read config file ${path}: ${(error as Error).message}`,
          },
        ],
      },
    };
  }
  return { checked: checkConfig(bytes.toString("utf8")), sha256: configHash(bytes) };
}

/** SHA-256 of a config's bytes, hex. */
function configHash(bytes: string | Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function withoutLocations(result: CheckedConfig): ConfigResult {
  if (result.ok) return { ok: true, config: result.config };
  return { ok: false, problems: result.problems.map(({ path, message }) => ({ path, message })) };
}

function checkAndNormalise(yamlText: string): CheckedConfig {
  const read = readYaml(yamlText);
  if (!read.ok) return read;
  if (read.data === undefined || read.data === null) {
    return {
      ok: false,
      problems: [
        {
          path: "",
          message: "the file is empty; it needs at least an organizations list",
        },
      ],
    };
  }

  const data = withoutExtensions(read.data);
  const rules = ruleFindings(data);
  const findings = [...structuralFindings(configSchema, data, read.emptied), ...rules.findings];
  if (findings.length > 0) return { ok: false, problems: finishProblems(findings, read.locate) };
  // A file with no problems is a mapping, so the checks indexed it.
  if (rules.index === undefined) throw new Error("config file was not indexed");

  const defaulted = Value.Default(configSchema, Value.Clone(data));
  // Defaults only add fields the checks allowed to be missing; this guards that promise.
  if (!Value.Check(configSchema, defaulted)) throw new Error("config no longer matches its schema after defaults");
  return {
    ok: true,
    config: normaliseConfig(defaulted, rules.index),
    warnings: finishProblems(modiconAddressWarnings(rules.index), read.locate),
  };
}

/**
 * Top-level keys starting with `x-` are ignored: they give YAML anchors a home
 * (`x-meter-registers: &meter [...]`), as in docker-compose files.
 */
function withoutExtensions(data: unknown): unknown {
  if (!isRecord(data)) return data;
  return Object.fromEntries(Object.entries(data).filter(([key]) => !key.startsWith("x-")));
}
