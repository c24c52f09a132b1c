/**
 * docs/api.md is the whole /v1 contract (its section 4): every operation the
 * running app serves under /v1, read from the OpenAPI description it serves, is
 * documented there with its method and path (in the operation table and as a
 * section of its own, with each of its query parameters), every endpoint the page
 * documents is served, and every error code the API can answer is in its section 7.
 * Comments and docs cite docs/api.md, never the specification by section number
 * (scripts/cite-api-md rewrites such citations).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "../harness/cli.ts";
import { startTestSite, type TestSite } from "../harness/site.ts";

type JsonObject = Record<string, any>;

const httpMethods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
const page = readFileSync(join(repoRoot, "docs/api.md"), "utf8");

/** The text of a numbered section (`## 4.` or `### 4.6`) up to the next heading of the same or a higher level. */
function section(number: string): string {
  const level = number.includes(".") ? "###" : "##";
  const lines = page.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`${level} ${number}${number.includes(".") ? " " : ". "}`));
  if (start < 0) throw new Error(`docs/api.md has no section ${number}`);
  const end = lines.findIndex(
    (line, index) => index > start && (line.startsWith("## ") || (level === "###" && line.startsWith("### "))),
  );
  return lines.slice(start, end < 0 ? undefined : end).join("\n");
}

/** `GET /v1/devices/{id}` in OpenAPI's form: `get /v1/devices/{id}`. */
const endpointPattern = /`(GET|PUT|POST|PATCH|DELETE|HEAD) (\/v1\/[^`\s]*)`/g;

function documentedEndpoints(text: string): Set<string> {
  return new Set([...text.matchAll(endpointPattern)].map(([, method, path]) => `${method!.toLowerCase()} ${path}`));
}

/** `get /v1/devices` as the page writes it: `GET /v1/devices`. */
function displayed(endpoint: string): string {
  const [method, path] = endpoint.split(" ");
  return `${method!.toUpperCase()} ${path}`;
}

/** The `### 4.N METHOD /v1/...` section that documents an endpoint, or undefined. */
function endpointSection(endpoint: string): string | undefined {
  const heading = page
    .split("\n")
    .find((line) => /^### 4\.\d+ /.test(line) && line.includes(`\`${displayed(endpoint)}\``));
  return heading === undefined ? undefined : section(heading.slice(4, heading.indexOf(" ", 4)));
}

let site: TestSite;
let doc: JsonObject;

beforeAll(async () => {
  site = await startTestSite();
  const response = await fetch(`${site.baseUrl}/docs/json`);
  expect(response.status).toBe(200);
  doc = (await response.json()) as JsonObject;
});
afterAll(async () => {
  await site.stop();
});

function servedOperations(): { endpoint: string; operation: JsonObject }[] {
  return Object.entries(doc.paths as Record<string, JsonObject>)
    .filter(([path]) => path.startsWith("/v1/"))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => httpMethods.includes(method))
        .map(([method, operation]) => ({ endpoint: `${method} ${path}`, operation: operation as JsonObject })),
    );
}

describe("docs/api.md section 4 and the served /v1 routes", () => {
  test("the served OpenAPI description lists the /v1 operations", () => {
    // Guards the comparisons below against an empty description.
    expect(servedOperations().length).toBeGreaterThanOrEqual(7);
  });

  test("every served operation is in the operation table (4.1) with its method, path and operationId", () => {
    const table = section("4.1");
    const listed = documentedEndpoints(table);
    for (const { endpoint, operation } of servedOperations()) {
      expect({ endpoint, listed: listed.has(endpoint) }).toEqual({ endpoint, listed: true });
      const row = table.split("\n").find((line) => line.includes(`\`${displayed(endpoint)}\``));
      expect(row ?? "").toContain(`\`${operation.operationId}\``);
    }
  });

  test("every served operation has its own section, which names each of its query parameters", () => {
    for (const { endpoint, operation } of servedOperations()) {
      const text = endpointSection(endpoint);
      expect({ endpoint, documented: text !== undefined }).toEqual({ endpoint, documented: true });
      const queryParameters = ((operation.parameters ?? []) as JsonObject[])
        .filter((parameter) => parameter.in === "query")
        .map((parameter) => parameter.name as string);
      for (const name of queryParameters) {
        expect({ endpoint, parameter: name, documented: text!.includes(`| \`${name}\` |`) }).toEqual({
          endpoint,
          parameter: name,
          documented: true,
        });
      }
    }
  });

  test("every endpoint docs/api.md names under /v1 is served", () => {
    const served = new Set(servedOperations().map(({ endpoint }) => endpoint));
    for (const endpoint of documentedEndpoints(page)) {
      expect({ endpoint, served: served.has(endpoint) }).toEqual({ endpoint, served: true });
    }
  });

  test("every error code the API can answer is in section 7 with its status", () => {
    const codes = doc.components.schemas.Problem.properties.code.enum as string[];
    expect(codes.length).toBeGreaterThan(0);
    const errors = section("7");
    for (const code of codes) {
      const row = errors.split("\n").find((line) => line.includes(`| \`${code}\` |`));
      expect({ code, documented: row !== undefined }).toEqual({ code, documented: true });
      expect(/^\| \d{3} \|/.test(row!)).toBe(true);
    }
  });
});

/** Citations of the specification by section: "docs/api.md section 4", "(docs/api.md section 6.3, step 5)", "(docs/api.md section 6.4: 10 s)". */
const specCitation = /\b[Ss]pec(?:\s*(?:\*|\/\/)?\s*)(?:sections?\b|\d\.\d|\d, steps?\b)|(?<![\w$])\(spec: /;
/** This file, whose comments show the forms. */
const self = relative(repoRoot, import.meta.path);

function filesUnder(directory: string): string[] {
  return readdirSync(join(repoRoot, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|md|sh|py|html|css|cjs)$/.test(entry.name))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)));
}

test("no comment or doc cites the specification by section: they cite docs/api.md", () => {
  const files = ["src", "test", "scripts", "web", "docs"].flatMap(filesUnder).concat("README.md");
  expect(files.length).toBeGreaterThan(100);
  const citing = files.filter((file) => file !== self && specCitation.test(readFileSync(join(repoRoot, file), "utf8")));
  expect(citing).toEqual([]);
});
