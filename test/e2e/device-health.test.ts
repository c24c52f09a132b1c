/**
 * Per-device health and text registers through the public doors (items
 * 1 and 2): `fieldhub serve` polls Debian's pymodbus over Modbus TCP (one device
 * that answers but refuses one register, one wrong unit id the peer ignores) and over a serial line (a socat pty pair, a wrong unit id that
 * gets no answer at all). GET /v1/devices/{id} shows each device's health,
 * the register list shows the set-aside register and the string register's text,
 * the readings history holds no rows for it, the log names things, and the admin
 * page in chromium shows the same.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { stableUuid } from "../../src/lib/ids.ts";
import { type RunningCli, servedUrl, startCli } from "../harness/cli.ts";
import { createReadKey, eventually, getData } from "../harness/served-api.ts";

const python = "/usr/bin/python3";
const fixture = join(import.meta.dir, "..", "fixtures", "pymodbus_server.py");
const chromiumPath = process.env.FIELDHUB_CHROMIUM ?? "/usr/bin/chromium";

/** Unit 1 only: any other unit id is "not there". Address 40010 is not in the map: exception 2. */
function peerSpec(serialPath: string | null) {
  return {
    tcp_port: 0,
    serial: serialPath === null ? null : { port: serialPath, baudrate: 19200, parity: "N", stopbits: 1, bytesize: 8 },
    units: {
      "1": {
        hr: [
          { address: 0, type: "int16", value: 215 },
          { address: 300, type: "string", value: "FH-TEST", length: 4 },
        ],
      },
    },
  };
}

function startPeer(spec: ReturnType<typeof peerSpec>) {
  const proc = Bun.spawn([python, fixture, JSON.stringify(spec)], { stdout: "pipe", stderr: "ignore" });
  const ready = (async () => {
    const reader = proc.stdout.getReader();
    let text = "";
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const match = /READY (\d+|serial)/.exec(text);
      if (match) {
        reader.releaseLock();
        return match[1] === "serial" ? 0 : Number(match[1]);
      }
    }
    throw new Error(`pymodbus peer did not start: ${text}`);
  })();
  return { proc, ready };
}

let workDir = "";
let dataDir = "";
let server: RunningCli;
let baseUrl = "";
let key = "";
const helpers: { kill(): void }[] = [];
const tcpGateway = stableUuid("gateway", "HEALTH-TCP");
const serialGateway = stableUuid("gateway", "HEALTH-RTU");

beforeAll(async () => {
  if (!existsSync(python)) throw new Error("needs Debian's pymodbus: apt-get install python3-pymodbus");
  if (!existsSync("/usr/bin/socat")) throw new Error("needs socat: apt-get install socat");
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-health-"));
  dataDir = join(workDir, "data");
  const tcpPeer = startPeer(peerSpec(null));
  helpers.push(tcpPeer.proc);
  const tcpPort = await tcpPeer.ready;

  const lineA = join(workDir, "line-a");
  const lineB = join(workDir, "line-b");
  const socat = Bun.spawn(["socat", `pty,raw,echo=0,link=${lineA}`, `pty,raw,echo=0,link=${lineB}`], {
    stdout: "ignore",
    stderr: "ignore",
  });
  helpers.push(socat);
  const deadline = Date.now() + 10_000;
  while (!(existsSync(lineA) && existsSync(lineB))) {
    if (Date.now() > deadline) throw new Error("socat did not make the pty pair");
    await Bun.sleep(20);
  }
  const serialPeer = startPeer(peerSpec(lineB));
  helpers.push(serialPeer.proc);
  await serialPeer.ready;

  writeFileSync(
    join(workDir, "fieldhub.yaml"),
    `
organizations: [{ key: plant, name: Plant }]
# Readings committed every second, so the history checks below need not wait.
storage: { commit_interval_s: 1 }
gateways:
  - serial: HEALTH-TCP
    name: Boiler house
    bus: { type: tcp }
    devices:
      - name: boiler
        slave_id: 1
        host: 127.0.0.1
        port: ${tcpPort}
        poll_interval_ms: 200
        timeout_ms: 500
        retries: 0
        registers:
          - { name: flow_temp, address: 0, data_type: int16, scale_factor: 0.1 }
          - { name: nameplate, address: 300, data_type: string, length: 4 }
          - { name: return_temp, address: 40010, data_type: int16 }
      - name: wrong-unit
        slave_id: 7
        host: 127.0.0.1
        port: ${tcpPort}
        poll_interval_ms: 200
        timeout_ms: 500
        retries: 0
        registers:
          - { name: supply_temp, address: 0, data_type: int16 }
  - serial: HEALTH-RTU
    name: Serial line
    bus: { type: rtu, path: ${lineA}, baud: 19200 }
    devices:
      - name: silent
        slave_id: 9
        poll_interval_ms: 200
        timeout_ms: 300
        retries: 0
        registers:
          - { name: level, address: 0, data_type: int16 }
`,
  );
  server = startCli([
    "serve",
    "--config",
    join(workDir, "fieldhub.yaml"),
    "--data",
    dataDir,
    "--port",
    "0",
    "--host",
    "127.0.0.1",
  ]);
  baseUrl = await server.waitFor(servedUrl);
  key = await createReadKey(dataDir, "plant");
}, 30_000);

afterAll(async () => {
  await server?.stop();
  for (const helper of helpers) helper.kill();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

const get = <T>(path: string) => getData<T>(baseUrl, key, path);

type Health = {
  status: string;
  last_answer_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  registers_set_aside: number;
  next_probe_at: string | null;
};
type Device = { name: string; health: Health };
type Register = {
  name: string;
  data_type: string;
  latest_value: number | null;
  latest_text: string | null;
  latest_ts: string | null;
  latest_status: string;
  set_aside: { reason: string; since: string; retry_at: string } | null;
};

const devicesOf = async (gatewayId: string) =>
  Object.fromEntries(
    (await get<{ modbus_devices: Device[] }>(`/v1/devices/${gatewayId}`)).modbus_devices.map((device) => [
      device.name,
      device.health,
    ]),
  );

describe("device health in GET /v1/devices/{id}", () => {
  test("a device that refuses one register is degraded, names the register's address and the exception; its gateway stays online", async () => {
    const devices = await eventually(
      () => devicesOf(tcpGateway),
      (health) => health.boiler?.status === "degraded" && health["wrong-unit"]?.status === "quarantined",
    );
    const boiler = devices.boiler as Health;
    expect(boiler.last_error).toBe("exception 2 (illegal data address) at 3:40010");
    expect(boiler.registers_set_aside).toBe(1);
    expect(boiler.next_probe_at).toBeNull();
    expect(Date.now() - Date.parse(boiler.last_answer_at ?? "")).toBeLessThan(5_000);
    expect(Date.parse(boiler.last_error_at ?? "")).toBeGreaterThan(0);
    expect((await get<{ status: string }>(`/v1/devices/${tcpGateway}`)).status).toBe("online");
  }, 20_000);

  test("a wrong unit id behind a Modbus TCP peer (pymodbus does not answer it) is quarantined, never answered", async () => {
    const wrongUnit = (await devicesOf(tcpGateway))["wrong-unit"] as Health;
    expect(wrongUnit).toMatchObject({
      status: "quarantined",
      last_answer_at: null,
      last_error: "timeout after 500 ms at 3:0",
      registers_set_aside: 0,
    });
    expect(Date.parse(wrongUnit.next_probe_at ?? "")).toBeGreaterThan(Date.now() - 1_000);
    // Its counters tell it from its neighbour on the same connection: timeouts on this device only.
    const counters = (
      await get<{ modbus_devices: { name: string; health: { counters: Record<string, unknown> } }[] }>(
        `/v1/devices/${tcpGateway}`,
      )
    ).modbus_devices.map((device) => [device.name, device.health.counters]);
    const byName = Object.fromEntries(counters) as Record<string, { timeouts: number; requests: number }>;
    expect(byName["wrong-unit"]!.timeouts).toBeGreaterThanOrEqual(3);
    expect(byName["wrong-unit"]!.timeouts).toBe(byName["wrong-unit"]!.requests);
    expect(byName.boiler!.timeouts).toBe(0);
  });

  test("a wrong unit id on a serial line (no answer at all) is quarantined with the timeout in words", async () => {
    const devices = await eventually(
      () => devicesOf(serialGateway),
      (health) => health.silent?.status === "quarantined",
    );
    expect(devices.silent).toMatchObject({ last_answer_at: null, last_error: "timeout after 300 ms at 3:0" });
  }, 20_000);
});

describe("the register list", () => {
  test("the refused register says it is set aside and why; the string register serves its text", async () => {
    const registers = await eventually(
      () => get<Register[]>(`/v1/devices/${tcpGateway}/registers`),
      (list) => list.find((register) => register.name === "nameplate")?.latest_text !== null,
    );
    const byName = Object.fromEntries(registers.map((register) => [`${register.name}`, register]));
    expect(byName.return_temp?.set_aside?.reason).toBe("exception 2 (illegal data address) at 3:40010");
    // A register set aside has no current value (docs/api.md section 2.7).
    expect(byName.return_temp?.latest_status).toBe("unavailable");
    const setAside = byName.return_temp?.set_aside;
    expect(Date.parse(setAside?.retry_at ?? "")).toBeGreaterThan(Date.parse(setAside?.since ?? ""));
    expect(byName.nameplate).toMatchObject({
      data_type: "string",
      latest_text: "FH-TEST",
      latest_value: null,
      set_aside: null,
    });
    expect(byName.nameplate?.latest_ts).not.toBeNull();
    expect(byName.flow_temp).toMatchObject({ latest_value: 21.5, latest_text: null, set_aside: null });
  });

  test("the string register adds no rows to the readings history; the numeric one does", async () => {
    const ids = await get<{ id: string; name: string }[]>(`/v1/devices/${tcpGateway}/registers`);
    const idOf = (name: string) => ids.find((register) => register.name === name)?.id ?? "";
    const flow = await eventually(
      () => get<unknown[]>(`/v1/devices/${tcpGateway}/readings?register_id=${idOf("flow_temp")}`),
      (rows) => rows.length > 0,
    );
    expect(flow.length).toBeGreaterThan(0);
    expect(await get<unknown[]>(`/v1/devices/${tcpGateway}/readings?register_id=${idOf("nameplate")}`)).toEqual([]);
  });
});

describe("the log", () => {
  test("names gateway, device and register by name as well as id", () => {
    const lines = server
      .stdout()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const setAside = lines.find((line) => line.msg === "register refused by the device; set aside");
    expect(setAside).toMatchObject({
      gateway: "HEALTH-TCP",
      gateway_name: "Boiler house",
      gateway_id: tcpGateway,
      device: "boiler",
      device_id: stableUuid("modbus-device", "HEALTH-TCP", "boiler"),
      register: "return_temp",
      register_id: stableUuid("register", "HEALTH-TCP", "boiler", "return_temp"),
      address: "3:40010",
      error: "exception 2 (illegal data address) at 3:40010",
    });
    const quarantined = lines.find(
      (line) => line.msg === "device quarantined: probed with growing backoff" && line.device === "silent",
    );
    expect(quarantined).toMatchObject({ gateway_name: "Serial line", error: "timeout after 300 ms at 3:0" });
  });
});

describe("the admin page in chromium", () => {
  test.skipIf(!existsSync(chromiumPath))(
    "shows device health, the set-aside register and the text",
    async () => {
      const token = await server.waitFor((_log, banner) => /with setup token (\S+?),/.exec(banner)?.[1] ?? null);
      const browser = await chromium.launch({
        executablePath: chromiumPath,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
      });
      try {
        const page = await browser.newPage();
        await page.goto(`${baseUrl}/admin`);
        const setup = page.locator("#setup");
        await setup.getByLabel("Setup token").fill(token);
        await setup.getByLabel("User name").fill("owner");
        await setup.getByLabel("Password (10 characters or more)").fill("correct horse battery");
        await setup.getByRole("button", { name: "Create" }).click();
        const login = page.locator("#login");
        await login.getByRole("heading", { name: "Log in" }).waitFor();
        await login.getByLabel("User name").fill("owner");
        await login.getByLabel("Password").fill("correct horse battery");
        await login.getByRole("button", { name: "Log in" }).click();
        await page
          .locator("#gateway-rows tr", { hasText: "Boiler house" })
          .getByRole("button", { name: "Open" })
          .click();
        const sections = page.locator("#gateway-devices section");
        const boiler = sections.filter({ hasText: "boiler ·" });
        await boiler.locator(".device-health .badge", { hasText: "degraded" }).waitFor();
        expect(await boiler.locator(".device-health").textContent()).toContain(
          "exception 2 (illegal data address) at 3:40010",
        );
        // The bus counters since start: the refused register's one exception, no timeouts.
        const counters = await boiler.locator(".device-health .bus-counters").textContent();
        expect(counters).toContain("1 × exception 2");
        expect(counters).toContain(" 0 timeouts");
        await sections
          .filter({ hasText: "wrong-unit" })
          .locator(".device-health .badge", { hasText: "quarantined" })
          .waitFor();
        const value = (name: string) =>
          boiler.locator("tr[data-register-id]", { hasText: name }).locator(".value").textContent();
        expect(await value("nameplate")).toBe("FH-TEST");
        expect(await value("return_temp")).toBe("set aside: exception 2 (illegal data address) at 3:40010");
        expect(await value("flow_temp")).toBe("21.5");
        // The set-aside register's time carries its latest_status; the quarantined device's register too.
        await boiler
          .locator("tr[data-register-id]", { hasText: "return_temp" })
          .locator(".badge", { hasText: "unavailable" })
          .waitFor();
        await sections
          .filter({ hasText: "wrong-unit" })
          .locator("tr[data-register-id]", { hasText: "supply_temp" })
          .locator(".badge.latest-unavailable")
          .waitFor();
      } finally {
        await browser.close();
      }
    },
    30_000,
  );
});

describe("after a stop", () => {
  test("the text is in the store, and the string register has no readings rows", async () => {
    expect(await server.stop()).toBe(0);
    const store = new Database(join(dataDir, "fieldhub.db"), { readonly: true });
    try {
      const row = store
        .query<{ id: number; latest_text: string | null }, []>(
          "SELECT id, latest_text FROM registers WHERE name = 'nameplate'",
        )
        .get();
      expect(row?.latest_text).toBe("FH-TEST");
      // Neither in the open tail nor in closed blocks.
      const count = store
        .query<{ n: number }, [number, number]>(
          "SELECT (SELECT count(*) FROM history_tail WHERE register_id = ?1) + (SELECT count(*) FROM history_blocks WHERE register_id = ?2) AS n",
        )
        .get(row?.id ?? -1, row?.id ?? -1);
      expect(count?.n).toBe(0);
    } finally {
      await store.close();
    }
  });
});
