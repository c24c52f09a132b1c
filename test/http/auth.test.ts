/**
 * docs/api.md section 5 (authentication) and 7 (errors) through HTTP. The operations and
 * the scope each needs come from the running app's served OpenAPI description
 * (`security: [{ bearerAuth: [scope] }]`), so a new /v1 route joins the auth and
 * scope matrix by existing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ApiScope, apiScopes } from "../../src/lib/api-keys.ts";
import { call, expectApiHeaders, expectProblem } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

interface Operation {
  operationId: string;
  method: string;
  /** A concrete path: each path parameter is an Acme gateway id (the only kind /v1 has). */
  path: string;
  scope: ApiScope | null;
}

let site: TestSite;
let documented: Operation[];
beforeAll(async () => {
  site = await startTestSite();
  const document = (await (await fetch(`${site.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string; security?: { bearerAuth?: string[] }[] }>>;
  };
  documented = Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      operationId: operation.operationId,
      method: method.toUpperCase(),
      path: template.replace(/\{[^}]+\}/g, ids.acmeGateway1),
      scope: (operation.security?.[0]?.bearerAuth?.[0] ?? null) as ApiScope | null,
    })),
  );
});
afterAll(async () => {
  await site.stop();
});

/** The documented operations that need a scope. */
const operations = () =>
  documented.flatMap(({ scope, ...operation }) => (scope === null ? [] : [{ ...operation, scope }]));

test("every documented operation states its security; only introspection takes any valid key", () => {
  expect(documented.length).toBeGreaterThan(0);
  for (const operation of documented) {
    if (operation.operationId === "introspect") expect(operation.scope).toBeNull();
    else expect(apiScopes).toContain(operation.scope as ApiScope);
  }
});

describe("missing and unknown keys", () => {
  test("no Authorization header is 401 missing_api_key on every operation", async () => {
    for (const { path, method } of documented) {
      const response = await call(site.baseUrl, path, { method });
      expectProblem(response, 401, "missing_api_key");
      expectApiHeaders(response);
    }
  });

  test("a header that is not a bearer token counts as missing", async () => {
    for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", site.keys.acme]) {
      const response = await call(site.baseUrl, "/v1/introspect", { headers: { authorization } });
      expectProblem(response, 401, "missing_api_key");
    }
  });

  test("an unknown key is 401 invalid_api_key", async () => {
    const response = await call(site.baseUrl, "/v1/devices", { key: "fh_0000000000000000000000000000000000000000" });
    expectProblem(response, 401, "invalid_api_key");
    expectApiHeaders(response);
  });

  test("the scheme name is case-insensitive", async () => {
    const response = await call(site.baseUrl, "/v1/introspect", {
      headers: { authorization: `bearer ${site.keys.acme}` },
    });
    expect(response.status).toBe(200);
  });
});

describe("revocation and expiry", () => {
  test("a revoked key is refused on the very next request", async () => {
    const key = await site.createKey("acme", ["devices:read"]);
    expect((await call(site.baseUrl, "/v1/devices", { key })).status).toBe(200);
    expect(await site.store.keys.revoke(key.slice(0, 11), site.clock.now())).toBe(1);
    expectProblem(await call(site.baseUrl, "/v1/devices", { key }), 401, "api_key_revoked");
  });

  test("a key past its expires_at is 401 api_key_expired", async () => {
    const key = await site.createKey("acme", ["devices:read"], { expiresAt: site.clock.now() + 60_000 });
    expect((await call(site.baseUrl, "/v1/devices", { key })).status).toBe(200);
    site.clock.advance(60_000);
    expectProblem(await call(site.baseUrl, "/v1/devices", { key }), 401, "api_key_expired");
  });
});

describe("scopes", () => {
  test("each operation needs its scope, and the detail names it", async () => {
    const keyFor: Record<string, string> = {
      "devices:read": site.keys.acmeDevicesOnly,
      "registers:read": site.keys.acmeRegistersOnly,
      "alerts:read": site.keys.acmeAlertsOnly,
    };
    for (const { path, method, scope } of operations()) {
      for (const [held, key] of Object.entries(keyFor)) {
        const response = await call(site.baseUrl, path, { key, method });
        if (held === scope) {
          expect(response.status).toBe(200);
        } else {
          expectProblem(response, 403, "insufficient_scope");
          expect((response.body as { detail: string }).detail).toContain(scope);
        }
      }
    }
  });

  test("each operation: no key is 401, every scope but its own is 403 naming it, its scope alone gets through", async () => {
    for (const { operationId, path, method, scope } of operations()) {
      const others = apiScopes.filter((held) => held !== scope);
      const denied = await call(site.baseUrl, path, { method, key: await site.createKey("acme", others) });
      expectProblem(denied, 403, "insufficient_scope");
      expect((denied.body as { detail: string }).detail).toContain(scope);
      expectProblem(await call(site.baseUrl, path, { method }), 401, "missing_api_key");
      const allowed = await call(site.baseUrl, path, { method, key: await site.createKey("acme", [scope]) });
      // Named in the value so a failure says which operation.
      expect(`${operationId}: ${allowed.status}`).not.toMatch(/: 40[13]$/);
    }
  });

  test("the scope is checked before the parameters", async () => {
    const response = await call(site.baseUrl, "/v1/devices?limit=abc", { key: site.keys.acmeAlertsOnly });
    expectProblem(response, 403, "insufficient_scope");
  });

  test("introspect answers any valid key, even one without scopes", async () => {
    const response = await call<{
      data: {
        key: { name: string; scopes: string[]; expires_at: null };
        organization: { name: string };
        stats: Record<string, number>;
      };
    }>(site.baseUrl, "/v1/introspect", { key: site.keys.acmeNoScopes });
    expect(response.status).toBe(200);
    expect(response.body.data.key.scopes).toEqual([]);
    expect(response.body.data.organization.name).toBe("Acme Greenhouses");
    expect(response.body.data.stats.gateways).toBe(4);
    expect(response.body.data.stats.devices).toBe(4);
  });
});

describe("read-only API", () => {
  test("every write method on a /v1 path is 403 write_not_enabled, whatever the scopes", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      for (const path of ["/v1/devices", `/v1/devices/${ids.acmeGateway1}/registers`, "/v1/alerts", "/v1/anything"]) {
        const response = await call(site.baseUrl, path, { key: site.keys.acme, method });
        expectProblem(response, 403, "write_not_enabled");
        expectApiHeaders(response);
      }
    }
  });

  test("a register write for an organisation without writes_enabled is 403 write_not_enabled, with every scope", async () => {
    const key = await site.createKey("globex", [...apiScopes]);
    const path = `/v1/devices/${ids.globexGateway}/registers/${ids.globexGateway}`;
    const response = await call(site.baseUrl, path, { key, method: "PUT" });
    expectProblem(response, 403, "write_not_enabled");
    expectApiHeaders(response);
  });

  test("a sandbox key never holds registers:write, even when created with it", async () => {
    const key = await site.createKey("acme", [...apiScopes], { sandbox: true });
    const introspection = await call(site.baseUrl, "/v1/introspect", { key });
    expect((introspection.body as { data: { key: { scopes: string[] } } }).data.key.scopes).not.toContain(
      "registers:write",
    );
    const path = `/v1/devices/${ids.acmeGateway1}/registers/${ids.acmeGateway1}`;
    const response = await call(site.baseUrl, path, { key, method: "PUT" });
    expectProblem(response, 403, "insufficient_scope");
  });

  test("a write without a key is still 401 first", async () => {
    expectProblem(await call(site.baseUrl, "/v1/devices", { method: "POST" }), 401, "missing_api_key");
  });
});

describe("problem details", () => {
  test("unknown paths are 404 not_found as problem+json, with the API headers", async () => {
    for (const path of ["/v1/nothing", "/v1/devices/x/y/z", "/v1"]) {
      const response = await call(site.baseUrl, path, { key: site.keys.acme });
      expectProblem(response, 404, "not_found");
      expectApiHeaders(response);
    }
  });

  test("the type URI leads to a page that explains the code", async () => {
    const response = await call(site.baseUrl, "/v1/devices", { key: "fh_nope" });
    const type = (response.body as { type: string }).type;
    expect(type).toBe(`${site.baseUrl}/docs/errors#invalid_api_key`);
    const page = await fetch(type.split("#")[0] ?? "");
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const code of [
      "invalid_parameter",
      "missing_api_key",
      "invalid_api_key",
      "api_key_revoked",
      "api_key_expired",
      "insufficient_scope",
      "write_not_enabled",
      "not_found",
      "rate_limited",
      "internal_error",
      "bad_request",
      "conflict",
    ]) {
      expect(html).toContain(`id="${code}"`);
    }
  });

  test("every request gets its own request id", async () => {
    const first = await call(site.baseUrl, "/v1/introspect", { key: site.keys.acme });
    const second = await call(site.baseUrl, "/v1/introspect", { key: site.keys.acme });
    expect(first.headers.get("x-request-id")).not.toBe(second.headers.get("x-request-id"));
  });
});
