/**
 * A site's reload that adds a register keeps its link to the central (docs/fleet.md,
 * "Forwarding"; docs/config.md, "Reloading the config"), on real processes: a site
 * `fieldhub serve` polling Debian's pymodbus and forwarding every second to a central
 * `fieldhub serve`. After SIGHUP with a second register, the central lists it with the
 * equipment's value, while the site's link never left `connected` (the same `since`,
 * one "uplink connected" in its log) and its counters went on from where they were; a
 * change of the `uplink` settings still starts the link again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import type { RunningCli } from "../harness/cli.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { getData } from "../harness/served-api.ts";
import { centralSkipReason, until as eventually, type ServedSide, startCentralAndSite } from "./harness.ts";

type Register = { name: string; latest_value: number | null };
type Uplink = { state: string; since: string; forwarded_readings: number };

const gatewayId = stableUuid("gateway", "RELOAD-1");
const gatewaysYaml = (registers: string[]) => `gateways:
  - serial: RELOAD-1
    name: Boiler room
    bus: { type: tcp }
    devices:
      - name: meter
        slave_id: 1
        host: 127.0.0.1
        port: PORT
        poll_interval_ms: 200
        registers:
${registers.map((register) => `          - ${register}`).join("\n")}
`;
const skipReason = centralSkipReason("SQLite");

describe.skipIf(skipReason !== null)(
  `a site's reload on the same link to its central${skipReason === null ? "" : ` (${skipReason})`}`,
  () => {
    let workDir = "";
    let peer: PymodbusPeer | undefined;
    let central: RunningCli | undefined;
    let site: RunningCli | undefined;
    let sides: Record<"site" | "central", ServedSide>;

    const centralRegisters = () =>
      getData<Register[]>(sides.central.url, sides.central.key, `/v1/devices/${gatewayId}/registers`);
    const uplink = async () => ((await (await fetch(`${sides.site.url}/healthz`)).json()) as { uplink: Uplink }).uplink;
    const siteLog = (message: string) =>
      (site?.stdout() ?? "").split("\n").filter((line) => line.includes(`"msg":"${message}`)).length;

    beforeAll(async () => {
      workDir = mkdtempSync(join(tmpdir(), "fieldhub-uplink-reload-"));
      peer = await startPymodbusPeer({
        tcp_port: 0,
        serial: null,
        units: {
          "1": {
            hr: [
              { address: 0, type: "uint16", value: 452 },
              { address: 1, type: "uint16", value: 17 },
            ],
          },
        },
      });
      const started = await startCentralAndSite(
        workDir,
        gatewaysYaml(["{ name: flow, address: 0, data_type: uint16 }"]).replace("PORT", String(peer.port)),
      );
      central = started.central;
      site = started.site;
      sides = started.sides;
    }, 60_000);

    afterAll(async () => {
      await site?.stop();
      await central?.stop();
      peer?.proc.kill();
      if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
    });

    test("a register added: the central lists it, the link stays connected, the counters go on", async () => {
      await eventually(
        centralRegisters,
        (registers) => registers.some((register) => register.latest_value === 452),
        20_000,
      );
      const before = await eventually(uplink, (link) => link.state === "connected" && link.forwarded_readings > 0);

      const sitePath = join(workDir, "site.yaml");
      const text = readFileSync(sitePath, "utf8");
      writeFileSync(
        sitePath,
        text.replace(
          "          - { name: flow, address: 0, data_type: uint16 }",
          "          - { name: flow, address: 0, data_type: uint16 }\n          - { name: level, address: 1, data_type: uint16 }",
        ),
      );
      site?.proc.kill("SIGHUP");
      const states = new Set<string>();
      const sinces = new Set<string>();
      const listed = await eventually(
        async () => {
          const link = await uplink();
          states.add(link.state);
          sinces.add(link.since);
          return centralRegisters();
        },
        (registers) => registers.some((register) => register.name === "level" && register.latest_value === 17),
        20_000,
        50,
      );
      expect(listed.map((register) => register.name).sort()).toEqual(["flow", "level"]);
      expect(siteLog("config reloaded")).toBe(1);

      const after = await uplink();
      expect([...states]).toEqual(["connected"]);
      expect([...sinces]).toEqual([before.since]);
      expect(after).toMatchObject({ state: "connected", since: before.since });
      expect(after.forwarded_readings).toBeGreaterThan(before.forwarded_readings);
      expect(siteLog("uplink connected")).toBe(1);
      // The gateway's status still goes with each round.
      const gateway = await getData<{ status: string }>(
        sides.central.url,
        sides.central.key,
        `/v1/devices/${gatewayId}`,
      );
      expect(gateway.status).toBe("online");

      // The uplink's own settings changed: the link starts again with them.
      writeFileSync(sitePath, readFileSync(sitePath, "utf8").replace("check_interval_s: 1", "check_interval_s: 2"));
      site?.proc.kill("SIGHUP");
      await eventually(
        () => siteLog("uplink connected"),
        (count) => count === 2,
        15_000,
      );
      expect(siteLog("config reloaded")).toBe(2);
    }, 60_000);
  },
);
