/**
 * Query schemas of the /v1 operations. Each parameter schema is built with its
 * name as `title` (see `named`), so a validation error can say which parameter is
 * wrong: Elysia checks some parameters one by one and reports no path for them.
 */
import { type TSchema, t } from "elysia";

export function queryObject<Properties extends Record<string, TSchema>>(properties: Properties) {
  // Unknown parameters are refused: a misspelt filter must not silently match everything.
  return t.Object(properties, { additionalProperties: false });
}

/** An optional string enum. (t.UnionEnum alone would default a missing value to its first member.) */
export function optionalEnum<const Values extends readonly [string, ...string[]]>(
  name: string,
  values: Values,
  description?: string,
) {
  return t.Optional(t.UnionEnum(values, { title: name, default: undefined, description }));
}

/** The name of a parameter given twice (`limit=1&limit=2`), which is refused rather than guessed at. */
export function repeatedParameter(parameters: URLSearchParams): string | null {
  const seen = new Set<string>();
  for (const name of parameters.keys()) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return null;
}
