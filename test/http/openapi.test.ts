/**
 * The OpenAPI 3.1 description and the docs page served by the running program
 * (docs/api.md section 1: the OpenAPI 3.1 description; section 4.1: the seven
 * operations; product: the docs page works on a LAN without internet).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { call } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

type JsonObject = Record<string, any>;

let site: TestSite;
let doc: JsonObject;
let docText: string;
let docContentType: string | null;

beforeAll(async () => {
  site = await startTestSite();
  const response = await fetch(`${site.baseUrl}/docs/json`);
  expect(response.status).toBe(200);
  docContentType = response.headers.get("content-type");
  docText = await response.text();
  doc = JSON.parse(docText) as JsonObject;
});
afterAll(async () => {
  await site.stop();
});

/** docs/api.md section 4: operation id -> method and path (under /v1). */
const expectedOperations: Record<string, string> = {
  introspect: "get /v1/introspect",
  listGateways: "get /v1/devices",
  getGateway: "get /v1/devices/{id}",
  listRegisters: "get /v1/devices/{id}/registers",
  listReadings: "get /v1/devices/{id}/readings",
  listAlerts: "get /v1/alerts",
  writeRegister: "put /v1/devices/{id}/registers/{register_id}",
};

/** Error statuses each operation can answer, so must document. */
const expectedErrors: Record<string, number[]> = {
  // Any valid key; no parameters: only authentication and the rate limit.
  introspect: [401, 429],
  listGateways: [400, 401, 403, 429],
  getGateway: [400, 401, 403, 404, 429],
  listRegisters: [400, 401, 403, 404, 429],
  listReadings: [400, 401, 403, 404, 429],
  listAlerts: [400, 401, 403, 429],
  // Issue 19: the device refused (409) or did not answer in time (504).
  writeRegister: [400, 401, 403, 404, 409, 429, 504],
};

const httpMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

function operations(): { method: string; path: string; operation: JsonObject }[] {
  return Object.entries(doc.paths as Record<string, JsonObject>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => httpMethods.includes(method))
      .map(([method, operation]) => ({ method, path, operation: operation as JsonObject })),
  );
}

function operation(operationId: string): JsonObject {
  const found = operations().find((candidate) => candidate.operation.operationId === operationId);
  if (found === undefined) throw new Error(`no operation ${operationId}`);
  return found.operation;
}

/** Follows local `$ref`s (`#/components/...`). */
function resolve(node: JsonObject): JsonObject {
  let current = node;
  for (let depth = 0; typeof current?.$ref === "string" && depth < 10; depth++) {
    const ref = current.$ref as string;
    expect(ref.startsWith("#/")).toBe(true);
    current = ref
      .slice(2)
      .split("/")
      .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce((value: any, part) => value?.[part], doc);
    if (current === undefined) throw new Error(`unresolvable $ref ${ref}`);
  }
  return current;
}

describe("GET /docs/json", () => {
  test("is an OpenAPI 3.1 document served as JSON", () => {
    expect(docContentType).toStartWith("application/json");
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info?.title).toBe("string");
    expect(typeof doc.info?.version).toBe("string");
  });

  test("passes an independent OpenAPI 3.1 validator", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    if (!result.valid) throw new Error(`invalid OpenAPI document: ${JSON.stringify(result.errors, null, 2)}`);
    expect(result.valid).toBe(true);
    expect(validator.version).toStartWith("3.1");
  });

  test("documents the seven operations with their ids, methods and /v1 paths", () => {
    const found = Object.fromEntries(
      operations()
        .filter(({ operation }) => operation.operationId in expectedOperations)
        .map(({ method, path, operation }) => [operation.operationId, `${method} ${path}`]),
    );
    expect(found).toEqual(expectedOperations);
    const operationIds = operations().map(({ operation }) => operation.operationId);
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  test("documents nothing else: every documented path is a /v1 operation", () => {
    const documented = operations().map(
      ({ method, path, operation }) => `${operation.operationId} (${method} ${path})`,
    );
    expect(documented.sort()).toEqual(
      Object.entries(expectedOperations)
        .map(([operationId, route]) => `${operationId} (${route})`)
        .sort(),
    );
    for (const path of Object.keys(doc.paths)) expect(path).toStartWith("/v1/");
  });

  test("every operation needs a bearer token", () => {
    const schemes = doc.components?.securitySchemes as Record<string, JsonObject> | undefined;
    expect(schemes).toBeDefined();
    for (const operationId of Object.keys(expectedOperations)) {
      const requirements = (operation(operationId).security ?? doc.security) as Record<string, string[]>[] | undefined;
      expect(requirements?.length ?? 0).toBeGreaterThan(0);
      for (const requirement of requirements ?? []) {
        // An empty requirement ({}) would make authentication optional.
        expect(Object.keys(requirement).length).toBeGreaterThan(0);
        for (const name of Object.keys(requirement)) {
          const scheme = resolve(schemes?.[name] ?? {});
          expect(scheme.type).toBe("http");
          expect(String(scheme.scheme).toLowerCase()).toBe("bearer");
        }
      }
    }
  });

  test("each operation documents its 200 as JSON and its errors as application/problem+json", () => {
    for (const [operationId, statuses] of Object.entries(expectedErrors)) {
      const responses = operation(operationId).responses as Record<string, JsonObject>;
      const ok = resolve(responses["200"] ?? {});
      expect(Object.keys(ok.content ?? {})).toEqual(["application/json"]);
      for (const status of statuses) {
        const response = responses[String(status)];
        if (response === undefined) throw new Error(`${operationId} does not document ${status}`);
        const resolved = resolve(response);
        expect(Object.keys(resolved.content ?? {})).toEqual(["application/problem+json"]);
        const schema = resolve(resolved.content["application/problem+json"].schema);
        expect(schema.type).toBe("object");
        for (const field of ["type", "title", "status", "code", "request_id"]) {
          expect(schema.required).toContain(field);
          expect(schema.properties?.[field]).toBeDefined();
        }
      }
      // Every documented error, whichever, is a problem.
      for (const [status, response] of Object.entries(responses)) {
        if (status === "200") continue;
        const content = resolve(response).content;
        if (content !== undefined) expect(Object.keys(content)).toEqual(["application/problem+json"]);
      }
      expect(Object.keys(resolve(responses["429"] ?? {}).headers ?? {})).toContain("Retry-After");
    }
  });

  test("the rate-limit and request-id headers are documented on every response", () => {
    for (const operationId of Object.keys(expectedOperations)) {
      for (const response of Object.values(operation(operationId).responses as Record<string, JsonObject>)) {
        const headers = Object.keys(resolve(response).headers ?? {});
        for (const name of ["X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"])
          expect(headers).toContain(name);
      }
    }
  });
});

describe("the errors the API really answers are the ones documented", () => {
  // `call` checks every /v1 answer against this document: status documented,
  // content type documented, body valid against the documented schema.
  const unknownGateway = "00000000-0000-4000-8000-000000000000";
  const paths = () => ({
    introspect: "/v1/introspect",
    listGateways: "/v1/devices",
    getGateway: `/v1/devices/${ids.acmeGateway1}`,
    listRegisters: `/v1/devices/${ids.acmeGateway1}/registers`,
    listReadings: `/v1/devices/${ids.acmeGateway1}/readings`,
    listAlerts: "/v1/alerts",
  });

  test("401 without a key", async () => {
    for (const path of Object.values(paths())) expect((await call(site.baseUrl, path)).status).toBe(401);
  });

  test("403 with a key that lacks the scope", async () => {
    const { introspect: _introspect, ...scoped } = paths();
    for (const path of Object.values(scoped))
      expect((await call(site.baseUrl, path, { key: site.keys.acmeNoScopes })).status).toBe(403);
  });

  test("400 on malformed parameters", async () => {
    for (const path of [
      "/v1/devices?limit=0",
      "/v1/devices/not-a-uuid",
      `/v1/devices/${ids.acmeGateway1}/registers?modbus_device_id=nope`,
      `/v1/devices/${ids.acmeGateway1}/readings?order=sideways`,
      "/v1/alerts?status=nope",
    ]) {
      expect((await call(site.baseUrl, path, { key: site.keys.acme })).status).toBe(400);
    }
  });

  test("404 on an unknown gateway", async () => {
    for (const suffix of ["", "/registers", "/readings"]) {
      expect((await call(site.baseUrl, `/v1/devices/${unknownGateway}${suffix}`, { key: site.keys.acme })).status).toBe(
        404,
      );
    }
  });

  test("429 past the key's limit", async () => {
    const key = await site.createKey("acme", ["devices:read", "registers:read", "alerts:read"], {
      rateLimitPerMinute: 1,
    });
    expect((await call(site.baseUrl, "/v1/introspect", { key })).status).toBe(200);
    for (const path of Object.values(paths())) {
      const response = await call(site.baseUrl, path, { key });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });
});

describe("the docs page", () => {
  let html: string;
  let scripts: string[];
  let stylesheets: string[];

  beforeAll(async () => {
    const response = await fetch(`${site.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/html");
    html = await response.text();
    scripts = [...html.matchAll(/<script\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi)].map((match) => match[1] ?? "");
    stylesheets = [...html.matchAll(/<link\b[^>]*>/gi)]
      .map((match) => match[0])
      .filter((tag) => /\brel\s*=\s*["']?stylesheet/i.test(tag))
      .map((tag) => /\bhref\s*=\s*["']?([^"'\s>]+)/i.exec(tag)?.[1] ?? "");
  });

  test("loads its script and stylesheet from this server, not from the internet", () => {
    expect(scripts.length).toBeGreaterThan(0);
    expect(stylesheets.length).toBeGreaterThan(0);
    for (const url of [...scripts, ...stylesheets]) {
      expect(url.length).toBeGreaterThan(0);
      expect(url).not.toMatch(/^(https?:)?\/\//i);
    }
    // Nothing else pulls from elsewhere either: no absolute URL in any src or href,
    // no @import of a remote stylesheet, no preconnect to a CDN.
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import\s+(url\()?["']?(https?:)?\/\//i);
  });

  test("its scripts and stylesheets answer 200 with a body", async () => {
    for (const url of scripts) {
      const response = await fetch(new URL(url, `${site.baseUrl}/docs`));
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type") ?? "").toMatch(/javascript/);
      expect((await response.text()).length).toBeGreaterThan(1000);
    }
    for (const url of stylesheets) {
      const response = await fetch(new URL(url, `${site.baseUrl}/docs`));
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type") ?? "").toMatch(/text\/css/);
      expect((await response.text()).length).toBeGreaterThan(1000);
    }
  });

  test("points the UI at the document this server serves", () => {
    expect(html).toMatch(/["']\/docs\/json["']/);
  });
});

describe("GET /openapi.json", () => {
  test("is the same document as /docs/json", async () => {
    const response = await fetch(`${site.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const text = await response.text();
    expect(JSON.parse(text)).toEqual(doc);
    expect(text).toBe(docText);
  });
});
