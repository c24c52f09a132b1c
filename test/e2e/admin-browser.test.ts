/**
 * The admin page in a real browser (Debian's chromium driven by playwright-core)
 * against `fieldhub demo` as a user starts it: the owner created with the setup
 * token from its console banner, then every page used as a person would. What the page does
 * is checked through the other doors: the key it created answers on /v1, the test
 * message it sent reaches a receiver that verifies it with `standardwebhooks`, the
 * alert it acknowledged reads so through /v1/alerts. Screenshots of each page go to
 * test-results/admin-page/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { demoSandboxKey } from "../../src/demo/demo-config.ts";
import { openStore } from "../../src/store/index.ts";
import { freePort, type RunningCli, repoRoot, runCli, startCli } from "../harness/cli.ts";

const chromiumPath = process.env.FIELDHUB_CHROMIUM ?? "/usr/bin/chromium";
const screenshots = join(repoRoot, "test-results", "admin-page");
const owner = { username: "owner", password: "correct horse battery" };

let dataDir: string;
let demo: RunningCli;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every URL the page asked for, and every script error it raised. */
const requested: string[] = [];
const pageErrors: string[] = [];
/** What a prompt() of the page is answered with; the messages of every dialog seen. */
let promptAnswer = "";
const dialogs: string[] = [];

interface Delivery {
  headers: Record<string, string>;
  body: string;
}
const deliveries: Delivery[] = [];
let receiver: ReturnType<typeof Bun.serve>;
/** Whether the receiver's /gone path answers 410 Gone (which pauses its endpoint at once). */
let gone = true;

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

async function v1(path: string, key = demoSandboxKey): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.json() };
}

/** The setup token `demo` prints on its console banner (never in the log) while no admin account exists. */
function setupToken(banner: string): string | null {
  return /setup token (\S+)\)/.exec(banner)?.[1] ?? null;
}

async function openTab(name: string): Promise<void> {
  await page.getByRole("navigation").getByRole("button", { name }).click();
  await page.getByRole("heading", { level: 2, name }).waitFor();
}

/** Polls `check` until it holds; fails naming `what` after `timeoutMs`. */
async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await Bun.sleep(50);
  }
}

/** The page's one message line, once it says something. */
async function message(): Promise<string> {
  const line = page.locator("#message");
  await line.waitFor({ state: "visible" });
  return (await line.textContent()) ?? "";
}

beforeAll(async () => {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `no browser at ${chromiumPath}: install Debian's chromium (npm test does as root) or set FIELDHUB_CHROMIUM`,
    );
  }
  mkdirSync(screenshots, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), "fieldhub-admin-browser-"));
  const port = freePort();
  base = `http://127.0.0.1:${port}`;
  demo = startCli(["demo", "--port", String(port), "--data", dataDir, "--days", "1"]);
  await demo.waitFor((_log, banner) => (banner.includes(`curl -H`) ? true : null), 30_000);

  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (new URL(request.url).pathname === "/gone" && gone) return new Response(null, { status: 410 });
      deliveries.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      return new Response(null, { status: 204 });
    },
  });

  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on("request", (request) => requested.push(request.url()));
  page.on("pageerror", (error) => pageErrors.push(error.message));
  // Confirmations (revoke, rotate) are accepted, as a user who means it would.
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void (dialog.type() === "prompt" ? dialog.accept(promptAnswer) : dialog.accept());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  receiver?.stop(true);
  await demo?.stop(5_000);
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

describe("the admin page in chromium", () => {
  test("first start: the owner is created with the setup token from the console banner, then logs in", async () => {
    const token = await demo.waitFor((_log, banner) => setupToken(banner));
    await page.goto(`${base}/admin`);
    const setup = page.locator("#setup");
    await setup.getByRole("heading", { name: "Create the owner account" }).waitFor();
    await screenshot("01-setup");

    // A wrong token is refused with a readable message, and nothing is created.
    await setup.getByLabel("Setup token").fill("not-the-token");
    await setup.getByLabel("User name").fill(owner.username);
    await setup.getByLabel("Password (10 characters or more)").fill(owner.password);
    await setup.getByRole("button", { name: "Create" }).click();
    expect(await message()).toContain("setup token is wrong");

    await setup.getByLabel("Setup token").fill(token);
    await setup.getByRole("button", { name: "Create" }).click();
    const login = page.locator("#login");
    await login.getByRole("heading", { name: "Log in" }).waitFor();
    expect(await message()).toContain("Owner account created");

    await login.getByLabel("User name").fill(owner.username);
    await login.getByLabel("Password").fill("wrong password!");
    await login.getByRole("button", { name: "Log in" }).click();
    expect(await message()).toMatch(/password/i);
    await screenshot("02-login-refused");

    await login.getByLabel("Password").fill(owner.password);
    await login.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { level: 2, name: "Gateways" }).waitFor();
    await expect(page.locator("#who").textContent()).resolves.toBe("owner (owner)");
  });

  test("gateways: status and last seen; a register's live value changes without reload; its chart", async () => {
    const rows = page.locator("#gateway-rows tr");
    await rows.filter({ hasText: "Greenhouse north" }).waitFor();
    // The heat pump's serial port is not there: its gateway reads offline, the rest online.
    await rows
      .filter({ hasText: "Greenhouse north" })
      .locator(".badge", { hasText: /^online$/ })
      .waitFor();
    const statuses = await page.locator("#gateway-rows .badge").allTextContents();
    expect(statuses).toContain("offline");
    await screenshot("03-gateways");

    await rows.filter({ hasText: "Greenhouse north" }).getByRole("button", { name: "Open" }).click();
    const registerRows = page.locator("#gateway-devices tr[data-register-id]");
    await registerRows.first().waitFor();
    const valuesNow = async () =>
      Object.fromEntries(
        await registerRows.evaluateAll((trs) =>
          trs.map((tr) => [tr.getAttribute("data-register-id"), tr.querySelector(".value")?.textContent ?? ""]),
        ),
      ) as Record<string, string>;
    const before = await valuesNow();
    expect(Object.values(before).some((value) => value !== "—")).toBe(true);
    const navigations: string[] = [];
    page.on("framenavigated", (frame) => navigations.push(frame.url()));

    // The simulated climate computer moves its values every poll (5 s); the page refreshes every 2 s.
    const deadline = Date.now() + 25_000;
    let changed: string | undefined;
    while (changed === undefined && Date.now() < deadline) {
      await page.waitForTimeout(500);
      const after = await valuesNow();
      changed = Object.keys(after).find((id) => before[id] !== undefined && after[id] !== before[id]);
    }
    expect(changed).toBeDefined();
    expect(navigations).toEqual([]);
    await expect(page.locator("#gateway-devices .value.changed").count()).resolves.toBeGreaterThan(0);

    // The chart of air temperature: a day of backfilled history drawn on a canvas.
    await registerRows.filter({ hasText: "air_temperature" }).getByRole("button", { name: "Chart" }).click();
    await page.locator("#chart-plot canvas").waitFor();
    await expect(page.locator("#chart-title").textContent()).resolves.toContain("air_temperature (°C), last 24 h");
    await expect(page.locator("#chart-empty").isHidden()).resolves.toBe(true);
    await screenshot("04-gateway-live-values-and-chart");
  });

  test("a writable register: the owner sets it from the gateway view, bounds shown and confirmed; /v1 reads it back; the Writes tab lists it", async () => {
    const registerRows = page.locator("#gateway-devices tr[data-register-id]");
    const setpointRow = registerRows.filter({ hasText: "heating_setpoint" });
    // Only writable registers offer it.
    expect(
      await registerRows.filter({ hasText: "air_temperature" }).getByRole("button", { name: "Set…" }).count(),
    ).toBe(0);
    promptAnswer = "22.5";
    dialogs.length = 0;
    await setpointRow.getByRole("button", { name: "Set…" }).click();
    expect(await message()).toContain("heating_setpoint is now 22.5 °C");
    expect(dialogs[0]).toContain("10 to 30 °C");
    expect(dialogs[1]).toContain("Write 22.5 °C to heating_setpoint?");
    const gateways = await v1("/devices");
    const greenhouse = gateways.body.data.find((gateway: { name: string }) => gateway.name === "Greenhouse north");
    const setpoint = async () =>
      (await v1(`/devices/${greenhouse.id}/registers`)).body.data.find(
        (register: { name: string }) => register.name === "heating_setpoint",
      );
    // Ingest stores the read-back with its next batch.
    await waitUntil(async () => (await setpoint()).latest_value === 22.5, "/v1 shows the setpoint written");
    expect(await setpoint()).toMatchObject({ is_writable: true, latest_value: 22.5, latest_raw_value: 225 });
    await screenshot("04b-register-written");

    // Outside the bounds: refused in the page before anything is sent.
    promptAnswer = "45";
    await setpointRow.getByRole("button", { name: "Set…" }).click();
    expect(await message()).toContain("45 is outside 10 to 30 °C");

    // A write through a Modbus TCP server that covers no register, as the server records it
    // (test/e2e/modbus-server.test.ts makes one for real): the page names its device and request.
    const store = openStore(dataDir);
    try {
      const stored = (await store.gateways.all()).find((gateway) => gateway.uuid === greenhouse.id);
      const [device] = stored === undefined ? [] : await store.gateways.modbusDevices(stored.id);
      if (stored === undefined || device === undefined) throw new Error("no Modbus device of the greenhouse");
      await store.writes.recordDeviceWrite({
        orgId: stored.orgId,
        modbusDeviceId: device.id,
        actor: "modbus:10.0.0.7",
        request: { functionCode: 16, address: 900, values: [1, 2] },
        result: "written",
        detail: null,
        requestedAt: Date.now(),
        finishedAt: Date.now(),
      });
    } finally {
      await store.close();
    }

    await openTab("Register writes");
    const writeRow = page.locator("#write-rows tr").filter({ hasText: "heating_setpoint" }).first();
    await writeRow.waitFor();
    expect(await writeRow.textContent()).toContain(`user:${owner.username}`);
    expect(await writeRow.textContent()).toContain("written");
    const deviceRow = page.locator("#write-rows tr").filter({ hasText: "function code 16 at 900 (2)" }).first();
    await deviceRow.waitFor();
    expect(await deviceRow.textContent()).toContain("modbus:10.0.0.7");
    expect(await deviceRow.textContent()).toContain("→ [1, 2]");
    await screenshot("04c-register-writes");
    await openTab("Gateways");
  });

  test("alerts: filter, acknowledge and resolve with a note; /v1/alerts shows it", async () => {
    await openTab("Alerts");
    await page.locator("#alert-status").selectOption("active");
    const rows = page.locator("#alert-rows tr[data-alert-id]");
    const statusCells = rows.locator('td[data-label="Status"]');
    // The tab lists every alert first; the filtered list replaces it.
    await waitUntil(async () => {
      const statuses = await statusCells.allTextContents();
      return statuses.length > 0 && statuses.every((status) => status === "active");
    }, "only active alerts listed");
    const row = rows.first();
    const alertId = (await row.getAttribute("data-alert-id")) as string;
    await screenshot("05-alerts");

    await row.getByRole("button", { name: "Acknowledge" }).click();
    const dialog = page.locator("#note-dialog");
    await dialog.getByLabel("Note (optional)").fill("crew on site");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    expect(await message()).toBe("Alert acknowledged.");
    const acknowledged = (await v1(`/alerts?status=acknowledged&limit=100`)).body.data.find(
      (alert: any) => alert.id === alertId,
    );
    expect(acknowledged).toMatchObject({ status: "acknowledged", ack_note: "crew on site" });

    await page.locator("#alert-status").selectOption("acknowledged");
    const same = page.locator(`#alert-rows tr[data-alert-id="${alertId}"]`);
    await same.locator(".badge", { hasText: /^acknowledged$/ }).waitFor();
    await same.getByRole("button", { name: "Resolve" }).click();
    await dialog.getByLabel("Note (optional)").fill("sensor replaced");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    expect(await message()).toBe("Alert resolved.");
    const resolved = (await v1(`/alerts?status=resolved&limit=100`)).body.data.find(
      (alert: any) => alert.id === alertId,
    );
    expect(resolved).toMatchObject({ status: "resolved", ack_note: "crew on site", resolve_note: "sensor replaced" });
    expect(resolved.resolved_at).not.toBeNull();
  });

  test("API keys: create one, use it against /v1, see it used, revoke it", async () => {
    await openTab("API keys");
    const form = page.locator("#new-key");
    await form.getByLabel("Name").fill("BMS reader");
    await form.getByLabel("alerts:read").uncheck();
    await form.getByRole("button", { name: "Create key" }).click();
    await page.locator("#created-key").waitFor();
    const key = (await page.locator("#created-key-value").textContent()) as string;
    expect(key).toMatch(/^fh_/);
    await screenshot("06-key-created");

    expect((await v1("/devices", key)).status).toBe(200);
    const refused = await v1("/alerts", key);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("insufficient_scope");

    await openTab("API keys");
    const row = page.locator("#key-rows tr").filter({ hasText: "BMS reader" });
    // The list reloads on opening the tab; the reloaded one shows the key's use.
    await waitUntil(
      async () => (await row.locator('td[data-label="Last used"]').textContent()) !== "never",
      "last used shown",
    );
    await expect(row.locator(".badge").textContent()).resolves.toBe("active");
    await expect(row.locator('td[data-label="Scopes"]').textContent()).resolves.toBe("devices:read, registers:read");

    await row.getByRole("button", { name: "Revoke" }).click();
    await row.locator(".badge", { hasText: /^revoked$/ }).waitFor();
    const revoked = await v1("/devices", key);
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe("api_key_revoked");
    await screenshot("07-keys");
  });

  test("webhook endpoints: add one, send a test, the receiver verifies it with standardwebhooks", async () => {
    await openTab("Webhook endpoints");
    const url = `http://127.0.0.1:${receiver.port}/fieldhub`;
    const form = page.locator("#new-endpoint");
    await form.getByLabel("URL").fill(url);
    await form.getByLabel("Description").fill("BMS receiver");
    await form.getByRole("button", { name: "Add endpoint" }).click();
    await page.locator("#endpoint-secret").waitFor();
    const secret = (await page.locator("#endpoint-secret-value").textContent()) as string;
    expect(secret).toMatch(/^whsec_/);

    const row = page.locator("#endpoint-rows tr").filter({ hasText: url });
    await row.getByRole("button", { name: "Send test" }).click();
    await page.locator("#message", { hasText: /^Test message delivered/ }).waitFor({ timeout: 15_000 });
    expect(await message()).toMatch(/^Test message delivered: HTTP 204 in \d+ ms\.$/);

    const tests = deliveries.filter((delivery) => JSON.parse(delivery.body).type === "webhook.test");
    expect(tests.length).toBe(1);
    const [delivery] = tests as [Delivery];
    const verified = new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string };
    expect(verified.type).toBe("webhook.test");

    const log = page.locator("#delivery-rows tr").filter({ hasText: "webhook.test" });
    await expect(log.locator(".badge").textContent()).resolves.toBe("delivered");
    await expect(log.locator('td[data-label="Last answer"]').textContent()).resolves.toBe("HTTP 204");

    // Resend: the same message again, with the same webhook-id.
    await log.getByRole("button", { name: "Resend" }).click();
    await waitUntil(
      async () => deliveries.filter((d) => JSON.parse(d.body).type === "webhook.test").length >= 2,
      "the resent message",
    );
    const again = deliveries.filter((d) => JSON.parse(d.body).type === "webhook.test");
    expect(again.length).toBe(2);
    expect(again[1]?.headers["webhook-id"]).toBe(delivery.headers["webhook-id"]);
    await screenshot("08-endpoints");
  });

  test("a paused endpoint is named in a banner above every tab, with why and since when; Resume enables it", async () => {
    await openTab("Webhook endpoints");
    const url = `http://127.0.0.1:${receiver.port}/gone`;
    const form = page.locator("#new-endpoint");
    await form.getByLabel("URL").fill(url);
    await form.getByLabel("Description").fill("");
    await form.getByLabel(/^Rate limit/).fill("2");
    await form.getByRole("button", { name: "Add endpoint" }).click();
    const row = page.locator("#endpoint-rows tr").filter({ hasText: url });
    await expect(row.locator('td[data-label="Rate limit"]').textContent()).resolves.toBe("2/s");

    await row.getByRole("button", { name: "Send test" }).click();
    const banner = page.locator("#paused-banner");
    await banner.filter({ hasText: url }).waitFor({ timeout: 15_000 });
    expect(await banner.textContent()).toMatch(
      /^Webhook endpoint http:\/\/127\.0\.0\.1:\d+\/gone \(demo\) is paused since .+: the endpoint answered 410 Gone\. Its messages are held until it is resumed\. Resume$/,
    );
    // Above every tab, not only the endpoints'.
    await openTab("Gateways");
    expect(await banner.isVisible()).toBe(true);
    await screenshot("08b-paused-banner");

    gone = false;
    await banner.getByRole("button", { name: "Resume" }).click();
    await banner.waitFor({ state: "hidden" });
    const listed = await runCli(["endpoints", "list", "--data", dataDir, "--json"]);
    const endpoint = JSON.parse(listed.stdout).find((candidate: { url: string }) => candidate.url === url);
    expect({ status: endpoint.status, rate: endpoint.rate_limit_per_s }).toEqual({ status: "enabled", rate: 2 });
  });

  test("resend a time range: the endpoint's messages again with the same webhook-ids", async () => {
    await openTab("Webhook endpoints");
    const row = page.locator("#endpoint-rows tr").filter({ hasText: "/fieldhub" });
    await row.getByRole("button", { name: "Resend range" }).click();
    const form = page.locator("#resend-range");
    // A day back: whatever the browser's time zone, the test message is in the range.
    const dayAgo = new Date(Date.now() - 86_400_000 - new Date().getTimezoneOffset() * 60_000);
    await form.getByLabel("Since").fill(dayAgo.toISOString().slice(0, 19));
    await form.getByLabel("Which").selectOption("all");
    const before = deliveries.filter((d) => JSON.parse(d.body).type === "webhook.test").length;
    await form.getByRole("button", { name: "Resend" }).click();
    // The test message and the demo's events this endpoint received since it was added.
    expect(await message()).toMatch(/^\d+ message\(s\) queued again for http:\S+\/fieldhub with their webhook-ids\.$/);
    await waitUntil(
      async () => deliveries.filter((d) => JSON.parse(d.body).type === "webhook.test").length > before,
      "the message resent by range",
    );
    const tests = deliveries.filter((d) => JSON.parse(d.body).type === "webhook.test");
    expect(new Set(tests.map((d) => d.headers["webhook-id"])).size).toBe(1);
  });

  test("on a phone screen every page fits its width", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [tab, shot] of [
      ["Gateways", "09-phone-gateways"],
      ["Alerts", "10-phone-alerts"],
      ["API keys", "11-phone-keys"],
      ["Webhook endpoints", "12-phone-endpoints"],
    ] as const) {
      await openTab(tab);
      await page.waitForTimeout(200);
      // A string, evaluated in the page (these tests are typed without the DOM).
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
      expect({ tab, overflow }).toEqual({ tab, overflow: 0 });
      await page.screenshot({ path: join(screenshots, `${shot}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test("the demo forwards to no central: the page asked, and offers no Central tab", async () => {
    await waitUntil(async () => requested.some((url) => url === `${base}/admin/api/uplink`), "GET /admin/api/uplink");
    expect(await page.locator("#uplink-tab").isVisible()).toBe(false);
    expect(await page.getByRole("navigation").getByRole("button", { name: "Central" }).count()).toBe(0);
  });

  test("a viewer sees gateways, alerts, keys and endpoints, and is offered no change and no secret", async () => {
    const created = Bun.spawn(
      [
        process.execPath,
        "src/main.ts",
        "admin",
        "set-password",
        "--data",
        dataDir,
        "--user",
        "watcher",
        "--role",
        "viewer",
      ],
      {
        cwd: repoRoot,
        env: { ...process.env, CI: "true" },
        stdin: new Blob(["viewer password\n"]),
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    expect(await created.exited).toBe(0);
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const viewerPage = await viewerContext.newPage();
    try {
      await viewerPage.goto(`${base}/admin`);
      const login = viewerPage.locator("#login");
      await login.getByLabel("User name").fill("watcher");
      await login.getByLabel("Password").fill("viewer password");
      await login.getByRole("button", { name: "Log in" }).click();
      await viewerPage.getByRole("heading", { level: 2, name: "Gateways" }).waitFor();
      await viewerPage.locator("#gateway-rows tr").first().waitFor();
      const nav = viewerPage.getByRole("navigation");

      await nav.getByRole("button", { name: "API keys" }).click();
      await viewerPage.locator("#key-rows tr").filter({ hasText: "Sandbox (demo)" }).waitFor();
      expect(await viewerPage.locator("#new-key").isVisible()).toBe(false);
      expect(await viewerPage.locator("#key-rows").getByRole("button", { name: "Revoke" }).count()).toBe(0);

      await nav.getByRole("button", { name: "Webhook endpoints" }).click();
      const endpointRow = viewerPage.locator("#endpoint-rows tr").filter({ hasText: "/fieldhub" });
      await endpointRow.getByRole("button", { name: "Deliveries" }).waitFor();
      expect(await viewerPage.locator("#new-endpoint").isVisible()).toBe(false);
      for (const name of ["Secret", "Rotate secret", "Send test"]) {
        expect({ name, visible: await endpointRow.getByRole("button", { name }).isVisible() }).toEqual({
          name,
          visible: false,
        });
      }

      // The gateway view offers a viewer no way to set a register.
      await nav.getByRole("button", { name: "Gateways" }).click();
      await viewerPage
        .locator("#gateway-rows tr")
        .filter({ hasText: "Greenhouse north" })
        .getByRole("button", { name: "Open" })
        .click();
      await viewerPage
        .locator("#gateway-devices tr[data-register-id]")
        .filter({ hasText: "heating_setpoint" })
        .waitFor();
      expect(
        await viewerPage
          .locator("#gateway-devices")
          .getByRole("button", { name: "Set…" })
          .filter({ visible: true })
          .count(),
      ).toBe(0);

      await nav.getByRole("button", { name: "Alerts" }).click();
      await viewerPage.locator("#alert-rows tr[data-alert-id]").first().waitFor();
      expect(
        await viewerPage
          .locator("#alert-rows")
          .getByRole("button", { name: "Acknowledge" })
          .filter({ visible: true })
          .count(),
      ).toBe(0);
      await viewerPage.screenshot({ path: join(screenshots, "14-viewer-alerts.png"), fullPage: true });
    } finally {
      await viewerContext.close();
    }
  });

  test("a session ended on the machine: the next action is refused and the page asks to log in again", async () => {
    await openTab("API keys");
    const signOut = await runCli(["admin", "sign-out", "--data", dataDir, "--user", owner.username]);
    expect(signOut.code).toBe(0);
    const form = page.locator("#new-key");
    await form.getByLabel("Name").fill("after sign-out");
    await form.getByRole("button", { name: "Create key" }).click();
    await page.locator("#login").waitFor({ state: "visible" });
    expect(await message()).toMatch(/session/i);
    await expect(page.locator("#app").isHidden()).resolves.toBe(true);
    // Nothing was created.
    const listed = await runCli(["keys", "list", "--data", dataDir, "--json"]);
    expect(JSON.parse(listed.stdout).map((key: { name: string }) => key.name)).not.toContain("after sign-out");
    await screenshot("13-session-ended");
  });

  test("nothing was loaded from outside and no script failed", () => {
    expect(requested.length).toBeGreaterThan(5);
    expect(
      requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith("data:") && !url.startsWith("blob:")),
    ).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
