/**
 * The OpenAPI 3.1 description, generated from the same Elysia schemas that
 * validate the requests (@elysiajs/openapi's generator), then finished with what
 * routes cannot say: error bodies are application/problem+json, the bearer scheme
 * with the scope each operation needs,
 * the rate-limit headers on every response.
 */
import { toOpenAPISchema } from "@elysiajs/openapi";
import { FormatRegistry } from "@sinclair/typebox";
import type { AnyElysia } from "elysia";
import { uuidPattern } from "../../lib/ids.ts";
import { parseRfc3339 } from "../../lib/timestamps.ts";
import { version } from "../../lib/version.ts";
import { securityOf } from "../v1/scopes.ts";

// Importing @elysiajs/openapi replaces TypeBox's global string formats with
// checks that build a new Zod schema on every call (tens of microseconds per
// parameter). The formats the API validates are set back to plain checks here.
FormatRegistry.Set("uuid", (value) => uuidPattern.test(value));
FormatRegistry.Set("date-time", (value) => parseRfc3339(value) !== null);

type JsonObject = Record<string, unknown>;

const rateLimitHeaders = {
  "X-Request-Id": {
    description: "Request id, `req_<hex>`; equals `request_id` of a problem.",
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": { description: "Requests allowed per minute.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the current minute.", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Seconds until the window resets.", schema: { type: "integer" } },
};

export function buildOpenApiDocument(v1: AnyElysia, serverUrl: string): JsonObject {
  const generated = toOpenAPISchema(v1, undefined, undefined, undefined, "3.1.0");
  const namedSchemas: Record<string, unknown> = { ...(generated.components?.schemas ?? {}) };
  // Elysia shares route history between mounted instances, so the generator also
  // sees the docs pages; the description is of the API alone.
  const apiPaths = Object.fromEntries(Object.entries(generated.paths).filter(([path]) => path.startsWith("/v1/")));
  const paths = hoistNamedSchemas(apiPaths, namedSchemas) as typeof generated.paths;
  for (const pathItem of Object.values(paths as Record<string, Record<string, JsonObject>>)) {
    for (const operation of Object.values(pathItem)) {
      operation.security = securityOf(String(operation.operationId));
      const responses = (operation.responses ?? {}) as Record<string, JsonObject>;
      for (const [status, response] of Object.entries(responses)) {
        const content = response.content as Record<string, unknown> | undefined;
        if (status !== "200" && content !== undefined) {
          response.content = { "application/problem+json": content["application/json"] ?? Object.values(content)[0] };
          response.description = errorDescriptions[status] ?? "Error";
        }
        response.headers = {
          ...rateLimitHeaders,
          ...(status === "429"
            ? { "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } } }
            : {}),
        };
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "fieldhub Gateway Data API",
      version,
      description:
        "Access to the gateways, Modbus devices, registers, reading history and alerts of one organisation, and register writes where the organisation has them enabled. Every request sends `Authorization: Bearer <API_KEY>`. Errors are RFC 9457 problem details; clients branch on `code`.",
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Introspection" },
      { name: "Gateways", description: "Gateways are called `device` in paths." },
      { name: "Registers" },
      { name: "Readings" },
      { name: "Alerts" },
    ],
    paths,
    components: {
      schemas: namedSchemas,
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "API key" } },
    },
  };
}

const errorDescriptions: Record<string, string> = {
  "400": "invalid_parameter: a query parameter is missing, malformed or out of range",
  "401": "missing_api_key, invalid_api_key, api_key_revoked or api_key_expired",
  "403": "insufficient_scope or write_not_enabled",
  "404": "not_found",
  "409":
    "conflict: the device refused the write (its Modbus exception in detail), read back another value, or nothing was sent",
  "429": "rate_limited",
  "504":
    "internal_error: the device did not answer the write in time; the outcome is unknown and the write was not retried",
  "500": "internal_error",
};

/**
 * The generator inlines a model wherever it is used, each copy carrying the same
 * `$id`, which JSON Schema reads as one id claimed twice. Each named model moves
 * to components.schemas once and every use becomes a $ref. It also drops the
 * 3.0-style `nullable` the generator adds beside 3.1 type arrays.
 */
function hoistNamedSchemas(node: unknown, named: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistNamedSchemas(item, named));
  if (node === null || typeof node !== "object") return node;
  // `nullable` is OpenAPI 3.0; in 3.1 the type array (["string", "null"]) says it.
  const { $id, nullable: _nullable, ...rest } = node as JsonObject;
  const children = withoutCoercion(
    Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, hoistNamedSchemas(value, named)])),
  );
  if (typeof $id !== "string") return children;
  named[$id] ??= children;
  return { $ref: `#/components/schemas/${$id}` };
}

/**
 * Elysia widens numbers to anyOf(numeric string, number) so query strings can be
 * coerced; that is how it parses, not what the API documents: a number is a number.
 */
function withoutCoercion(schema: JsonObject): JsonObject {
  const members = schema.anyOf;
  if (!Array.isArray(members) || members.length !== 2) return schema;
  const isCoercion = (member: JsonObject) =>
    member.type === "string" &&
    (member.format === "integer" || member.format === "numeric" || member.format === "number");
  const [first, second] = members as [JsonObject, JsonObject];
  const kept = isCoercion(first) ? second : isCoercion(second) ? first : null;
  if (kept === null) return schema;
  const { anyOf: _anyOf, ...outer } = schema;
  return { ...outer, ...kept };
}
