/**
 * deploy/fleet/compose.yaml, the fleet on one machine (docs/fleet.md): no Docker
 * daemon runs here, so the file is read as compose reads it and its parts are
 * checked against fieldhub itself: both central processes on the one PostgreSQL the
 * file defines, the load balancer in front of both, the site's uplink pointing at the
 * load balancer, the files it mounts present, and both configs passing
 * `fieldhub config check` (the site's with a token in the place compose puts it).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { repoRoot, runCli } from "../harness/cli.ts";

const composePath = join(repoRoot, "deploy", "fleet", "compose.yaml");
const compose = parse(readFileSync(composePath, "utf8"), { merge: true }) as {
  services: Record<
    string,
    {
      environment?: Record<string, string>;
      entrypoint?: string[];
      command?: string[];
      volumes?: string[];
      depends_on?: unknown;
      build?: { context: string };
      image?: string;
    }
  >;
};
const services = compose.services;
const hostPath = (volume: string) => resolve(dirname(composePath), volume.split(":")[0] ?? "");

describe("deploy/fleet/compose.yaml", () => {
  test("PostgreSQL, two centrals, a load balancer, the token maker, a Modbus simulator and a site", () => {
    expect(Object.keys(services).sort()).toEqual(
      ["central", "central-a", "central-b", "edge-token", "modbus-sim", "postgres", "site"].sort(),
    );
  });

  test("both central processes serve the one PostgreSQL the file defines, each with its own data directory", () => {
    const db = services.postgres?.environment ?? {};
    for (const name of ["central-a", "central-b"]) {
      const central = services[name];
      const url = new URL(central?.environment?.FIELDHUB_DATABASE_URL ?? "");
      expect({ name, host: url.hostname, user: url.username, password: url.password, db: url.pathname }).toEqual({
        name,
        host: "postgres",
        user: db.POSTGRES_USER ?? "(none)",
        password: db.POSTGRES_PASSWORD ?? "(none)",
        db: `/${db.POSTGRES_DB}`,
      });
      expect(central?.entrypoint?.slice(1, 6)).toEqual([
        "serve",
        "--config",
        "/etc/fieldhub/central.yaml",
        "--data",
        "/var/lib/fieldhub",
      ]);
      expect(central?.volumes).toContain("./central.yaml:/etc/fieldhub/central.yaml:ro");
      expect(central?.build?.context).toBe("../..");
      expect(existsSync(join(hostPath(central?.build?.context ?? ""), "Dockerfile"))).toBe(true);
    }
    expect(services["central-a"]?.volumes).not.toEqual(services["central-b"]?.volumes);
  });

  test("the load balancer sends to both centrals; the site's uplink goes through it", () => {
    const command = services.central?.command ?? [];
    const targets = command.flatMap((word, index) => (command[index - 1] === "--to" ? [word] : []));
    expect(targets).toEqual(["central-a:8080", "central-b:8080"]);
    const template = readFileSync(join(repoRoot, "deploy", "fleet", "site.yaml.in"), "utf8");
    expect(template).toContain("url: http://central:8080");
    expect(services.site?.entrypoint?.join(" ")).toContain('sed "s/@TOKEN@/$$(cat /shared/token)/"');
  });

  test("every file mounted from the repository exists", () => {
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        if (!volume.startsWith(".")) continue;
        expect({ name, volume, exists: existsSync(hostPath(volume)) }).toEqual({ name, volume, exists: true });
      }
    }
  });

  test("the central's config and the site's (its token filled in) pass fieldhub config check", async () => {
    const central = await runCli(["config", "check", join(repoRoot, "deploy", "fleet", "central.yaml")]);
    expect({ code: central.code, stderr: central.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const dir = mkdtempSync(join(tmpdir(), "fieldhub-compose-"));
    try {
      const site = join(dir, "site.yaml");
      const template = readFileSync(join(repoRoot, "deploy", "fleet", "site.yaml.in"), "utf8");
      writeFileSync(site, template.replace("@TOKEN@", `fhe_${"ab".repeat(32)}`));
      const checked = await runCli(["config", "check", site]);
      expect({ code: checked.code, stderr: checked.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
