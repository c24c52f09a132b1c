/**
 * API keys, admin accounts and sessions, register writes and named secrets on both
 * engines (engines.ts), the promises of src/store/{keys,admin,writes,secrets,sparkplug}.ts:
 * keys and session tokens kept only as hashes and looked up by them; revocation by
 * id or prefix; a new password ends the sessions; the one-time setup token; write
 * attempts with their events, a device's write by its request without one. On PostgreSQL, two pools (two central processes)
 * completing setup at once create one owner, and share one secret.
 */
import { beforeAll, expect, test } from "bun:test";
import { hashApiKey, sha256Hex } from "../../../src/lib/crypto.ts";
import { sessionLifetimeMs } from "../../../src/store/contract/admin.ts";
import type { WriteAttempt } from "../../../src/store/contract/writes.ts";
import { sampleEvent } from "../../harness/events.ts";
import { describeOnBothEngines, type OpenDomains } from "./engines.ts";
import { ids } from "./inventory-fixture.ts";

const t0 = Date.UTC(2026, 5, 1);

describeOnBothEngines("keys, admin, writes, secrets", t0, (opened, engine) => {
  let store: OpenDomains;
  let acme = -1;
  beforeAll(async () => {
    store = opened();
    acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
  });
  test("a key is stored only as its hash and prefix, and found by the key presented", async () => {
    const created = await store.keys.create(
      { orgKey: "acme", name: "ci", scopes: ["devices:read", "alerts:read"], expiresAt: t0 + 1000 },
      t0,
    );
    expect(created).toMatchObject({ name: "ci", orgKey: "acme", prefix: created.key.slice(0, 11), createdAt: t0 });
    const rows = await store.query("SELECT * FROM api_keys");
    expect(rows.length).toBe(1);
    expect(rows[0]?.hash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(rows)).not.toContain(created.key);
    expect(await store.keys.lookup(created.key)).toEqual({
      id: created.id,
      name: "ci",
      scopes: ["devices:read", "alerts:read"],
      kind: "standard",
      rateLimitPerMinute: null,
      createdAt: t0,
      expiresAt: t0 + 1000,
      revokedAt: null,
      orgId: acme,
      orgName: "Acme",
    });
    expect(await store.keys.lookup(`${created.key}x`)).toBeNull();
  });

  test("keys: a sandbox key drops the write scope; listed newest first, per organisation; unknown organisation refused", async () => {
    const sandbox = await store.keys.create(
      {
        orgKey: "beta",
        name: "try",
        scopes: ["devices:read", "registers:write"],
        expiresAt: null,
        kind: "sandbox",
        key: "fh_sandbox_fixed_key_0001",
      },
      t0 + 1,
    );
    expect(sandbox.rateLimitPerMinute).toBe(60);
    expect(await store.keys.lookup("fh_sandbox_fixed_key_0001")).toMatchObject({
      kind: "sandbox",
      scopes: ["devices:read"],
    });
    expect((await store.keys.list()).map((k) => k.name)).toEqual(["try", "ci"]);
    expect((await store.keys.list("beta")).map((k) => [k.name, k.orgKey, k.scopes])).toEqual([
      ["try", "beta", ["devices:read"]],
    ]);
    await expect(store.keys.create({ orgKey: "nobody", name: "x", scopes: [], expiresAt: null }, t0)).rejects.toThrow(
      'no organisation with key "nobody"',
    );
  });

  test("keys: revoked by id or prefix, once; last use written at most once a minute", async () => {
    const [ci] = await store.keys.list("acme");
    if (ci === undefined) throw new Error("the key of the first test");
    expect(await store.keys.revoke(ci.prefix, t0 + 5000)).toBe(1);
    expect(await store.keys.revoke(ci.id, t0 + 6000)).toBe(0);
    expect((await store.keys.list("acme"))[0]?.revokedAt).toBe(t0 + 5000);
    const [sandbox] = await store.keys.list("beta");
    await store.keys.recordUse(sandbox?.id as string, t0 + 60_000);
    await store.keys.recordUse(sandbox?.id as string, t0 + 90_000); // same minute: not written
    expect((await store.keys.list("beta"))[0]?.lastUsedAt).toBe(t0 + 60_000);
    await store.keys.recordUse(sandbox?.id as string, t0 + 120_000);
    expect((await store.keys.list("beta"))[0]?.lastUsedAt).toBe(t0 + 120_000);
  });

  test("setup: a token while no admin exists, checked by hash, spent once by the first owner", async () => {
    expect(await store.admin.countUsers()).toBe(0);
    const token = (await store.admin.issueSetupToken(t0)) as string;
    expect(token).toBeString();
    expect(JSON.stringify(await store.query("SELECT * FROM store_meta"))).not.toContain(token);
    expect(await store.admin.setupTokenMatches(token, t0 + 1)).toBe(true);
    expect(await store.admin.setupTokenMatches(`${token}x`, t0 + 1)).toBe(false);
    expect(await store.admin.setupTokenMatches(token, t0 + 25 * 3_600_000)).toBe(false); // expired after a day
    expect(await store.admin.completeSetup(`${token}x`, "root", "hash-0", t0 + 2)).toBeNull();
    const owner = await store.admin.completeSetup(token, "root", "hash-0", t0 + 2);
    expect(owner).toMatchObject({ username: "root", role: "owner" });
    expect(await store.admin.completeSetup(token, "root2", "hash-0", t0 + 3)).toBeNull();
    expect(await store.admin.issueSetupToken(t0 + 4)).toBeNull();
    expect(await store.admin.setupTokenMatches(token, t0 + 5)).toBe(false);
  });

  test("accounts and sessions: created or updated; sessions by token hash, until revoked or expired; a new password ends them", async () => {
    expect(await store.admin.setPassword("ops", "hash-1", undefined, t0)).toBe("created");
    expect(await store.admin.findUser("ops")).toMatchObject({
      username: "ops",
      role: "admin",
      passwordHash: "hash-1",
    });
    expect((await store.admin.listUsers()).map((u) => [u.username, u.role, u.createdAt])).toEqual([
      ["ops", "admin", t0],
      ["root", "owner", t0 + 2],
    ]);
    const ops = (await store.admin.findUser("ops"))?.id as number;
    const session = await store.admin.createSession(ops, t0);
    expect(session.expiresAt).toBe(t0 + sessionLifetimeMs);
    const rows = await store.query("SELECT token_hash FROM admin_sessions");
    expect(rows).toEqual([{ token_hash: sha256Hex(session.token) }]);
    expect(await store.admin.findSession(session.token, t0 + 1)).toEqual({
      id: (await store.admin.findSession(session.token, t0 + 1))?.id as number,
      csrfToken: session.csrfToken,
      expiresAt: session.expiresAt,
      user: { id: ops, username: "ops", role: "admin" },
    });
    expect(await store.admin.findSession(session.token, session.expiresAt)).toBeNull();
    const second = await store.admin.createSession(ops, t0);
    expect(await store.admin.setPassword("ops", "hash-2", "viewer", t0 + 10)).toBe("updated");
    expect(await store.admin.findUser("ops")).toMatchObject({ role: "viewer", passwordHash: "hash-2" });
    expect(await store.admin.findSession(second.token, t0 + 11)).toBeNull();
    const third = await store.admin.createSession(ops, t0 + 20);
    const fourth = await store.admin.createSession(ops, t0 + 20);
    const thirdId = (await store.admin.findSession(third.token, t0 + 21))?.id as number;
    await store.admin.revokeSession(thirdId, t0 + 22);
    expect(await store.admin.findSession(third.token, t0 + 23)).toBeNull();
    expect(await store.admin.findSession(fourth.token, t0 + 23)).not.toBeNull();
    expect(await store.admin.revokeUserSessions("ops", t0 + 24)).toBe(1);
    expect(await store.admin.revokeUserSessions("nobody", t0 + 24)).toBe(0);
    expect(await store.admin.findSession(fourth.token, t0 + 25)).toBeNull();
    // Role kept when not given.
    await store.admin.setPassword("ops", "hash-3", undefined, t0 + 30);
    expect((await store.admin.findUser("ops"))?.role).toBe("viewer");
  });

  test("register writes: the target by public id, each attempt with its event, read-back settled, listed newest first, pruned", async () => {
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    const target = await store.writes.target(gatewayId, ids.register(1).toUpperCase());
    expect(target).toEqual({
      id: target?.id as number,
      uuid: ids.register(1),
      name: "r1",
      unit: null,
      modbusDeviceUuid: ids.deviceA1,
      modbusDeviceName: "meter",
      gatewaySerial: "SN-A",
      gatewayName: "Alpha",
      dataType: "uint16",
      scaleFactor: null,
      isWritable: true,
      writeMin: 0,
      writeMax: 50,
    });
    expect(await store.writes.target(gatewayId, ids.register(5))).toBeNull();
    const before = (await store.events(acme)).length;
    const attempt = (n: number): WriteAttempt => ({
      orgId: acme,
      registerId: target?.id as number,
      actor: "key:fh_live_abc",
      valueBefore: n === 0 ? null : n - 1,
      valueAsked: n + 0.5,
      result: n === 1 ? "timeout" : "written",
      readBack: n === 1 ? null : n + 0.5,
      detail: null,
      requestedAt: t0 + n * 1000,
      finishedAt: t0 + n * 1000 + 5,
    });
    const written: string[] = [];
    for (const n of [0, 1, 2])
      written.push(
        await store.writes.record(attempt(n), (id) => sampleEvent("register.written", acme, t0 + n * 1000, "SN-A", id)),
      );
    const events = (await store.events(acme)).slice(before);
    expect(events.map((e) => e.data.id)).toEqual(written);
    await store.writes.settleReadBack(written[1] as string, 1.5, "read at the next poll");
    const listed = await store.writes.list({ orgId: acme, limit: 10 });
    expect(listed.map((w) => w.id)).toEqual([...written].reverse());
    expect(listed[1]).toEqual({
      id: written[1] as string,
      organization: "acme",
      gatewaySerial: "SN-A",
      modbusDeviceId: ids.deviceA1,
      modbusDeviceName: "meter",
      registerId: ids.register(1),
      registerName: "r1",
      actor: "key:fh_live_abc",
      valueBefore: 0,
      valueAsked: 1.5,
      result: "timeout",
      readBack: 1.5,
      detail: "read at the next poll",
      requestedAt: t0 + 1000,
      finishedAt: t0 + 1005,
      request: null,
    });
    expect(await store.writes.list({ orgId: acme + 1000, limit: 10 })).toEqual([]);
    expect((await store.writes.list({ limit: 2 })).length).toBe(2);
    expect(await store.writes.deleteOlderThan(t0 + 2000, 1)).toBe(1);
    expect(await store.writes.deleteOlderThan(t0 + 2000, 10)).toBe(1);
    expect((await store.writes.list({ limit: 10 })).map((w) => w.id)).toEqual([written[2] as string]);
  });

  test("a device's write (no register covered whole): by its device and request, no event, listed among the others", async () => {
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    const modbusDeviceId = await store.gateways.findModbusDeviceId(gatewayId, ids.deviceA1);
    expect(modbusDeviceId).toBeNumber();
    const eventsBefore = (await store.events(acme)).length;
    const id = await store.writes.recordDeviceWrite({
      orgId: acme,
      modbusDeviceId: modbusDeviceId as number,
      actor: "modbus:10.0.0.7",
      request: { functionCode: 16, address: 2, values: [0x1234, 65535] },
      result: "refused",
      detail: "the device answered exception 2",
      requestedAt: t0 + 9000,
      finishedAt: t0 + 9004,
    });
    expect((await store.events(acme)).length).toBe(eventsBefore);
    const [listed] = await store.writes.list({ orgId: acme, limit: 1 });
    expect(listed).toEqual({
      id,
      organization: "acme",
      gatewaySerial: "SN-A",
      modbusDeviceId: ids.deviceA1,
      modbusDeviceName: "meter",
      registerId: null,
      registerName: null,
      actor: "modbus:10.0.0.7",
      valueBefore: null,
      valueAsked: null,
      request: { functionCode: 16, address: 2, values: [0x1234, 65535] },
      result: "refused",
      readBack: null,
      detail: "the device answered exception 2",
      requestedAt: t0 + 9000,
      finishedAt: t0 + 9004,
    });
    // Exactly one of register and device: a row naming both, or neither, is refused by the table itself.
    const both = store.query(
      `INSERT INTO register_writes (uuid, org_id, register_id, modbus_device_id, actor, result, requested_at, finished_at)
       VALUES ('x', ${acme}, ${(await store.writes.target(gatewayId, ids.register(1)))?.id}, ${modbusDeviceId}, 'a', 'written', 0, 0)`,
    );
    await expect(both).rejects.toThrow();
    expect(await store.writes.deleteOlderThan(t0 + 10_000, 10)).toBeGreaterThanOrEqual(1);
  });

  test("a named secret is created once and kept", async () => {
    const first = await store.secrets.getOrCreate("cursor");
    expect(first.length).toBe(32);
    expect(await store.secrets.getOrCreate("cursor")).toEqual(first);
    expect(await store.secrets.getOrCreate("other")).not.toEqual(first);
  });

  test("a Sparkplug edge node's state is none until saved, then the last one saved", async () => {
    expect(await store.sparkplug.stateOf("plant/site-1")).toBeNull();
    await store.sparkplug.saveState("plant/site-1", { bdSeq: 7, historyThrough: t0 });
    await store.sparkplug.saveState("plant/site-1", { bdSeq: 8, historyThrough: t0 + 1500 });
    expect(await store.sparkplug.stateOf("plant/site-1")).toEqual({ bdSeq: 8, historyThrough: t0 + 1500 });
    expect(await store.sparkplug.stateOf("plant/site-2")).toBeNull();
  });

  test.skipIf(engine.openTwin === undefined)(
    "two processes: setup completed at once creates one owner; both read one secret",
    async () => {
      const fresh = await engine.open();
      const twin = await (engine.openTwin as NonNullable<typeof engine.openTwin>)(fresh);
      try {
        const token = (await fresh.admin.issueSetupToken(t0)) as string;
        const results = await Promise.all(
          [fresh, twin].map((process, n) => process.admin.completeSetup(token, `owner${n}`, "hash", t0 + 1)),
        );
        expect(results.filter((result) => result !== null).length).toBe(1);
        expect(await fresh.admin.countUsers()).toBe(1);
        const [a, b] = await Promise.all([fresh.secrets.getOrCreate("shared"), twin.secrets.getOrCreate("shared")]);
        expect(a).toEqual(b as Buffer);
      } finally {
        await twin.close();
        await fresh.close();
      }
    },
  );
});
