/**
 * The link to the MQTT broker on the admin page (docs/admin.md, "MQTT"), on real
 * processes: a private mosquitto with a password file, a `fieldhub serve` polling a
 * pymodbus peer and publishing to it (user name and password_file), and a box
 * without `mqtt`. Through the admin API over HTTP: 401 without a session, the link
 * online with the broker's URL (no user name, no password), values and events
 * published, the outbox position and what waits; `configured: false` on the other
 * box. In Debian's chromium (playwright-core, as test/e2e/admin-browser.test.ts):
 * the MQTT tab shows the link online, turns `away` with the reason and the last
 * error by itself when the broker stops, and `online` again when it returns,
 * fitting a phone's width. Screenshots go to test-results/admin-page/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import type { MqttView } from "../../src/lib/mqtt-report.ts";
import { adminSession } from "../faults/harness/admin-session.ts";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { eventually, type RunningServe, startServe } from "../faults/harness/serve.ts";
import { repoRoot } from "../harness/cli.ts";
import { type Broker, brokerPassword, brokerUser, hasMosquitto, startMosquitto } from "../harness/mosquitto.ts";

const chromiumPath = process.env.FIELDHUB_CHROMIUM ?? "/usr/bin/chromium";
const screenshots = join(repoRoot, "test-results", "admin-page");
const owner = { user: "owner", role: "owner" as const };
/** The owner's password as adminSession sets it (the browser signs in as the same owner). */
const ownerPassword = "fault-suite-password-1";

type Configured = Extract<MqttView, { configured: true }>;

describe.skipIf(!hasPymodbus || !hasMosquitto)(
  "the MQTT link on the admin page (needs python3-pymodbus and mosquitto; the browser part Debian's chromium)",
  () => {
    let dir: string;
    let broker: Broker;
    let peer: Awaited<ReturnType<typeof startModbusPeer>>;
    let serve: RunningServe;
    let lone: RunningServe;
    let session: Awaited<ReturnType<typeof adminSession>>;

    async function view(): Promise<Configured> {
      const response = await session.get("/admin/api/mqtt");
      if (response.status !== 200) throw new Error(`GET /admin/api/mqtt: ${response.status} ${await response.text()}`);
      return (await response.json()) as Configured;
    }

    beforeAll(async () => {
      mkdirSync(screenshots, { recursive: true });
      dir = mkdtempSync(join(tmpdir(), "fieldhub-admin-mqtt-"));
      broker = await startMosquitto(join(dir, "broker"));
      peer = await startModbusPeer();
      writeFileSync(join(dir, "mqtt.pass"), `${brokerPassword}\n`, { mode: 0o600 });
      const mqtt = `mqtt:\n  url: ${broker.url}\n  username: ${brokerUser}\n  password_file: ${join(dir, "mqtt.pass")}\n  client_id: admin-test\n`;
      serve = await startServe({
        workDir: join(dir, "site"),
        yaml: peerSiteYaml({ serial: "GW-1", port: peer.port, before: `storage: { commit_interval_s: 1 }\n${mqtt}` }),
      });
      lone = await startServe({ workDir: join(dir, "lone") });
      session = await adminSession(serve.url, serve.dataDir);
    }, 60_000);

    afterAll(async () => {
      await serve?.stop();
      await lone?.stop();
      await peer?.stop();
      await broker?.stop();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    test("admin API: 401 without a session; online with the broker's URL, what was published, the outbox position", async () => {
      const anonymous = await fetch(`${serve.url}/admin/api/mqtt`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("content-type")).toBe("application/problem+json");

      const online = await eventually(
        view,
        (body) => body.state === "online" && body.values_published > 0 && body.events_published > 0,
      );
      expect(online).toMatchObject({
        configured: true,
        broker_url: broker.url,
        reason: null,
        last_error: null,
        connects: 1,
        events_waiting: 0,
      });
      expect(online.events_position).toBeGreaterThan(0);
      expect(Date.parse(online.since)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(online.connected_at ?? "")).toBeLessThanOrEqual(Date.now());
      const text = JSON.stringify(online);
      expect(text).not.toContain(brokerPassword);
      expect(text).not.toContain(`${brokerUser}@`);

      const loneSession = await adminSession(lone.url, lone.dataDir);
      const none = await loneSession.get("/admin/api/mqtt");
      expect(await none.json()).toEqual({ configured: false });
    });

    describe.skipIf(!existsSync(chromiumPath))("in chromium", () => {
      let browser: Browser;
      let page: Page;
      const pageErrors: string[] = [];
      const requested: string[] = [];

      const showsState = (state: string) =>
        page.waitForFunction(`document.querySelector("#mqtt-state .badge")?.textContent === "${state}"`, undefined, {
          timeout: 30_000,
        });
      const badgeColour = () =>
        page.evaluate<string>(`getComputedStyle(document.querySelector("#mqtt-state .badge")).backgroundColor`);

      beforeAll(async () => {
        browser = await chromium.launch({
          executablePath: chromiumPath,
          args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
        });
        page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
        page.on("request", (request) => requested.push(request.url()));
        page.on("pageerror", (error) => pageErrors.push(error.message));
      }, 30_000);

      afterAll(async () => {
        await browser?.close();
      });

      test("the MQTT tab shows the link online, then away with the reason and last error by itself, then online again", async () => {
        await page.goto(`${serve.url}/admin`);
        const login = page.locator("#login");
        await login.getByLabel("User name").fill(owner.user);
        await login.getByLabel("Password").fill(ownerPassword);
        await login.getByRole("button", { name: "Log in" }).click();
        await page.getByRole("heading", { level: 2, name: "Gateways" }).waitFor();
        await page.getByRole("navigation").getByRole("button", { name: "MQTT" }).click();
        await page.getByRole("heading", { level: 2, name: "MQTT" }).waitFor();
        await showsState("online");
        expect(await badgeColour()).toBe("rgb(209, 250, 229)");
        expect(await page.locator("#mqtt-broker").textContent()).toBe(broker.url);
        expect(await page.locator("#mqtt-last-error").textContent()).toBe("none");
        expect(
          Number((await page.locator("#mqtt-values-published").textContent())?.replace(/\D/g, "")),
        ).toBeGreaterThan(0);
        expect(await page.locator("#mqtt-events-waiting").textContent()).toMatch(/^0 \(after event \d+\)$/);
        await page.screenshot({ path: join(screenshots, "30-mqtt.png"), fullPage: true });

        await broker.stop();
        await showsState("away");
        expect(await badgeColour()).toBe("rgb(254, 243, 199)");
        expect(await page.locator("#mqtt-reason").textContent()).toBeTruthy();
        expect(await page.locator("#mqtt-last-error").textContent()).toMatch(/ago\)$/);
        await page.screenshot({ path: join(screenshots, "31-mqtt-away.png"), fullPage: true });
        const away = await view();
        expect(away.last_error).toBeTruthy();
        expect(away.connects).toBe(1);

        await page.setViewportSize({ width: 375, height: 800 });
        await page.waitForTimeout(200);
        expect(await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth")).toBe(0);
        await page.screenshot({ path: join(screenshots, "32-phone-mqtt.png"), fullPage: true });
        await page.setViewportSize({ width: 1280, height: 900 });

        await broker.start();
        await showsState("online");
        // The last error stays in view after the link is back.
        expect(await page.locator("#mqtt-last-error").textContent()).toMatch(/ago\)$/);
        expect((await view()).connects).toBe(2);
        expect(requested.some((url) => url.endsWith("/admin/api/mqtt"))).toBe(true);
        expect(requested.filter((url) => !url.startsWith(`${serve.url}/`) && !url.startsWith("data:"))).toEqual([]);
        expect(pageErrors).toEqual([]);
      }, 90_000);
    });
  },
);
