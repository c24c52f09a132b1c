/** The admin API's sessions: setup, login, rate limit, CSRF, revocation, roles. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { adminSessions } from "../../src/store/sqlite/schema.ts";
import { drizzleOf, sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { startTestSite, type TestSite } from "../harness/site.ts";
import { type AdminClient, addAdmin, adminCall, login } from "./helpers.ts";

const ownerPassword = "correct horse battery";

/** Every change route, with a body that would pass validation. */
const changeRoutes: [string, string, unknown][] = [
  ["POST", "/logout", undefined],
  ["POST", "/keys", { organization: "acme", name: "x", scopes: ["devices:read"] }],
  ["POST", "/keys/fh_0000000/revoke", undefined],
  ["POST", "/alerts/00000000-0000-4000-8000-000000000000/acknowledge", {}],
  ["POST", "/alerts/00000000-0000-4000-8000-000000000000/resolve", {}],
  ["POST", "/endpoints", { organization: "acme", url: "https://example.com/hook" }],
  ["POST", "/endpoints/00000000-0000-4000-8000-000000000000/rotate-secret", {}],
  ["POST", "/endpoints/00000000-0000-4000-8000-000000000000/enable", {}],
  ["POST", "/endpoints/00000000-0000-4000-8000-000000000000/test", undefined],
];

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site.stop();
});

describe("setup", () => {
  test("needed until the owner is created with the one-time token, then spent", async () => {
    expect((await adminCall(site, "GET", "/setup")).body).toEqual({ needed: true });
    const token = await site.store.admin.issueSetupToken();
    expect(token).not.toBeNull();

    const wrong = await adminCall(site, "POST", "/setup", {
      body: { token: "not-the-token", username: "owner", password: ownerPassword },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe("forbidden");
    expect(wrong.headers.get("content-type")).toBe("application/problem+json");

    const short = await adminCall(site, "POST", "/setup", { body: { token, username: "owner", password: "short" } });
    expect(short.status).toBe(400);
    expect(short.body.code).toBe("invalid_parameter");

    const done = await adminCall(site, "POST", "/setup", {
      body: { token, username: "owner", password: ownerPassword },
    });
    expect(done.status).toBe(200);
    expect(done.body.user).toEqual({ username: "owner", role: "owner" });
    expect((await adminCall(site, "GET", "/setup")).body).toEqual({ needed: false });

    const again = await adminCall(site, "POST", "/setup", {
      body: { token, username: "second", password: ownerPassword },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("conflict");
    expect(await site.store.admin.issueSetupToken()).toBeNull();
  });

  test("the password is stored only as a hash", async () => {
    sqliteOf(site.store).exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const bytes = readFileSync(join(site.dataDir, "fieldhub.db"));
    expect(bytes.includes(Buffer.from(ownerPassword))).toBe(false);
    const stored = await site.store.admin.findUser("owner");
    expect(stored?.passwordHash.startsWith("$argon2id$")).toBe(true);
  });
});

describe("login", () => {
  test("right password: a HttpOnly SameSite=Strict cookie and a CSRF token", async () => {
    site.clock.advance(60_000);
    const response = await adminCall(site, "POST", "/login", { body: { username: "owner", password: ownerPassword } });
    expect(response.status).toBe(200);
    expect(response.body.user).toEqual({ username: "owner", role: "owner" });
    expect(typeof response.body.csrf_token).toBe("string");
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toStartWith("fieldhub_session=");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/admin");
    expect(cookie).not.toContain("Secure");
    const me = await adminCall(site, "GET", "/me", { client: { cookie: cookie.split(";")[0] ?? "", csrf: null } });
    expect(me.status).toBe(200);
    expect(me.body.user).toEqual({ username: "owner", role: "owner" });
  });

  test("Secure behind https (X-Forwarded-Proto)", async () => {
    site.clock.advance(60_000);
    const response = await adminCall(site, "POST", "/login", {
      body: { username: "owner", password: ownerPassword },
      headers: { "x-forwarded-proto": "https" },
    });
    expect(response.headers.get("set-cookie")).toContain("Secure");
  });

  test("bad password and unknown user: the same 401, no cookie", async () => {
    site.clock.advance(60_000);
    for (const body of [
      { username: "owner", password: "wrong password!" },
      { username: "nobody", password: ownerPassword },
    ]) {
      const response = await adminCall(site, "POST", "/login", { body });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe("unauthorized");
      expect(response.body.detail).toBe("Wrong username or password.");
      expect(response.headers.get("set-cookie")).toBeNull();
    }
  });

  test("more than 10 attempts a minute from one address: 429 with Retry-After", async () => {
    site.clock.advance(60_000);
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await adminCall(site, "POST", "/login", {
        body: { username: "owner", password: "guess guess" },
      });
      expect(response.status).toBe(401);
    }
    const limited = await adminCall(site, "POST", "/login", { body: { username: "owner", password: ownerPassword } });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    site.clock.advance(60_000);
    const later = await adminCall(site, "POST", "/login", { body: { username: "owner", password: ownerPassword } });
    expect(later.status).toBe(200);
  });

  test("bad bodies are 400, never 500", async () => {
    site.clock.advance(60_000);
    for (const body of [{}, { username: 1, password: 2 }, "not json"]) {
      const response = await adminCall(site, "POST", "/login", { body });
      expect(response.status).toBe(400);
    }
  });
});

describe("changes need a session and its CSRF token", () => {
  let owner: AdminClient;
  beforeAll(async () => {
    owner = await login(site, "owner", ownerPassword);
  });

  test("no session: 401 unauthorized on every change route", async () => {
    for (const [method, path, body] of changeRoutes) {
      const response = await adminCall(site, method, path, { body, csrf: owner.csrf });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.body.code).toBe("unauthorized");
    }
    expect((await adminCall(site, "GET", "/keys")).status).toBe(401);
    expect((await adminCall(site, "GET", "/me")).status).toBe(401);
  });

  test("no CSRF token, or a wrong one: 403 forbidden on every change route", async () => {
    for (const [method, path, body] of changeRoutes) {
      const missing = await adminCall(site, method, path, { body, client: owner, csrf: null });
      expect(missing.status, `${method} ${path}`).toBe(403);
      expect(missing.body.code).toBe("forbidden");
      const wrong = await adminCall(site, method, path, { body, client: owner, csrf: "x".repeat(43) });
      expect(wrong.status, `${method} ${path}`).toBe(403);
    }
    // The session still works with the right token.
    expect((await adminCall(site, "GET", "/me", { client: owner })).status).toBe(200);
  });

  test("after logout the session is refused", async () => {
    const client = await login(site, "owner", ownerPassword);
    expect((await adminCall(site, "POST", "/logout", { client })).status).toBe(200);
    const after = await adminCall(site, "GET", "/me", { client });
    expect(after.status).toBe(401);
    const change = await adminCall(site, "POST", "/keys", {
      client,
      body: { organization: "acme", name: "x", scopes: [] },
    });
    expect(change.status).toBe(401);
  });

  test("a session revoked in the store is refused", async () => {
    const client = await login(site, "owner", ownerPassword);
    expect((await adminCall(site, "GET", "/me", { client })).status).toBe(200);
    drizzleOf(site.store).update(adminSessions).set({ revokedAt: site.clock.now() }).run();
    expect((await adminCall(site, "GET", "/me", { client })).status).toBe(401);
    const change = await adminCall(site, "POST", "/keys/fh_0000000/revoke", { client });
    expect(change.status).toBe(401);
  });

  test("an expired session is refused", async () => {
    const client = await login(site, "owner", ownerPassword);
    site.clock.advance(13 * 3_600_000);
    expect((await adminCall(site, "GET", "/me", { client })).status).toBe(401);
  });
});

describe("roles", () => {
  test("a viewer may read but not change", async () => {
    await addAdmin(site, "watcher", "viewer password", "viewer");
    const viewer = await login(site, "watcher", "viewer password");
    expect((await adminCall(site, "GET", "/keys", { client: viewer })).status).toBe(200);
    expect((await adminCall(site, "GET", "/alerts", { client: viewer })).status).toBe(200);
    for (const [method, path, body] of changeRoutes.filter(([, path]) => path !== "/logout")) {
      const response = await adminCall(site, method, path, { body, client: viewer });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.code).toBe("forbidden");
    }
    expect((await adminCall(site, "POST", "/logout", { client: viewer })).status).toBe(200);
  });

  test("a webhook signing secret is shown to owners and admins, not to a viewer", async () => {
    await addAdmin(site, "keeper", "admin password", "admin");
    await addAdmin(site, "onlooker", "viewer password", "viewer");
    const admin = await login(site, "keeper", "admin password");
    const created = await adminCall(site, "POST", "/endpoints", {
      client: admin,
      body: { organization: "acme", url: "http://127.0.0.1:9/hook" },
    });
    expect(created.status).toBe(201);
    const id = created.body.endpoint.id as string;
    const shown = await adminCall(site, "GET", `/endpoints/${id}/secret`, { client: admin });
    expect(shown.status).toBe(200);
    expect(shown.body.secret).toBe(created.body.secret);

    const viewer = await login(site, "onlooker", "viewer password");
    expect((await adminCall(site, "GET", `/endpoints/${id}`, { client: viewer })).status).toBe(200);
    const refused = await adminCall(site, "GET", `/endpoints/${id}/secret`, { client: viewer });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("forbidden");
    expect(JSON.stringify(refused.body)).not.toContain(created.body.secret);
  });

  test("what a receiver answered is shown to owners and admins, not to a viewer", async () => {
    await addAdmin(site, "answers-admin", "admin password", "admin");
    await addAdmin(site, "answers-viewer", "viewer password", "viewer");
    const admin = await login(site, "answers-admin", "admin password");
    const created = await adminCall(site, "POST", "/endpoints", {
      client: admin,
      body: { organization: "acme", url: "http://127.0.0.1:9/hook" },
    });
    const id = created.body.endpoint.id as string;
    expect((await adminCall(site, "POST", `/endpoints/${id}/test`, { client: admin })).status).toBe(200);
    // One attempt answered by the receiver, recorded as the dispatcher records it.
    const internalId = (await site.store.webhooks.endpoint(id))?.id;
    const due = (await site.store.webhooks.due(site.clock.now() + 1, 100)).filter(
      (delivery) => delivery.endpointId === internalId,
    );
    expect(due.length).toBe(1);
    const attempt = {
      attemptedAt: site.clock.now(),
      statusCode: 500,
      durationMs: 3,
      error: "HTTP 500",
      responseExcerpt: "internal: db password hunter2",
    };
    await site.store.webhooks.settle(due[0]!, attempt, { kind: "retry", at: site.clock.now() + 60_000 });

    const responsesSeenBy = async (client: AdminClient) => {
      const log = await adminCall(site, "GET", `/endpoints/${id}/deliveries`, { client });
      expect(log.status).toBe(200);
      return (log.body.data as { attempt_log: { response: string | null }[] }[]).flatMap((delivery) =>
        delivery.attempt_log.map((entry) => entry.response),
      );
    };
    expect(await responsesSeenBy(admin)).toEqual(["internal: db password hunter2"]);
    const viewer = await login(site, "answers-viewer", "viewer password");
    expect(await responsesSeenBy(viewer)).toEqual([null]);
  });

  test("login and setup read a few KB at most: a larger body is 413 payload_too_large", async () => {
    for (const path of ["/login", "/setup"]) {
      const response = await fetch(`${site.baseUrl}/admin/api${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "owner", password: "x".repeat(20_000), token: "t" }),
      });
      expect({ path, status: response.status }).toEqual({ path, status: 413 });
      expect(((await response.json()) as { code: string }).code).toBe("payload_too_large");
    }
  });
});
