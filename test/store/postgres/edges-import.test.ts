/**
 * What a central needs for its sites (docs/fleet.md), the same assertions on both
 * engines (engines.ts): edge tokens (shown once, kept as a hash, a live name once
 * per organisation, revoked at once) and the history import's rule that stores a
 * site's forwarded readings (one per register and storage period; a resent batch
 * stores nothing twice).
 */
import { beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { describeOnBothEngines, type OpenDomains } from "./engines.ts";

const t0 = Date.UTC(2026, 5, 1);
const minute = 60_000;

describeOnBothEngines("edge tokens and imported readings", t0, (opened) => {
  let store: OpenDomains;
  beforeAll(async () => {
    store = opened();
  });
  test("an edge token is kept as its hash, found by it, unique by live name, and revoked at once", async () => {
    const created = await store.edges.create("acme", "north", t0);
    expect(created.token).toMatch(/^fhe_[0-9a-f]{64}$/);
    expect(created.prefix).toBe(created.token.slice(0, 12));
    const stored = await store.query("SELECT hash FROM edge_tokens");
    expect(stored).toEqual([{ hash: createHash("sha256").update(created.token).digest("hex") }]);
    expect(await store.edges.lookup(created.token)).toMatchObject({
      id: created.id,
      name: "north",
      orgKey: "acme",
      revokedAt: null,
    });
    expect(await store.edges.lookup(`fhe_${"0".repeat(64)}`)).toBeNull();

    await expect(store.edges.create("acme", "north", t0 + 1)).rejects.toThrow(
      'already has an edge token named "north"',
    );
    await expect(store.edges.create("nobody", "north", t0 + 1)).rejects.toThrow('no organisation with key "nobody"');
    const beta = await store.edges.create("beta", "north", t0 + 2);
    expect((await store.edges.list()).map((edge) => [edge.orgKey, edge.name])).toEqual([
      ["beta", "north"],
      ["acme", "north"],
    ]);
    expect((await store.edges.list("beta")).map((edge) => edge.id)).toEqual([beta.id]);

    expect(await store.edges.revoke(created.prefix, t0 + 3)).toBe(1);
    expect(await store.edges.revoke(created.id, t0 + 4)).toBe(0);
    expect((await store.edges.lookup(created.token))?.revokedAt).toBe(t0 + 3);
    // The name is free again once the old token is revoked.
    expect((await store.edges.create("acme", "north", t0 + 5)).name).toBe("north");
  });

  test("a token's last use: null until a session check, then that time, at most one write a minute, never back", async () => {
    const site = await store.edges.create("acme", "last-use", t0);
    const lastUsed = async () => (await store.edges.list("acme")).find((edge) => edge.id === site.id)?.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await store.edges.recordUse(site.id, t0 + 10 * minute + 1_000);
    expect(await lastUsed()).toBe(t0 + 10 * minute + 1_000);
    // Within the same minute: no write.
    await store.edges.recordUse(site.id, t0 + 10 * minute + 30_000);
    expect(await lastUsed()).toBe(t0 + 10 * minute + 1_000);
    await store.edges.recordUse(site.id, t0 + 11 * minute);
    expect(await lastUsed()).toBe(t0 + 11 * minute);
    // An earlier time (another process's clock, or one stepped back) does not move it back.
    await store.edges.recordUse(site.id, t0 + 9 * minute);
    expect(await lastUsed()).toBe(t0 + 11 * minute);
    // An unknown token id changes nothing and does not throw.
    await store.edges.recordUse("00000000-0000-4000-8000-000000000000", t0 + 12 * minute);
    expect((await store.edges.list()).filter((edge) => edge.lastUsedAt !== null).length).toBe(1);
  });

  test("imported readings: one per register and storage period, the first in batch order; a resend stores nothing", async () => {
    const [first] = await store.query("SELECT id FROM registers ORDER BY id LIMIT 1");
    const registerId = Number(first?.id);
    const periods = new Map([[registerId, minute]]);
    const batch: [number, number, number | null][] = [
      [registerId, t0 + 5_000, 1],
      [registerId, t0 + 20_000, 2], // same minute: skipped
      [registerId, t0 + minute, 3],
      [registerId, t0 + 3 * minute + 1_000, null],
    ];
    expect(await store.importReadings(batch, periods)).toEqual({ stored: 3, skipped: 1 });
    expect(await store.importReadings(batch, periods)).toEqual({ stored: 0, skipped: 4 });
    // A later batch fills a free period between stored ones, and only it.
    expect(
      await store.importReadings(
        [
          [registerId, t0 + 2 * minute + 30_000, 4],
          [registerId, t0 + minute + 59_000, 5],
        ],
        periods,
      ),
    ).toEqual({ stored: 1, skipped: 1 });
    const page = await store.page({
      registerIds: [registerId],
      since: t0,
      until: t0 + 10 * minute,
      order: "asc",
      limit: 10,
      after: null,
    });
    expect(page.rows.map((row) => [row.ts - t0, row.rawValue])).toEqual([
      [5_000, 1],
      [minute, 3],
      [2 * minute + 30_000, 4],
      [3 * minute + 1_000, null],
    ]);
  });
});
