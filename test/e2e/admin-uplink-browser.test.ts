/**
 * The admin page's Central tab in a real browser (Debian's chromium driven by
 * playwright-core, as test/e2e/admin-browser.test.ts does) on a site that
 * forwards to its central: real processes (a central `fieldhub serve`, an edge
 * token made with `fieldhub edges create`, a site `fieldhub serve` polling a
 * pymodbus peer), the owner made with `fieldhub admin set-password` and logged in
 * through the form. The tab shows the link connected with its lag and progress at
 * desktop and phone width (no horizontal overflow), and turns unreachable by
 * itself, without a reload, when the central stops; the central's Sites tab lists
 * the site with its last contact. Screenshots go to
 * test-results/admin-page/ beside the other pages'.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { setAdminPassword } from "../faults/harness/admin-session.ts";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { cli, startCentral } from "../fleet/harness.ts";
import { freePort, type RunningCli, repoRoot, servedUrl, startCli } from "../harness/cli.ts";

const chromiumPath = process.env.FIELDHUB_CHROMIUM ?? "/usr/bin/chromium";
const screenshots = join(repoRoot, "test-results", "admin-page");
const owner = { username: "owner", password: "central tab passphrase" };

let workDir: string;
let centralUrl: string;
let central: RunningCli | undefined;
let peer: Awaited<ReturnType<typeof startModbusPeer>> | undefined;
let site: RunningCli | undefined;
let siteUrl: string;
let token: string;
let browser: Browser;
let page: Page;
const requested: string[] = [];
const pageErrors: string[] = [];

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

const stateBadge = () => page.locator("#uplink-state .badge");

/** The state badge's background colour (strings evaluated in the page: these tests are typed without the DOM). */
const badgeColour = () =>
  page.evaluate<string>(`getComputedStyle(document.querySelector("#uplink-state .badge")).backgroundColor`);

/** Waits until the page's refresh shows `state` (and, when asked, readings forwarded). */
const showsState = (state: string, forwarded = false) =>
  page.waitForFunction(
    `document.querySelector("#uplink-state .badge")?.textContent === "${state}" && (${!forwarded} || Number((document.querySelector("#uplink-forwarded")?.textContent ?? "0").replace(/\\D/g, "")) > 0)`,
    undefined,
    { timeout: 20_000 },
  );

describe.skipIf(!hasPymodbus || !existsSync(chromiumPath))(
  "the Central tab in chromium (needs Debian's chromium and python3-pymodbus)",
  () => {
    beforeAll(async () => {
      mkdirSync(screenshots, { recursive: true });
      workDir = mkdtempSync(join(tmpdir(), "fieldhub-uplink-browser-"));
      writeFileSync(join(workDir, "central.yaml"), "organizations:\n  - key: acme\n    name: Acme Greenhouses\n");
      const centralPort = freePort();
      centralUrl = `http://127.0.0.1:${centralPort}`;
      central = await startCentral(workDir, centralPort);
      token = await cli([
        "edges",
        "create",
        "--data",
        join(workDir, "central"),
        "--org",
        "acme",
        "--name",
        "greenhouse-north",
      ]);
      peer = await startModbusPeer();
      const configPath = join(workDir, "site.yaml");
      const uplink = `uplink: { url: "${centralUrl}", token: ${token}, check_interval_s: 1 }\nstorage: { commit_interval_s: 1 }\n`;
      writeFileSync(configPath, peerSiteYaml({ serial: "GW-N", port: peer.port, before: uplink }), { mode: 0o600 });
      const dataDir = join(workDir, "site");
      site = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
      siteUrl = await site.waitFor(servedUrl);
      await setAdminPassword(dataDir, { user: owner.username, role: "owner" }, owner.password);

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
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      page.on("request", (request) => requested.push(request.url()));
      page.on("pageerror", (error) => pageErrors.push(error.message));
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await site?.stop();
      await central?.stop();
      await peer?.stop();
      if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
    });

    test("desktop: the Central tab shows the link connected, its lag, last contact and forwarded readings", async () => {
      await page.goto(`${siteUrl}/admin`);
      const login = page.locator("#login");
      await login.getByLabel("User name").fill(owner.username);
      await login.getByLabel("Password").fill(owner.password);
      await login.getByRole("button", { name: "Log in" }).click();
      await page.getByRole("heading", { level: 2, name: "Gateways" }).waitFor();

      const tab = page.getByRole("navigation").getByRole("button", { name: "Central" });
      await tab.waitFor();
      await tab.click();
      await page.getByRole("heading", { level: 2, name: "Central" }).waitFor();
      // The link is connected and has forwarded polled readings: the tab refreshes to it by itself.
      await showsState("connected", true);
      expect(await badgeColour()).toBe("rgb(209, 250, 229)");
      expect(await page.locator("#uplink-central").textContent()).toBe(centralUrl);
      expect(await page.locator("#uplink-site").textContent()).toBe("acme / greenhouse-north");
      expect(await page.locator("#uplink-lag").textContent()).toMatch(/^\d+ s$/);
      expect(await page.locator("#uplink-last-contact").textContent()).toMatch(/\(\d+ s ago\)$/);
      expect(await page.locator("#uplink-reason").count()).toBe(0);
      await screenshot("20-central");
    });

    test("phone width: the tab fits without horizontal overflow", async () => {
      await page.setViewportSize({ width: 375, height: 800 });
      await page.getByRole("heading", { level: 2, name: "Central" }).waitFor();
      await stateBadge().waitFor();
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
      expect(overflow).toBe(0);
      expect(await page.locator("#uplink-lag").isVisible()).toBe(true);
      await screenshot("21-phone-central");
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    test("the central's Sites tab lists the site with its status and last contact, at desktop and phone width", async () => {
      const centralData = join(workDir, "central");
      await setAdminPassword(centralData, { user: owner.username, role: "owner" }, owner.password);
      // A context of its own: the two processes share a host, so their session cookies would collide.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const central = await context.newPage();
        central.on("request", (request) => requested.push(request.url()));
        central.on("pageerror", (error) => pageErrors.push(error.message));
        await central.goto(`${centralUrl}/admin`);
        const login = central.locator("#login");
        await login.getByLabel("User name").fill(owner.username);
        await login.getByLabel("Password").fill(owner.password);
        await login.getByRole("button", { name: "Log in" }).click();
        await central.getByRole("heading", { level: 2, name: "Gateways" }).waitFor();
        const nav = central.getByRole("navigation");
        // A central forwards to no central of its own; it has sites.
        await nav.getByRole("button", { name: "Sites" }).click();
        await central.getByRole("heading", { level: 2, name: "Sites" }).waitFor();
        expect(await nav.getByRole("button", { name: "Central" }).isVisible()).toBe(false);
        const row = central.locator("#site-rows tr").filter({ hasText: "greenhouse-north" });
        await row.waitFor();
        const cells = await row.locator("td").allTextContents();
        expect(cells.slice(0, 4)).toEqual(["greenhouse-north", "acme", `${token.slice(0, 12)}…`, "active"]);
        expect(cells[5]).toMatch(/^\d+ s ago$/);
        await central.screenshot({ path: join(screenshots, "23-central-sites.png"), fullPage: true });

        await central.setViewportSize({ width: 375, height: 800 });
        await central.waitForTimeout(200);
        const overflow = await central.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
        expect(overflow).toBe(0);
        await central.screenshot({ path: join(screenshots, "24-phone-central-sites.png"), fullPage: true });
      } finally {
        await context.close();
      }
    });

    test("the central stops: the tab turns unreachable with the reason, without a reload", async () => {
      await central?.stop();
      central = undefined;
      await showsState("unreachable");
      expect(await badgeColour()).toBe("rgb(254, 243, 199)");
      expect(await page.locator("#uplink-reason").textContent()).toBeTruthy();
      await screenshot("22-central-unreachable");
    });

    test("nothing was loaded from outside and no script failed", () => {
      expect(requested.some((url) => url.endsWith("/admin/api/uplink"))).toBe(true);
      expect(
        requested.filter(
          (url) => !url.startsWith(`${siteUrl}/`) && !url.startsWith(`${centralUrl}/`) && !url.startsWith("data:"),
        ),
      ).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
