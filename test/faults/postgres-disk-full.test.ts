/**
 * A central `serve` whose PostgreSQL runs out of disk (53100). Before: `500
 * internal_error`. Wanted (docs/fleet.md, "When PostgreSQL is away"): `/v1`
 * answers `503 internal_error`, `/healthz` 503 naming the condition, the process
 * stays up, and both answer 200 again by themselves once there is space.
 *
 * The central's database lives in a tablespace on a small tmpfs mounted by the
 * test (root only); the server's WAL stays on its own disk, so PostgreSQL refuses
 * each write that needs a new page rather than stopping. The test fills the
 * tmpfs, holds a snapshot open (so no dead row version is reclaimed) and fills the
 * pages fieldhub writes to (`store_meta`, `rate_limits`) until PostgreSQL itself
 * says 53100.
 */
import { afterAll, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresAvailable, postgresMissingReason, startPostgres } from "../harness/postgres.ts";
import { Cleanup } from "./harness/cleanup.ts";
import { createKey, eventually, startServe, strayErrors, untilAnswered200 } from "./harness/serve.ts";
import { isRoot, mountSmallFs, smallFsSkipReason } from "./harness/small-fs.ts";

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

/** The user PostgreSQL runs as under root (test/harness/postgres.ts). */
const nobody = 65534;

/** Inserts rows until PostgreSQL refuses one for want of disk; gives its SQLSTATE. */
async function fillUntilRefused(insert: (n: number) => Promise<unknown>): Promise<string> {
  for (let n = 0; n < 200_000; n++) {
    try {
      await insert(n);
    } catch (error) {
      return String((error as { errno?: unknown }).errno);
    }
  }
  return "never refused";
}

test.skipIf(!postgresAvailable || !isRoot)(
  `PostgreSQL out of disk (53100): 503, never 500, /healthz 503; space again: 200 without a restart${
    postgresAvailable ? (isRoot ? "" : ` (${smallFsSkipReason})`) : ` (${postgresMissingReason})`
  }`,
  async () => {
    const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-pg-disk-"));
    cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
    const pg = await startPostgres();
    cleanup.add(() => pg.stop());
    const fs = await mountSmallFs(join(workDir, "small"), 16);
    cleanup.add(() => fs.unmount());
    // The server's user reaches the tablespace through the test's directory.
    chmodSync(workDir, 0o711);
    chownSync(fs.dir, nobody, nobody);
    const superuser = new Bun.SQL(pg.url, { max: 1 });
    cleanup.add(() => superuser.close());
    await superuser.unsafe(`CREATE TABLESPACE small LOCATION '${fs.dir}'`);
    await superuser.unsafe("CREATE DATABASE central TABLESPACE small");
    const env = { FIELDHUB_DATABASE_URL: pg.url.replace(/\/fieldhub$/, "/central") };

    const dataDir = join(workDir, "central");
    const server = await startServe({ workDir, dataDir, yaml: "organizations: [{ key: acme, name: Acme }]\n", env });
    cleanup.add(() => server.stop());
    const { key } = await createKey(dataDir, "acme", "devices:read", env);
    const devices = () => fetch(`${server.url}/v1/devices`, { headers: { authorization: `Bearer ${key}` } });
    const health = async () => {
      const response = await fetch(`${server.url}/healthz`);
      return { status: response.status, store: ((await response.json()) as { store: string }).store };
    };
    expect((await devices()).status).toBe(200);

    fs.fill();
    const central = new Bun.SQL(env.FIELDHUB_DATABASE_URL, { max: 2 });
    cleanup.add(() => central.close());
    // An open snapshot: versions fieldhub leaves behind from now on stay, and need new space.
    const holder = await central.reserve();
    cleanup.add(() => holder.release());
    await holder`BEGIN ISOLATION LEVEL REPEATABLE READ`;
    await holder`SELECT count(*) FROM store_meta`;
    // Large rows, then rows of the size fieldhub writes, then fieldhub's own statements,
    // each until PostgreSQL refuses it: no page keeps room for what fieldhub writes next.
    const pad = "x".repeat(400);
    const fills: ((n: number) => Promise<unknown>)[] = [
      (n) => central`INSERT INTO store_meta (key, value) VALUES (${`pad-${n}`}, ${pad})`,
      (n) => central`INSERT INTO store_meta (key, value) VALUES (${`p-${n}`}, ${new Date().toISOString()})`,
      () => central`INSERT INTO store_meta (key, value) VALUES ('healthz', ${new Date().toISOString()})
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      (n) => central`INSERT INTO rate_limits (bucket, window_start, count) VALUES (${`pad-${n}-${pad}`}, ${9e15}, 1)`,
      (n) => central`INSERT INTO rate_limits (bucket, window_start, count) VALUES (${`p-${n}`}, ${9e15}, 1)`,
      () => central`UPDATE rate_limits SET count = count + 1 WHERE window_start < ${9e15}`,
    ];
    for (const fill of fills) expect(await fillUntilRefused(fill)).toBe("53100");

    const full = await eventually(health, (h) => h.status === 503, 15_000, 250);
    expect(full.store).toMatch(/^PostgreSQL: .*No space left on device.*\(53100\)$/);
    const refused = await eventually(
      async () => {
        const response = await devices();
        return {
          status: response.status,
          type: response.headers.get("content-type"),
          code: ((await response.json()) as { code?: string }).code,
        };
      },
      (answer) => answer.status !== 200,
      15_000,
      100,
    );
    expect(refused).toEqual({ status: 503, type: "application/problem+json", code: "internal_error" });
    expect(server.alive()).toBe(true);

    await holder`COMMIT`;
    fs.free();
    const freedAt = performance.now();
    await untilAnswered200(devices);
    await untilAnswered200(() => fetch(`${server.url}/healthz`));
    console.info(`PostgreSQL disk full: 200 again ${Math.round(performance.now() - freedAt)} ms after space returned`);
    expect(server.alive()).toBe(true);
    expect(strayErrors(server)).toEqual([]);
  },
  90_000,
);
