/**
 * With the data directory on a small filesystem that fills,
 * `serve` died within a second (SQLITE_FULL from the gateway status timer, or an
 * unhandled rejection in the webhook dispatcher), and a restart on the full disk
 * exited in the inventory sync. Wanted: no store error ends the process; reads
 * keep serving; /healthz answers 503 naming the condition; writing resumes by
 * itself when space comes back; a start on a full disk serves reads.
 *
 * A real small filesystem: a tmpfs mounted by the test (root only).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cleanup } from "./harness/cleanup.ts";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "./harness/modbus-peer.ts";
import { createKey, eventually, startServe } from "./harness/serve.ts";
import { isRoot, mountSmallFs, smallFsSkipReason } from "./harness/small-fs.ts";

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

if (!isRoot) console.warn(`skipping the disk-full fault test: ${smallFsSkipReason}`);

test.skipIf(!isRoot || !hasPymodbus)(
  "a filling disk: serve stays up, reads answer, /healthz says 503 and recovers when space returns; a start on a full disk serves reads",
  async () => {
    const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-disk-"));
    cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
    const fs = await mountSmallFs(join(workDir, "small"), 8);
    cleanup.add(() => fs.unmount());
    const peer = await startModbusPeer();
    cleanup.add(() => peer.kill());
    const yaml = peerSiteYaml({ serial: "DISK", port: peer.port, storageIntervalS: 60 });
    const dataDir = join(fs.dir, "data");
    const server = await startServe({ workDir, dataDir, yaml });
    cleanup.add(() => server.stop());
    const { key } = await createKey(dataDir, "site");
    const devices = () => fetch(`${server.url}/v1/devices`, { headers: { authorization: `Bearer ${key}` } });
    await eventually(
      async () => (await devices()).status,
      (status) => status === 200,
    );

    fs.fill();
    await Bun.sleep(6_000); // past a heartbeat: the status timer and ingest have tried to write
    expect({ alive: server.alive(), output: server.alive() ? "" : server.output() }).toEqual({
      alive: true,
      output: "",
    });
    expect((await devices()).status).toBe(200);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.text()).toMatch(/full/i);

    fs.free();
    const freedAt = performance.now();
    await eventually(
      async () => (await fetch(`${server.url}/healthz`)).status,
      (status) => status === 200,
      15_000,
    );
    console.info(`disk full: /healthz 200 again ${Math.round(performance.now() - freedAt)} ms after space returned`);

    // A start on a full disk serves reads.
    await server.stop();
    fs.fill();
    const again = await startServe({ workDir, dataDir, yaml });
    cleanup.add(() => again.stop());
    expect((await fetch(`${again.url}/v1/devices`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(`${again.url}/healthz`)).status).toBe(503);
  },
  60_000,
);
