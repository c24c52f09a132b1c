/** Small helpers for looking at YAML data whose shape is not yet known to be right. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function listOrEmpty(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** How a value is shown after "got": in YAML's words, short enough for one line. */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    return Number.isNaN(value) ? ".nan" : value > 0 ? ".inf" : "-.inf";
  }
  return String(value);
}
