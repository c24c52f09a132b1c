/**
 * Reloading the config without a restart (issue 30 item 1), on the real process:
 * `fieldhub serve` started as systemd starts it polls two gateways on pymodbus peers
 * (Debian's python3-pymodbus) that log every request; SIGHUP (what `systemctl reload`
 * sends) applies an edited file. `config check --data` prints the change first; the
 * added register is in /v1 and polled, the removed device is no longer asked, the
 * unchanged gateway's peer is asked without a pause and its Modbus TCP server keeps
 * a master's connection, the changed gateway alone restarts, a rule and automation added by the reload reach a webhook receiver; a
 * file with two problems is refused with both logged and everything keeps running on
 * the old config.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { createEndpoint, createKey, eventually, type RunningServe, startServe } from "../faults/harness/serve.ts";
import { startVerifyingReceiver } from "../faults/harness/webhook-receivers.ts";
import { runCli } from "../harness/cli.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { modbusFrame, rawModbusClient } from "../harness/raw-modbus-client.ts";

const changingId = stableUuid("gateway", "CHANGING");
const steadyId = stableUuid("gateway", "STEADY");
const pollMs = 250;
const apiSettings = "api: { rate_limit_per_minute: 500 }\n";

let workDir = "";
let configPath = "";
let server: RunningServe;
let key = "";
let steady: PymodbusPeer;
let serverPort = 0;
let changing: PymodbusPeer;
const receiver = startVerifyingReceiver();

/** The site's config: `edited` adds register b1 with a rule and automation on it, and removes the pump. */
function siteYaml(edited: boolean, extra = ""): string {
  const device = (name: string, unit: number, port: number, registers: string[]) => `
      - name: ${name}
        slave_id: ${unit}
        host: 127.0.0.1
        port: ${port}
        poll_interval_ms: ${pollMs}
        timeout_ms: 1000
        registers:${registers.map((register) => `\n          - ${register}`).join("")}`;
  const gateway = (serial: string, devices: string, more = "") => `
  - serial: ${serial}
    name: ${serial}
    heartbeat_s: 30
    bus: { type: tcp }${more}
    devices:${devices}`;
  const boiler = ["{ name: b0, address: 0, data_type: int16 }"];
  if (edited) boiler.push("{ name: b1, address: 1, data_type: int16 }");
  return `organizations: [{ key: site, name: Site }]
storage: { commit_interval_s: 1 }
gateways:${gateway(
    "STEADY",
    device("meter", 1, steady.port, ["{ name: m0, address: 0, data_type: int16 }"]),
    `\n    modbus_server: { host: 127.0.0.1, port: ${serverPort} }`,
  )}${gateway(
    "CHANGING",
    device("boiler", 1, changing.port, boiler) +
      (edited ? "" : device("pump", 2, changing.port, ["{ name: p0, address: 10, data_type: int16 }"])),
  )}
${
  edited
    ? `rules:
  - { name: B1 high, gateway: CHANGING, device: boiler, register: b1, condition: gt, threshold: 5 }
automations:
  - { name: Tell on B1, trigger: { rule: B1 high }, actions: [{ type: webhook }] }
`
    : ""
}${extra}`;
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-reload-"));
  configPath = join(workDir, "fieldhub.yaml");
  // A free port for STEADY's Modbus TCP server.
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  serverPort = probe.port;
  probe.stop(true);
  [steady, changing] = await Promise.all([
    startPymodbusPeer({ units: { "1": { hr: [{ address: 0, type: "int16", value: 7 }] } } }),
    startPymodbusPeer({
      units: {
        "1": {
          hr: [
            { address: 0, type: "int16", value: 3 },
            { address: 1, type: "int16", value: 42 },
          ],
        },
        "2": { hr: [{ address: 10, type: "int16", value: 9 }] },
      },
    }),
  ]);
  server = await startServe({ workDir, yaml: siteYaml(false) });
  key = (await createKey(server.dataDir, "site")).key;
  const endpoint = await createEndpoint(server.dataDir, "site", receiver.url, [
    "alert.triggered",
    "automation.triggered",
  ]);
  receiver.useSecret(endpoint.secret);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  for (const peer of [steady, changing]) peer?.proc.kill();
  receiver.stop();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

type Register = { name: string; latest_value: number | null; latest_ts: string | null };
async function registers(gatewayId: string): Promise<Register[]> {
  const response = await fetch(`${server.url}/v1/devices/${gatewayId}/registers`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Register[] }).data;
}
async function healthz(): Promise<{ config: { sha256: string; loaded_at: string } }> {
  return (await (await fetch(`${server.url}/healthz`)).json()) as { config: { sha256: string; loaded_at: string } };
}
/** The peer's requests as [function code, address, monotonic seconds]. */
async function requests(peer: PymodbusPeer): Promise<[number, number, number][]> {
  return JSON.parse((await peer.ask("LOG")).slice("LOG ".length)) as [number, number, number][];
}
const logged = (pattern: RegExp) => server.logLines().filter((line) => pattern.test(String(line.msg)));

test("config check --data prints what a reload would change, by name", async () => {
  await eventually(
    () => registers(changingId),
    (list) => list.every((register) => register.latest_value !== null),
    20_000,
  );
  const edited = join(workDir, "edited.yaml");
  writeFileSync(edited, siteYaml(true, apiSettings));
  const checked = await runCli(["config", "check", edited, "--data", server.dataDir]);
  expect(checked.code).toBe(0);
  const running = await healthz();
  expect(checked.stdout).toContain(`sha256 ${running.config.sha256}`);
  for (const line of [
    "~ api (rate_limit_per_minute)",
    "- device CHANGING/pump",
    "+ register CHANGING/boiler/b1",
    "+ rule B1 high",
    "+ automation Tell on B1",
  ])
    expect(checked.stdout).toContain(`  ${line}\n`);
  expect(checked.stdout).not.toContain("STEADY");
  // A data directory no serve ran on has nothing to compare with: said, exit 1.
  const nothing = await runCli(["config", "check", edited, "--data", workDir]);
  expect(nothing.code).toBe(1);
  expect(nothing.stderr).toContain("no running config recorded");
}, 40_000);

test("SIGHUP applies the edit: the API's rate limit, b1 polled and in /v1, the pump no longer asked, STEADY polled without a pause, a new rule's alert delivered", async () => {
  const before = await healthz();
  // A master connected to STEADY's Modbus TCP server before the reload.
  const master = rawModbusClient(serverPort);
  await master.opened;
  const anonymousLimit = async () => (await fetch(`${server.url}/v1/devices`)).headers.get("x-ratelimit-limit");
  expect(await anonymousLimit()).toBe("100");
  writeFileSync(configPath, siteYaml(true, apiSettings));
  const [, , reloadAt] = (await requests(steady)).at(-1) ?? [0, 0, 0];
  server.proc.kill("SIGHUP");
  await eventually(
    () => logged(/^config reloaded/),
    (lines) => lines.length === 1,
    15_000,
  );
  const after = await healthz();
  expect(after.config.sha256).toBe(new Bun.CryptoHasher("sha256").update(siteYaml(true, apiSettings)).digest("hex"));
  // The API settings apply to the next request.
  expect(await anonymousLimit()).toBe("500");
  expect(after.config.sha256).not.toBe(before.config.sha256);
  expect(Date.parse(after.config.loaded_at)).toBeGreaterThan(Date.parse(before.config.loaded_at));

  const b1 = await eventually(
    async () => (await registers(changingId)).find((register) => register.name === "b1"),
    (register) => register?.latest_value === 42,
    15_000,
  );
  expect(b1?.latest_value).toBe(42);
  expect((await registers(changingId)).map((register) => register.name).sort()).toEqual(["b0", "b1"]);
  // The rule and automation came with the reload: b1 = 42 > 5 triggers both, delivered and verified.
  await eventually(
    () => receiver.arrivals.map((arrival) => arrival.type).sort(),
    (types) => types.includes("alert.triggered") && types.includes("automation.triggered"),
    15_000,
  );

  // Two more seconds of polling after the reload, then the peers' logs are read.
  await Bun.sleep(2_000);
  const changingLog = await requests(changing);
  const lastPumpRequest = Math.max(...changingLog.filter(([, address]) => address === 10).map(([, , t]) => t));
  const [, , changingLast] = changingLog.at(-1) ?? [0, 0, 0];
  expect(changingLast - lastPumpRequest).toBeGreaterThan(1.5);
  // STEADY's peer was asked every poll interval across the reload: no pause longer than a few intervals.
  const around = (await requests(steady)).map(([, , t]) => t).filter((t) => t >= reloadAt - 2 && t <= reloadAt + 4);
  const gaps = around.slice(1).map((t, i) => t - (around[i] ?? t));
  expect(Math.max(...gaps)).toBeLessThan(2);
  expect(around.length).toBeGreaterThan(6);

  // CHANGING alone was restarted; STEADY's poller was never touched.
  const restarted = logged(/^config reload: gateway polling/).map((line) => line.gateway);
  expect(restarted).toEqual(["CHANGING"]);
  const steadyM0 = (await registers(steadyId))[0];
  expect(Date.parse(steadyM0?.latest_ts ?? "")).toBeGreaterThan(Date.parse(after.config.loaded_at));
  // STEADY's Modbus TCP server kept its connection: the master asks on it and reads m0 (7).
  master.socket.write(modbusFrame(1, 1, [3, 0, 0, 0, 1]));
  expect(await master.take(11)).toEqual([0, 1, 0, 0, 0, 5, 1, 3, 2, 0, 7]);
  expect(master.isClosed()).toBe(false);
  master.socket.destroy();
}, 60_000);

test("a file with two problems is refused, both logged with their paths; the old config keeps running", async () => {
  const before = await healthz();
  writeFileSync(
    configPath,
    siteYaml(true)
      .replace("slave_id: 1", "slave_id: 300")
      .replace("heartbeat_s: 30", "heartbeat_s: 30\n    colour: red"),
  );
  server.proc.kill("SIGHUP");
  const refused = await eventually(
    () => logged(/^config reload refused/),
    (lines) => lines.length === 1,
    15_000,
  );
  expect(refused[0]?.problems).toBe(2);
  const problems = logged(/^config reload: gateways/).map((line) => line.path);
  expect(problems).toEqual(["gateways[0].colour", "gateways[0].devices[0].slave_id"]);
  expect(String(logged(/^config reload: gateways\[0\]\.devices/)[0]?.msg)).toContain(`${configPath}:`);
  expect((await healthz()).config).toEqual(before.config);
  // Still polling on the old config: STEADY's value keeps coming.
  const seen = Date.now();
  await eventually(
    async () => Date.parse((await registers(steadyId))[0]?.latest_ts ?? ""),
    (ts) => ts > seen,
    10_000,
  );
  expect(server.alive()).toBe(true);
}, 40_000);
