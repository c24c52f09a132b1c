/**
 * The demo backfills history every 5 minutes up to its
 * start and then stores live readings once a minute; where the two meet, two
 * stored readings of one register were 35 s apart (docs/api.md section 8.1: at most one stored
 * value a minute). Made deterministic with libfaketime: the demo starts at
 * 10:04:35 (its backfill ends at 10:00:00); its first live reading is stored at
 * 10:04:35, mid-minute, and the next at the first poll of 10:05, 25 s later.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cleanup } from "./harness/cleanup.ts";
import { faketimeSkipReason, hasFaketime, steppableClock } from "./harness/clock.ts";
import { eventually, startServe } from "./harness/serve.ts";

const cleanup = new Cleanup();
afterAll(() => cleanup.run());
if (!hasFaketime) console.warn(`skipping the history-seam fault test: ${faketimeSkipReason}`);

const sandboxKey = /sandbox key\s+(fh_\S+)/;
const storageIntervalMs = 60_000; // the demo config's storage_interval_s
const pollJitterMs = 5_000;

test.skipIf(!hasFaketime)(
  "backfilled and live readings of a register are never closer than its storage interval",
  async () => {
    const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-seam-"));
    cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
    const clock = steppableClock(workDir);
    clock.step("@2026-03-02 10:04:35");
    const demo = await startServe({ workDir, command: "demo", env: clock.env, extraArgs: ["--days", "1"] });
    cleanup.add(() => demo.stop());
    // The banner (stderr) follows the log line that gave the URL: wait for it.
    let key = "";
    for (const deadline = Date.now() + 10_000; key === "" && Date.now() < deadline; await Bun.sleep(25)) {
      key = sandboxKey.exec(demo.stderr())?.[1] ?? "";
    }
    const get = async <T>(path: string) =>
      (
        (await (await fetch(`${demo.url}${path}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
          data: T;
        }
      ).data;
    const gateway = (await get<{ id: string; status: string }[]>("/v1/devices")).find((row) => row.status === "online");
    const register = (await get<{ id: string; data_type: string }[]>(`/v1/devices/${gateway?.id}/registers`)).find(
      (row) => row.data_type !== "string",
    );
    const newest = () =>
      get<{ ts: string }[]>(`/v1/devices/${gateway?.id}/readings?register_id=${register?.id}&limit=3`);
    // Wait for the first live reading of the next minute (25 s of the demo's clock; a slow machine may take
    // much longer to start and poll). At one request per 2 s the sandbox key's 60 a minute is never reached.
    const rows = await eventually(
      newest,
      (list) => Date.parse(list[0]?.ts ?? "") >= Date.parse("2026-03-02T10:05:00Z"),
      100_000,
      2_000,
    );
    const gaps = rows.slice(1).map((row, index) => Date.parse(rows[index]?.ts ?? "") - Date.parse(row.ts));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(storageIntervalMs - pollJitterMs);
    console.log(
      `newest stored values: ${rows.map((row) => row.ts).join(", ")}; gaps ${gaps.map((gap) => gap / 1000).join(" s, ")} s`,
    );
  },
  130_000,
);
