/**
 * A central `serve` on PostgreSQL whose database goes away under it. Before: a
 * refused store was recognised only by SQLite's codes, so every request answered
 * `500 internal_error` while PostgreSQL was stopped, shutting down or read-only.
 * Wanted (docs/fleet.md, "When PostgreSQL is away"): `/v1` answers
 * `503 internal_error`, the admin API `503 store_unavailable`, `/healthz` 503
 * naming the condition, the process stays up, and everything answers 200 again by
 * itself once PostgreSQL takes work again, without a restart.
 *
 * A private PostgreSQL (test/harness/postgres.ts), stopped as `pg_ctl stop -m
 * fast` does and started again on the same port and data; its backends ended with
 * `pg_terminate_backend` (57P01); the database made read-only (25006).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PrivatePostgres, postgresAvailable, postgresMissingReason, startPostgres } from "../harness/postgres.ts";
import { adminSession } from "./harness/admin-session.ts";
import { Cleanup } from "./harness/cleanup.ts";
import {
  createKey,
  eventually,
  type RunningServe,
  startServe,
  strayErrors,
  untilAnswered200,
} from "./harness/serve.ts";

const centralYaml = "organizations: [{ key: acme, name: Acme }]\n";
const outageMs = 20_000;

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

let pg: PrivatePostgres;
let server: RunningServe;
let key: string;
let admin: Awaited<ReturnType<typeof adminSession>>;
/** A connection of the test's own to the server's default database, for ALTER DATABASE and pg_terminate_backend. */
let superuser: () => Bun.SQL;

interface Answer {
  status: number;
  type: string | null;
  code: string | null;
  requestId: boolean;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let code: string | null = null;
  try {
    code = (JSON.parse(text) as { code?: string }).code ?? null;
  } catch {
    // not JSON: code stays null and the assertion shows it
  }
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    code,
    requestId: (response.headers.get("x-request-id") ?? "").startsWith("req_"),
  };
}

const v1Request = () => fetch(`${server.url}/v1/devices`, { headers: { authorization: `Bearer ${key}` } });
const devices = async () => answer(await v1Request());
const health = async () => {
  const response = await fetch(`${server.url}/healthz`);
  return { status: response.status, body: (await response.json()) as { store: string } };
};

/** What a refused request must look like on /v1 and on the admin API. */
const refusedV1: Answer = { status: 503, type: "application/problem+json", code: "internal_error", requestId: true };
const refusedAdmin: Answer = {
  status: 503,
  type: "application/problem+json",
  code: "store_unavailable",
  requestId: true,
};

/** Ends every connection fieldhub holds (57P01 on each one's next query). */
async function terminateFieldhubBackends(): Promise<number> {
  const sql = superuser();
  const rows = await sql`SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
                         WHERE application_name = 'fieldhub' AND pid <> pg_backend_pid()`;
  return rows.filter((row: { ended: boolean }) => row.ended).length;
}

async function untilAllAnswer200(): Promise<void> {
  await untilAnswered200(v1Request);
  await untilAnswered200(() => admin.get("/admin/api/me"));
  await untilAnswered200(() => fetch(`${server.url}/healthz`));
}

describe.skipIf(!postgresAvailable)(
  `a central on PostgreSQL that goes away${postgresAvailable ? "" : ` (${postgresMissingReason})`}`,
  () => {
    beforeAll(async () => {
      const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-pg-outage-"));
      cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
      pg = await startPostgres();
      cleanup.add(() => pg.stop());
      const env = { FIELDHUB_DATABASE_URL: await pg.database("central") };
      const dataDir = join(workDir, "central");
      server = await startServe({ workDir, dataDir, yaml: centralYaml, env });
      cleanup.add(() => server.stop());
      key = (await createKey(dataDir, "acme", "devices:read", env)).key;
      admin = await adminSession(server.url, dataDir, undefined, env);
      let own: Bun.SQL | null = null;
      superuser = () => {
        own ??= new Bun.SQL(pg.url, { max: 1 });
        return own;
      };
      cleanup.add(() => own?.close());
    }, 60_000);

    test(
      "stopped for 20 s: 503 problem+json (never 500), /healthz 503, the process lives; started again: 200 without a restart",
      async () => {
        expect(await devices()).toMatchObject({ status: 200 });
        expect((await health()).status).toBe(200);

        await pg.halt();
        const haltedAt = performance.now();
        const v1: Answer[] = [];
        const adminAnswers: Answer[] = [];
        const healthz: { afterMs: number; status: number }[] = [];
        let stores = "";
        let alive = true;
        try {
          while (performance.now() - haltedAt < outageMs) {
            v1.push(await devices());
            adminAnswers.push(await answer(await admin.get("/admin/api/me")));
            const h = await health();
            healthz.push({ afterMs: performance.now() - haltedAt, status: h.status });
            stores = h.body.store;
            await Bun.sleep(500);
          }
          alive = server.alive();
        } finally {
          await pg.resume();
        }
        const resumedAt = performance.now();
        expect(alive).toBe(true);
        // Every answer while PostgreSQL was away: 503 problem+json with the code, never a 500.
        expect(new Set(v1.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify(refusedV1)]));
        expect(new Set(adminAnswers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify(refusedAdmin)]));
        // /healthz writes at most every 3 s (src/http/ops.ts): its answers from then on.
        expect(new Set(healthz.filter((h) => h.afterMs > 3_500).map((h) => h.status))).toEqual(new Set([503]));
        expect(stores).toMatch(/^PostgreSQL: .*\(ERR_POSTGRES_CONNECTION_[A-Z]+\)$/);
        console.info(`PostgreSQL stopped ${Math.round(outageMs / 1000)} s: ${v1.length} /v1 requests, all 503`);

        await untilAllAnswer200();
        console.info(`PostgreSQL back: everything 200 again ${Math.round(performance.now() - resumedAt)} ms later`);
        expect(server.alive()).toBe(true);
        expect(strayErrors(server)).toEqual([]);
      },
      outageMs + 40_000,
    );

    test("its connections ended by the server (57P01): 503 while they are replaced, never 500, then 200", async () => {
      await untilAllAnswer200();
      // Requests in flight while the server ends fieldhub's connections, again and again
      // for 3 s: a query on a connection being ended gets 57P01 (or finds it closed).
      const answers: Answer[] = [];
      let ended = 0;
      const until = performance.now() + 3_000;
      const asking = async () => {
        while (performance.now() < until) answers.push(await devices());
      };
      const ending = async () => {
        while (performance.now() < until) {
          ended += await terminateFieldhubBackends();
          await Bun.sleep(50);
        }
      };
      await Promise.all([ending(), ...Array.from({ length: 6 }, asking)]);
      const refused = answers.filter((a) => a.status === 503);
      console.info(
        `57P01: ${ended} connections ended; ${refused.length} of ${answers.length} requests 503, the rest 200`,
      );
      expect(ended).toBeGreaterThan(0);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
      expect(refused[0]).toEqual(refusedV1);
      await untilAllAnswer200();
      expect(server.alive()).toBe(true);
      expect(strayErrors(server)).toEqual([]);
      expect(server.logLines().some((line) => line.msg === "store unavailable" && line.engine_code === "57P01")).toBe(
        true,
      );
    }, 40_000);

    test("the database made read-only (25006): writes refused with 503 and /healthz 503; writable again: 200", async () => {
      await untilAllAnswer200();
      const sql = superuser();
      await sql.unsafe("ALTER DATABASE central SET default_transaction_read_only = on");
      cleanup.add(() => superuser().unsafe("ALTER DATABASE central SET default_transaction_read_only = off"));
      // Sessions take the setting when they start: new ones for fieldhub.
      await terminateFieldhubBackends();
      const readOnly = await eventually(health, (h) => h.status === 503 && /25006/.test(h.body.store), 15_000, 200);
      expect(readOnly.body.store).toMatch(/read-only transaction/);
      // A /v1 request counts against the key's rate limit, a write: refused, not a 500.
      const v1 = await eventually(devices, (a) => a.status !== 200, 10_000, 200);
      expect(v1).toEqual(refusedV1);
      expect(server.alive()).toBe(true);

      await sql.unsafe("ALTER DATABASE central SET default_transaction_read_only = off");
      // A session takes the setting when it starts; one that was still starting when the
      // backends were listed may have missed being ended: end any that still refuses.
      await eventually(
        async () => {
          await terminateFieldhubBackends();
          await Bun.sleep(300); // the pool sees its ended connections close before the request
          return await devices();
        },
        (a) => a.status === 200,
        15_000,
        500,
      );
      await eventually(
        async () => (await health()).status,
        (status) => status === 200,
        15_000,
        200,
      );
      expect(strayErrors(server)).toEqual([]);
      expect(server.logLines().some((line) => line.engine_code === "25006")).toBe(true);
    }, 60_000);
  },
);
