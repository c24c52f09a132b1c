/** Keys, alerts and webhook endpoints through the admin API, seen from /v1 and the CLI's side. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import { repoRoot } from "../harness/cli.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";
import { type AdminClient, addAdmin, adminCall, login } from "./helpers.ts";

const alertId = "0b5e4c1a-7d2f-4e3a-9c1b-2a6d8f0e4b71";
const warningAlertId = "5d1f2a3b-8c4e-4f6a-9b7d-1e2c3a4b5c6d";

let site: TestSite;
let owner: AdminClient;
beforeAll(async () => {
  site = await startTestSite();
  await addAdmin(site, "ops", "ops password 1", "admin");
  owner = await login(site, "ops", "ops password 1");
  await site.addAlert({
    org: "acme",
    gatewaySerial: "ACME-1",
    uuid: alertId,
    ruleId: "high_temp",
    severity: "critical",
    message: "Air temperature high",
    status: "active",
    value: 31.5,
    createdAt: site.clock.now() - 60_000,
    lastTriggeredAt: site.clock.now() - 60_000,
  });
  await site.addAlert({
    org: "acme",
    gatewaySerial: "ACME-2",
    uuid: warningAlertId,
    ruleId: "low_temp",
    severity: "warning",
    message: "Air temperature low",
    status: "acknowledged",
    value: 14.5,
    createdAt: site.clock.now() - 120_000,
    lastTriggeredAt: site.clock.now() - 120_000,
  });
});
afterAll(async () => {
  await site.stop();
});

const v1 = async (path: string, key: string) => {
  const response = await fetch(`${site.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as { data: { id: string; status: string }[] } };
};

describe("keys", () => {
  test("a key created through the admin API reads /v1/devices; listed without key or hash; revoked", async () => {
    const created = await adminCall(site, "POST", "/keys", {
      client: owner,
      body: { organization: "acme", name: "dashboard", scopes: ["devices:read"] },
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toStartWith("fh_");
    expect((await v1("/v1/devices", created.body.key)).status).toBe(200);

    const list = await adminCall(site, "GET", "/keys", { client: owner });
    const listed = list.body.data.find((key: { id: string }) => key.id === created.body.id);
    expect(listed).toMatchObject({
      name: "dashboard",
      organization: "acme",
      scopes: ["devices:read"],
      status: "active",
    });
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect(Object.keys(listed)).not.toContain("hash");

    const revoked = await adminCall(site, "POST", `/keys/${created.body.id}/revoke`, { client: owner });
    expect(revoked.status).toBe(200);
    expect((await v1("/v1/devices", created.body.key)).status).toBe(401);
    const again = await adminCall(site, "POST", `/keys/${created.body.id}/revoke`, { client: owner });
    expect(again.status).toBe(404);
  });

  test("bad input: 400 with a stable code", async () => {
    for (const body of [
      { organization: "acme", name: "x", scopes: ["write:all"] },
      { organization: "nowhere", name: "x", scopes: [] },
      { organization: "acme", name: "x", scopes: [], expires_at: "tomorrow" },
      { organization: "acme", name: "x", scopes: [], expires_at: "2000-01-01T00:00:00Z" },
      { organization: "acme" },
    ]) {
      const response = await adminCall(site, "POST", "/keys", { client: owner, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe("invalid_parameter");
    }
  });
});

describe("alerts", () => {
  test("without filters every status and severity is listed, as /v1/alerts lists them", async () => {
    const listed = await adminCall(site, "GET", "/alerts?organization=acme", { client: owner });
    expect(listed.status).toBe(200);
    const ids = (listed.body.data as { id: string }[]).map((alert) => alert.id).sort();
    expect(ids).toContain(alertId);
    expect(ids).toContain(warningAlertId);
    expect(ids).toEqual((await v1("/v1/alerts?limit=100", site.keys.acme)).body.data.map((a) => a.id).sort());
  });

  test("acknowledge then resolve through the admin API; /v1/alerts shows it; conflicts are 409", async () => {
    const list = await adminCall(site, "GET", `/alerts?organization=acme&device_id=${ids.acmeGateway1}`, {
      client: owner,
    });
    expect(list.status).toBe(200);
    expect(list.body.data.map((alert: { id: string }) => alert.id)).toEqual([alertId]);

    const ack = await adminCall(site, "POST", `/alerts/${alertId}/acknowledge`, {
      client: owner,
      body: { note: "on it" },
    });
    expect(ack.status).toBe(200);
    expect(ack.body.status).toBe("acknowledged");
    expect((await v1("/v1/alerts", site.keys.acme)).body.data.find((a) => a.id === alertId)?.status).toBe(
      "acknowledged",
    );
    expect((await adminCall(site, "POST", `/alerts/${alertId}/acknowledge`, { client: owner })).status).toBe(409);

    const resolved = await adminCall(site, "POST", `/alerts/${alertId}/resolve`, { client: owner, body: {} });
    expect(resolved.status).toBe(200);
    const seen = await v1("/v1/alerts?status=resolved", site.keys.acme);
    expect(seen.body.data.map((a) => a.id)).toContain(alertId);
    const conflict = await adminCall(site, "POST", `/alerts/${alertId}/resolve`, { client: owner });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe("conflict");
    expect((await adminCall(site, "POST", "/alerts/nope/resolve", { client: owner })).status).toBe(404);
    expect((await adminCall(site, "GET", "/alerts?status=bogus", { client: owner })).status).toBe(400);
  });
});

describe("webhook endpoints", () => {
  test("create, list, secret, rotate, test, deliveries", async () => {
    const created = await adminCall(site, "POST", "/endpoints", {
      client: owner,
      body: { organization: "acme", url: "https://example.com/hook" },
    });
    expect(created.status).toBe(201);
    const id = created.body.endpoint.id;
    expect(created.body.secret).toStartWith("whsec_");
    expect((await adminCall(site, "GET", "/endpoints", { client: owner })).body.data.length).toBe(1);
    expect((await adminCall(site, "GET", `/endpoints/${id}`, { client: owner })).body.url).toBe(
      "https://example.com/hook",
    );
    const secret = await adminCall(site, "GET", `/endpoints/${id}/secret`, { client: owner });
    expect(secret.body.secret).toStartWith("whsec_");
    const rotated = await adminCall(site, "POST", `/endpoints/${id}/rotate-secret`, { client: owner, body: {} });
    expect(rotated.body.secret).not.toBe(secret.body.secret);
    const sent = await adminCall(site, "POST", `/endpoints/${id}/test`, { client: owner });
    expect(sent.status).toBe(200);
    const deliveries = await adminCall(site, "GET", `/endpoints/${id}/deliveries`, { client: owner });
    expect(deliveries.body.data.length).toBe(1);
    const bad = await adminCall(site, "POST", "/endpoints", {
      client: owner,
      body: { organization: "acme", url: "ftp://example.com" },
    });
    expect(bad.status).toBe(400);
    expect(
      (await adminCall(site, "GET", "/endpoints/00000000-0000-4000-8000-000000000000", { client: owner })).status,
    ).toBe(404);
  });
});

describe("fieldhub admin set-password", () => {
  const run = async (args: string[], stdin: string) => {
    const proc = Bun.spawn([process.execPath, "src/main.ts", "admin", "set-password", ...args], {
      cwd: repoRoot,
      env: { ...process.env, CI: "true" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    proc.stdin.write(stdin);
    await proc.stdin.end();
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { code, stdout, stderr };
  };

  test("creates the first user as owner from stdin; refuses short passwords and bad roles", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "fieldhub-admin-cli-"));
    // The CLI works on an existing store only (as `fieldhub serve` leaves it).
    await openStore(dataDir).close();
    try {
      const short = await run(["--data", dataDir, "--user", "anna"], "short\n");
      expect(short.code).toBe(1);
      expect(short.stderr).toContain("at least 10 characters");
      const badRole = await run(["--data", dataDir, "--user", "anna", "--role", "root"], "long enough password\n");
      expect(badRole.code).toBe(2);

      const created = await run(["--data", dataDir, "--user", "anna"], "long enough password\n");
      expect(created.code).toBe(0);
      expect(created.stdout).toContain("role owner");
      const viewer = await run(["--data", dataDir, "--user", "ben", "--role", "viewer"], "another password\n");
      expect(viewer.code).toBe(0);

      const store = openStore(dataDir);
      try {
        const users = store.admin;
        const anna = await users.findUser("anna");
        expect(anna?.role).toBe("owner");
        expect(await Bun.password.verify("long enough password", anna?.passwordHash ?? "")).toBe(true);
        expect((await users.findUser("ben"))?.role).toBe("viewer");
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
