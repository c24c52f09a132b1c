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
