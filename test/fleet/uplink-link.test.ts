/**
 * A site's link to its central (docs/fleet.md, "Sites"), on real processes: a
 * central `fieldhub serve`, an edge token made there with `fieldhub edges create`,
 * and a site `fieldhub serve` whose config has `uplink`. The site calls out and
 * says in /healthz, /metrics and its log whether the central accepts it; an
 * unreachable central is an outage the site rides out (healthy), a revoked token
 * is a fault an operator must fix (503), and the token never reaches a log.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type RunningCli, runCli, servedUrl, startCli } from "../harness/cli.ts";
import { centralYaml, startCentral, until } from "./harness.ts";

const siteYaml = (centralUrl: string, token: string) => `
uplink:
  url: ${centralUrl}
  token: ${token}
  check_interval_s: 1
organizations:
  - key: site
    name: Greenhouse North
`;

let workDir: string;
let centralPort: number;
let centralUrl: string;
let central: RunningCli | undefined;
let site: RunningCli | undefined;
let siteUrl: string;
let token: string;

interface Health {
  status: string;
  problems: string[];
  uplink?: { state: string; reason: string | null; organization: string | null; site: string | null };
}

async function siteHealth(): Promise<{ code: number; body: Health }> {
  const response = await fetch(`${siteUrl}/healthz`);
  return { code: response.status, body: (await response.json()) as Health };
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-uplink-"));
  writeFileSync(join(workDir, "central.yaml"), centralYaml);
  centralPort = freePort();
  centralUrl = `http://127.0.0.1:${centralPort}`;
  central = await startCentral(workDir, centralPort);
  const created = await runCli([
    "edges",
    "create",
    "--data",
    join(workDir, "central"),
    "--org",
    "acme",
    "--name",
    "greenhouse-north",
  ]);
  expect(created.code).toBe(0);
  token = created.stdout.trim();
  const sitePath = join(workDir, "site.yaml");
  writeFileSync(sitePath, siteYaml(centralUrl, token), { mode: 0o600 });
  site = startCli([
    "serve",
    "--config",
    sitePath,
    "--data",
    join(workDir, "site"),
    "--host",
    "127.0.0.1",
    "--port",
    "0",
  ]);
  siteUrl = await site.waitFor(servedUrl);
}, 40_000);

afterAll(async () => {
  await site?.stop();
  await central?.stop();
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

test("the central answers a site's token with its organisation and site; a missing or unknown token is refused as problem+json", async () => {
  const accepted = await fetch(`${centralUrl}/edge/v1/session`, { headers: { authorization: `Bearer ${token}` } });
  expect(accepted.status).toBe(200);
  expect(await accepted.json()).toMatchObject({ organization: "acme", site: "greenhouse-north" });

  for (const [authorization, code] of [
    [null, "missing_api_key"],
    [`Bearer fhe_${"0".repeat(64)}`, "invalid_api_key"],
    ["Bearer not-a-token", "invalid_api_key"],
    [`Bearer ${token.slice(0, -1)}`, "invalid_api_key"],
  ] as const) {
    const response = await fetch(`${centralUrl}/edge/v1/session`, {
      headers: authorization === null ? {} : { authorization },
    });
    expect({ authorization, status: response.status, type: response.headers.get("content-type") }).toEqual({
      authorization,
      status: 401,
      type: "application/problem+json",
    });
    expect(((await response.json()) as { code: string }).code).toBe(code);
  }
});

test("the site says it is connected, in /healthz and /metrics", async () => {
  const { code, body } = await until(siteHealth, (health) => health.body.uplink?.state === "connected");
  expect(code).toBe(200);
  expect(body.uplink).toMatchObject({
    state: "connected",
    organization: "acme",
    site: "greenhouse-north",
    reason: null,
  });
  const metrics = await (await fetch(`${siteUrl}/metrics`)).text();
  expect(metrics).toMatch(/^fieldhub_uplink_state\{state="connected"\} 1$/m);
  expect(metrics).toMatch(/^fieldhub_uplink_state\{state="refused"\} 0$/m);
  const lastContact = Number(/^fieldhub_uplink_last_contact_seconds (\S+)$/m.exec(metrics)?.[1]);
  expect(Math.abs(lastContact * 1000 - Date.now())).toBeLessThan(10_000);
});

test("a central that goes away is an outage the site rides out: still healthy, unreachable, connected again by itself", async () => {
  await central?.stop();
  const away = await until(siteHealth, (health) => health.body.uplink?.state === "unreachable");
  expect(away.code).toBe(200);
  expect(away.body.status).toBe("ok");
  expect(away.body.uplink?.reason).toBeTruthy();

  central = await startCentral(workDir, centralPort);
  const back = await until(siteHealth, (health) => health.body.uplink?.state === "connected");
  expect(back.code).toBe(200);
});

test("a token revoked on the central is refused at once: the site's /healthz is 503 naming it, its log says so, the token is in no log", async () => {
  const revoked = await runCli(["edges", "revoke", "--data", join(workDir, "central"), token.slice(0, 12)]);
  expect(revoked.stdout).toBe("revoked 1 edge token\n");
  const began = Date.now();
  const refused = await until(siteHealth, (health) => health.body.uplink?.state === "refused");
  console.log(`revoked token refused by the site's next check ${Date.now() - began} ms after the revoke`);
  expect(refused.code).toBe(503);
  expect(refused.body.status).toBe("error");
  expect(refused.body.uplink?.reason).toContain("api_key_revoked");
  expect(refused.body.problems.join("\n")).toContain("uplink refused by the central: api_key_revoked");
  const metrics = await (await fetch(`${siteUrl}/metrics`)).text();
  expect(metrics).toMatch(/^fieldhub_uplink_state\{state="refused"\} 1$/m);

  const siteLog = `${site?.stdout()}${site?.stderr()}`;
  expect(siteLog).toContain("uplink refused by the central");
  expect(siteLog).toContain("uplink cannot reach the central");
  expect(siteLog).not.toContain(token);
  expect(`${central?.stdout()}${central?.stderr()}`).not.toContain(token);
});

test("a bad uplink section is refused by config check with every problem and its path, the token not echoed", async () => {
  const wrongToken = `fhe_${"0".repeat(63)}g`; // one character off: near enough to a real token to be a secret
  const path = join(workDir, "bad-uplink.yaml");
  writeFileSync(
    path,
    `uplink:\n  url: ftp://central.example.com/\n  token: ${wrongToken}\n  check_interval_s: 0\n  retry: 5\norganizations:\n  - key: site\n    name: Site\n`,
  );
  const result = await runCli(["config", "check", path]);
  expect(result.code).toBe(1);
  const problems = result.stdout + result.stderr;
  for (const fragment of ["uplink.url", "uplink.token", "uplink.check_interval_s", "uplink.retry"]) {
    expect(problems).toContain(fragment);
  }
  expect(problems).toContain("fieldhub edges create");
  expect(problems).not.toContain(wrongToken);
});
