/**
 * After a Modbus TCP peer comes back, its gateway stayed
 * offline for minutes because the reconnect backoff doubled up to 5 minutes. The
 * cap is now per bus (`reconnect_max_s`, 30 s by default); here 2 s, so the test
 * shows a peer that was away for 16 s (long past 1+2+4+8 s of doubling) being
 * polled again within a few seconds of its return, by a real `serve`.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cleanup } from "./harness/cleanup.ts";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "./harness/modbus-peer.ts";
import { createKey, eventually, startServe } from "./harness/serve.ts";

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

test.skipIf(!hasPymodbus)(
  "a peer back after 16 s is online again within 5 s (bus reconnect_max_s: 2)",
  async () => {
    const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-reconnect-"));
    cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
    const peer = await startModbusPeer();
    cleanup.add(() => peer.kill());
    const server = await startServe({
      workDir,
      yaml: peerSiteYaml({ serial: "PEER", port: peer.port, bus: "reconnect_max_s: 2" }),
    });
    cleanup.add(() => server.stop());
    const { key } = await createKey(server.dataDir, "site");
    const status = async () => {
      const response = await fetch(`${server.url}/v1/devices`, { headers: { authorization: `Bearer ${key}` } });
      return ((await response.json()) as { data: { status: string }[] }).data[0]?.status ?? "none";
    };
    await eventually(status, (value) => value === "online", 10_000);

    await peer.stop();
    await eventually(status, (value) => value === "offline", 10_000);
    await Bun.sleep(16_000);
    await peer.restart();
    const back = Date.now();
    await eventually(status, (value) => value === "online", 5_000);
    expect(Date.now() - back).toBeLessThan(5_000);
  },
  60_000,
);
