/**
 * A link outage of several minutes (docs/fleet.md, "Forwarding"), on real processes:
 * a private PostgreSQL, two central `fieldhub serve` processes on it behind a load
 * balancer, and two site boxes, each polling its own pymodbus peer every 200 ms and
 * storing a reading of each register a minute (the shortest storage interval). The link (the balancer) is cut for
 * FIELDHUB_SOAK_OUTAGE_S (180 s by default) while the sites keep polling; once it is
 * back, every register's readings on the central equal the site's own, reading for
 * reading: none missing, none twice.
 *
 * `npm test` runs this file beside the rest of the suite (it mostly waits; see
 * scripts/test.sh), not after it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import {
  centralYaml,
  cli,
  readKey,
  siteHealth,
  startBalancer,
  startCentral,
  storedTimes,
  until,
  untilForwarded,
} from "../fleet/harness.ts";
import { freePort, type RunningCli, servedUrl, startCli } from "../harness/cli.ts";
import { type PrivatePostgres, postgresAvailable, postgresMissingReason, startPostgres } from "../harness/postgres.ts";

const outageMs = Number(process.env.FIELDHUB_SOAK_OUTAGE_S ?? 180) * 1000;

interface Site {
  name: string;
  org: string;
  serial: string;
  dataDir: string;
  process: RunningCli;
  url: string;
  key: string;
}

let workDir: string;
let pg: PrivatePostgres | undefined;
let env: Record<string, string> = {};
const centrals: { process: RunningCli; url: string }[] = [];
const sites: Site[] = [];
const peers: Awaited<ReturnType<typeof startModbusPeer>>[] = [];
let balancer: ReturnType<typeof startBalancer> | undefined;
const centralKeys = new Map<string, string>();

async function launchSite(name: string, org: string, serial: string): Promise<Site> {
  const peer = await startModbusPeer();
  peers.push(peer);
  const token = await cli(["edges", "create", "--data", join(workDir, "central-a"), "--org", org, "--name", name], env);
  const before = [
    `uplink: { url: "${balancer?.url}", token: ${token}, check_interval_s: 2 }`,
    "storage: { commit_interval_s: 1 }",
    "",
  ].join("\n");
  const configPath = join(workDir, `${name}.yaml`);
  writeFileSync(configPath, peerSiteYaml({ serial, port: peer.port, storageIntervalS: 60, before }), { mode: 0o600 });
  const dataDir = join(workDir, name);
  const process = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
  return { name, org, serial, dataDir, process, url: await process.waitFor(servedUrl, 30_000), key: "" };
}

const skipReason = !postgresAvailable ? postgresMissingReason : hasPymodbus ? null : "needs Debian's python3-pymodbus";

describe.skipIf(skipReason !== null)(
  `a link outage of ${outageMs / 1000} s${skipReason === null ? "" : ` (${skipReason})`}`,
  () => {
    beforeAll(async () => {
      workDir = mkdtempSync(join(tmpdir(), "fieldhub-link-outage-"));
      pg = await startPostgres();
      env = { FIELDHUB_DATABASE_URL: await pg.database("central") };
      for (const name of ["central-a", "central-b"]) {
        const dir = join(workDir, name);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "central.yaml"), centralYaml);
        const port = freePort();
        centrals.push({ process: await startCentral(dir, port, env), url: `http://127.0.0.1:${port}` });
      }
      balancer = startBalancer(centrals.map((central) => central.url));
      for (const org of ["acme", "globex"]) centralKeys.set(org, await readKey(join(workDir, "central-a"), org, env));
      sites.push(await launchSite("north", "acme", "NORTH-1"), await launchSite("south", "globex", "SOUTH-1"));
      for (const site of sites) site.key = await readKey(site.dataDir, "site");
    }, 120_000);

    afterAll(async () => {
      balancer?.stop();
      for (const site of sites) await site.process.stop();
      for (const central of centrals) await central.process.stop();
      for (const peer of peers) await peer.stop();
      await pg?.stop();
      if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
    });

    test(
      "the sites poll through the outage; afterwards every reading is on the central exactly once",
      async () => {
        const began = new Date(Date.now() - 60_000).toISOString();
        for (const site of sites) {
          await until(
            () => siteHealth(site),
            (answer) => answer.body.uplink?.state === "connected" && (answer.body.uplink.forwarded_readings ?? 0) > 0,
            30_000,
          );
        }
        balancer?.cut();
        const cutAt = Date.now();
        for (const site of sites) {
          const away = await until(
            () => siteHealth(site),
            (answer) => answer.body.uplink?.state === "unreachable",
            15_000,
          );
          expect(away.code).toBe(200);
        }
        // The outage: the sites keep polling and storing, one reading a register a minute.
        await Bun.sleep(Math.max(0, outageMs - (Date.now() - cutAt)));
        const storedDuring = new Map<string, number>();
        for (const site of sites) {
          const during = await storedTimes(
            site.url,
            site.key,
            site.serial,
            new Date(cutAt).toISOString(),
            new Date().toISOString(),
          );
          storedDuring.set(site.name, during?.get("r0")?.length ?? 0);
        }
        balancer?.restore();
        const restoredAt = Date.now();
        const cut = new Date(restoredAt - 1_000).toISOString();
        const catchUpMs = await untilForwarded(sites, restoredAt);
        console.log(
          `outage ${Math.round((restoredAt - cutAt) / 1000)} s; stored meanwhile per register: ${JSON.stringify(Object.fromEntries(storedDuring))}; both sites complete ${catchUpMs} ms after the link came back`,
        );
        for (const site of sites) {
          // A reading a register a minute while the link was down.
          expect(storedDuring.get(site.name) ?? 0).toBeGreaterThanOrEqual(Math.floor(outageMs / 60_000));
          const local = await storedTimes(site.url, site.key, site.serial, began, cut);
          const forwarded = await storedTimes(
            centrals[1]?.url ?? "",
            centralKeys.get(site.org) ?? "",
            site.serial,
            began,
            cut,
          );
          if (local === null) throw new Error(`${site.name}: its gateway is missing from its own API`);
          for (const times of local.values())
            expect(times.length).toBeGreaterThanOrEqual(Math.floor(outageMs / 60_000));
          // Exactly once: the same times, none missing, none twice.
          expect(forwarded).toEqual(local);
        }
      },
      outageMs + 180_000,
    );
  },
);
