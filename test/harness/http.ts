/**
 * An HTTP client for tests that checks every /v1 answer against the running
 * server's own OpenAPI description (with Ajv, an independent JSON Schema
 * validator): status documented, content type documented, body valid.
 */
import { expect } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

type OpenApiDocument = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

const documents = new Map<string, { document: OpenApiDocument; ajv: InstanceType<typeof Ajv2020> }>();

async function openApiFor(baseUrl: string) {
  let entry = documents.get(baseUrl);
  if (entry === undefined) {
    const document = (await (await fetch(`${baseUrl}/docs/json`)).json()) as OpenApiDocument;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, "openapi");
    entry = { document, ajv };
    documents.set(baseUrl, entry);
  }
  return entry;
}

function pathTemplateFor(document: OpenApiDocument, path: string): string | null {
  for (const template of Object.keys(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    if (pattern.test(path)) return template;
  }
  return null;
}

const pointer = (part: string) => part.replaceAll("~", "~0").replaceAll("/", "~1");

/** Asserts the response is one the OpenAPI description allows for this operation. */
export async function expectConformsToOpenApi(
  baseUrl: string,
  method: string,
  url: URL,
  response: ApiResponse,
): Promise<void> {
  const { document, ajv } = await openApiFor(baseUrl);
  const template = pathTemplateFor(document, url.pathname);
  if (template === null) {
    // Paths the API does not have answer a problem; nothing else to check against.
    expect([401, 403, 404, 429]).toContain(response.status);
    return;
  }
  const operation = document.paths[template]?.[method.toLowerCase()];
  if (operation === undefined) {
    // A method the API does not have (writes): refused before routing.
    expect([401, 403, 429]).toContain(response.status);
    return;
  }
  const documented = Object.keys(operation.responses);
  expect(documented).toContain(String(response.status));
  const contentType = (response.headers.get("content-type") ?? "").split(";")[0] ?? "";
  const schemaRef = `openapi#/paths/${pointer(template)}/${method.toLowerCase()}/responses/${response.status}/content/${pointer(contentType)}/schema`;
  const validate = ajv.getSchema(schemaRef) ?? ajv.compile({ $ref: schemaRef });
  const valid = validate(response.body);
  if (!valid) {
    throw new Error(
      `${method} ${url.pathname} ${response.status} does not match the OpenAPI description: ${ajv.errorsText(validate.errors)}`,
    );
  }
}

export interface CallOptions {
  key?: string | null;
  method?: string;
  headers?: Record<string, string>;
}

/** One request; /v1 answers are checked against the OpenAPI description. */
export async function call<T = any>(baseUrl: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined && options.key !== null) headers.authorization = `Bearer ${options.key}`;
  const method = options.method ?? "GET";
  const url = new URL(path, baseUrl);
  const response = await fetch(url, { method, headers, redirect: "manual" });
  const text = await response.text();
  let body: unknown = text;
  const contentType = response.headers.get("content-type") ?? "";
  if (contentType.includes("json") && text.length > 0) body = JSON.parse(text);
  const result: ApiResponse<T> = { status: response.status, headers: response.headers, body: body as T, text };
  if (url.pathname.startsWith("/v1") && method !== "HEAD") await expectConformsToOpenApi(baseUrl, method, url, result);
  return result;
}

/** The error shape of docs/api.md (sections 2.10 and 7), for any problem answer. */
export function expectProblem(response: ApiResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = response.body as Record<string, unknown>;
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(typeof body.title).toBe("string");
  expect(String(body.type)).toEndWith(`/docs/errors#${code}`);
  expect(String(body.request_id)).toMatch(/^req_[0-9a-f]+$/);
  expect(body.request_id).toBe(response.headers.get("x-request-id"));
}

/** docs/api.md section 4.10: every response carries these four headers. */
export function expectApiHeaders(response: ApiResponse): void {
  expect(response.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]+$/);
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    expect(response.headers.get(name)).toMatch(/^\d+$/);
  }
}
