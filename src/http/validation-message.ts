/** Turns Elysia's validation errors into one sentence naming the parameter and the rule. */
import type { ValidationError } from "elysia";

type SchemaLike = {
  title?: string;
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  anyOf?: ({ const?: unknown } & SchemaLike)[];
  enum?: unknown[];
};

export function describeValidation(error: ValidationError): string {
  const first = error.all[0];
  if (first === undefined || !("path" in first)) return "A parameter is not valid.";
  const schema = (first.schema ?? {}) as SchemaLike;
  const pathName = first.path.replace(/^\//, "").replaceAll("/", ".");
  if (first.message.startsWith("Unexpected property")) {
    return `${pathName}: unknown parameter for this operation.`;
  }
  const name = schema.title ?? (pathName === "" ? "parameter" : pathName);
  const value = "value" in first ? first.value : undefined;
  const got =
    value === undefined
      ? ""
      : typeof value === "string"
        ? `; got "${value.slice(0, 64)}"`
        : `; got ${String(value).slice(0, 64)}`;
  return `${name}: ${expectation(schema) ?? first.message}${got}.`;
}

export function expectation(declared: SchemaLike): string | null {
  // Query numbers arrive as an anyOf(numeric string, integer) Elysia builds for coercion.
  const schema = declared.anyOf?.find((member) => (member as SchemaLike).type === "integer") ?? declared;
  const choices = schema.enum ?? schema.anyOf?.map((member) => member.const).filter((value) => value !== undefined);
  if (choices !== undefined && choices.length > 0) return `must be one of ${choices.join(", ")}`;
  if (schema.format === "uuid") return "must be a UUID";
  if (schema.format === "date-time") return "must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z";
  if (schema.type === "integer") {
    if (schema.minimum !== undefined && schema.maximum !== undefined) {
      return `must be an integer from ${schema.minimum} to ${schema.maximum}`;
    }
    if (schema.minimum !== undefined) return `must be an integer of at least ${schema.minimum}`;
    return "must be an integer";
  }
  if (schema.maxLength !== undefined) return `must be at most ${schema.maxLength} characters`;
  return null;
}
