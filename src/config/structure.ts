/**
 * Structural check: runs TypeBox's Value.Errors over the whole document (it does not
 * stop at the first error) and turns each error into a finding with a path and a
 * message written for the person editing the file.
 */
import type { TSchema } from "@sinclair/typebox";
import { Value, type ValueError, ValueErrorType } from "@sinclair/typebox/value";
import { describeValue, didYouMean } from "../lib/problem-wording.ts";
import { type Finding, formatPath, type Path } from "./problems.ts";
import { isRecord } from "./values.ts";

interface Context {
  root: unknown;
  emptied: ReadonlySet<string>;
}

export function structuralFindings(schema: TSchema, data: unknown, emptied: ReadonlySet<string>): Finding[] {
  const context: Context = { root: data, emptied };
  const findings: Finding[] = [];
  for (const error of Value.Errors(schema, data)) findings.push(...explain(error, context));
  return findings;
}

function explain(error: ValueError, context: Context): Finding[] {
  // A missing field with a default is fine: Value.Default fills it in afterwards.
  if (error.value === undefined && hasDefault(error.schema)) return [];
  const path = pointerToPath(error.path, context.root);
  const schema = error.schema as Record<string, unknown>;
  // A secret (`secret: true`, the uplink's token) is never repeated back: only its length.
  const got =
    schema.secret !== true
      ? describeValue(error.value)
      : typeof error.value === "string"
        ? `${error.value.length} characters`
        : `a ${typeof error.value}`;
  const at = (message: string): Finding[] => [{ path, message }];

  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return at(context.emptied.has(formatPath(path)) ? "is required (it is written with no value)" : "is required");
    case ValueErrorType.ObjectAdditionalProperties:
      return at(unknownFieldMessage(String(path[path.length - 1]), schema));
    case ValueErrorType.Union:
      return explainUnion(error, path, context);
    case ValueErrorType.Object:
      return at(`must be a mapping (field: value); got ${got}`);
    case ValueErrorType.Array:
      return at(`must be a list; got ${got}`);
    case ValueErrorType.ArrayMinItems: {
      const custom = schema.minItemsMessage;
      return at(typeof custom === "string" ? custom : `must have at least ${schema.minItems} item(s)`);
    }
    case ValueErrorType.String:
      // YAML reads `0012` or `true` as a number or boolean; quoting keeps the text.
      return at(`must be a string; got ${got}${isScalar(error.value) ? " (put it in quotes if it is text)" : ""}`);
    case ValueErrorType.StringMinLength:
      return at(schema.minLength === 1 ? "must not be empty" : `must be at least ${schema.minLength} characters`);
    case ValueErrorType.StringPattern: {
      const hint = schema.patternHint;
      return at(`must be ${typeof hint === "string" ? hint : `text matching ${schema.pattern}`}; got ${got}`);
    }
    case ValueErrorType.Number:
      return at(`must be a number; got ${got}`);
    case ValueErrorType.Integer:
      return at(`must be a whole number; got ${got}`);
    case ValueErrorType.Boolean:
      return at(`must be true or false; got ${got}`);
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
      return at(`${rangeText(schema)}; got ${got}`);
    case ValueErrorType.Literal:
      return at(`must be ${JSON.stringify(schema.const)}; got ${got}`);
    default:
      return at(`${error.message}; got ${got}`);
  }
}

/**
 * TypeBox reports a union as one error holding every variant's errors. An enum
 * (a union of literals) becomes "must be one of"; a union with a discriminator
 * reports only the errors of the variant the file chose.
 */
function explainUnion(error: ValueError, path: Path, context: Context): Finding[] {
  const variants = (error.schema as unknown as { anyOf: Record<string, unknown>[] }).anyOf;
  if (variants.every((variant) => "const" in variant)) {
    const allowed = variants.map((variant) => String(variant.const)).join(", ");
    return [
      {
        path,
        message: `must be one of ${allowed}; got ${describeValue(error.value)}`,
      },
    ];
  }

  // A union of different kinds of value (text or a number) says in words what it takes.
  const unionMessage = (error.schema as { unionMessage?: unknown }).unionMessage;
  if (typeof unionMessage === "string") {
    return [{ path, message: `${unionMessage}; got ${describeValue(error.value)}` }];
  }

  const discriminator = (error.schema as { discriminator?: unknown }).discriminator;
  if (typeof discriminator !== "string") {
    return [
      {
        path,
        message: `does not match any allowed form; got ${describeValue(error.value)}`,
      },
    ];
  }
  if (!isRecord(error.value)) {
    return [
      {
        path,
        message: `must be a mapping (field: value); got ${describeValue(error.value)}`,
      },
    ];
  }
  const tags = variants.map((variant) => String(propertiesOf(variant)[discriminator]?.const));
  const tag = error.value[discriminator];
  const chosen = tags.indexOf(String(tag));
  if (tag === undefined || chosen === -1) {
    const message = tag === undefined ? "is required" : `must be one of ${tags.join(", ")}; got ${describeValue(tag)}`;
    return [{ path: [...path, discriminator], message }];
  }

  const findings: Finding[] = [];
  for (const inner of error.errors[chosen] ?? []) {
    // A field that belongs to another variant deserves a better word than "unknown".
    if (inner.type === ValueErrorType.ObjectAdditionalProperties) {
      const field = inner.path.split("/").pop() ?? "";
      const owners = tags.filter((_, i) => i !== chosen && field in propertiesOf(variants[i]));
      if (owners.length > 0) {
        findings.push({
          path: pointerToPath(inner.path, context.root),
          message: `is not used when ${discriminator} is ${tags[chosen]} (only with ${owners.join(" or ")})`,
        });
        continue;
      }
    }
    findings.push(...explain(inner, context));
  }
  return findings;
}

function isScalar(value: unknown): boolean {
  return typeof value === "number" || typeof value === "boolean";
}

function unknownFieldMessage(field: string, objectSchema: Record<string, unknown>): string {
  const known = Object.keys(propertiesOf(objectSchema));
  const suggestion = didYouMean(field, known);
  return suggestion === ""
    ? `unknown field "${field}" (allowed: ${known.join(", ")})`
    : `unknown field "${field}"${suggestion}`;
}

function rangeText(schema: Record<string, unknown>): string {
  const { minimum, maximum } = schema;
  if (minimum !== undefined && maximum !== undefined) return `must be between ${minimum} and ${maximum}`;
  if (minimum !== undefined) return `must be at least ${minimum}`;
  return `must be at most ${maximum}`;
}

function propertiesOf(schema: unknown): Record<string, Record<string, unknown>> {
  return isRecord(schema) && isRecord(schema.properties)
    ? (schema.properties as Record<string, Record<string, unknown>>)
    : {};
}

function hasDefault(schema: unknown): boolean {
  return isRecord(schema) && "default" in schema;
}

/** TypeBox's JSON pointer (`/gateways/0/bus`) -> path segments, list indexes as numbers. */
function pointerToPath(pointer: string, root: unknown): Path {
  if (pointer === "") return [];
  const path: (string | number)[] = [];
  let node: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node) && /^\d+$/.test(key)) {
      path.push(Number(key));
      node = node[Number(key)];
    } else {
      path.push(key);
      node = isRecord(node) ? node[key] : undefined;
    }
  }
  return path;
}
