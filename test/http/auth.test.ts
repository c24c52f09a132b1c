/** Spec section 5 (authentication) and 7 (errors) through HTTP. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, expectApiHeaders, expectProblem } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site.stop();
});

const operations = () => [
  { path: "/v1/devices", scope: "devices:read" },
  { path: `/v1/devices/${ids.acmeGateway1}`, scope: "devices:read" },
  { path: `/v1/devices/${ids.acmeGateway1}/registers`, scope: "registers:read" },
  { path: `/v1/devices/${ids.acmeGateway1}/readings`, scope: "registers:read" },
  { path: "/v1/alerts", scope: "alerts:read" },
];

describe("missing and unknown keys", () => {
  test("no Authorization header is 401 missing_api_key on every operation", async () => {
    for (const { path } of [...operations(), { path: "/v1/introspect" }]) {
      const response = await call(site.baseUrl, path);
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
    const key = site.createKey("acme", ["devices:read"]);
    expect((await call(site.baseUrl, "/v1/devices", { key })).status).toBe(200);
    expect(site.store.keys.revoke(key.slice(0, 11), site.clock.now())).toBe(1);
    expectProblem(await call(site.baseUrl, "/v1/devices", { key }), 401, "api_key_revoked");
  });

  test("a key past its expires_at is 401 api_key_expired", async () => {
    const key = site.createKey("acme", ["devices:read"], { expiresAt: site.clock.now() + 60_000 });
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
    for (const { path, scope } of operations()) {
      for (const [held, key] of Object.entries(keyFor)) {
        const response = await call(site.baseUrl, path, { key });
        if (held === scope) {
          expect(response.status).toBe(200);
        } else {
          expectProblem(response, 403, "insufficient_scope");
          expect((response.body as { detail: string }).detail).toContain(scope);
        }
      }
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
