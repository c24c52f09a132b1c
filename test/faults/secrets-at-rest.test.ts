/**
 * The store holds webhook signing secrets and the cursor
 * key, yet `serve` made the data directory 0755 and the database files 0644;
 * the admin setup token went into the structured log as a field at every start,
 * and `POST /admin/api/setup` hashed a password before checking the token, with
 * no throttle. Checked on a real `serve` started with the usual umask 022.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cleanup } from "./harness/cleanup.ts";
import { type RunningServe, startServe } from "./harness/serve.ts";

const cleanup = new Cleanup();
let server: RunningServe;

beforeAll(async () => {
  const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-secrets-"));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  const previous = process.umask(0o022);
  cleanup.add(() => process.umask(previous));
  server = await startServe({ workDir });
  cleanup.add(() => server.stop());
}, 30_000);
afterAll(() => cleanup.run());

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

test("the data directory is 0700 and every store file 0600", () => {
  const files = readdirSync(server.dataDir);
  expect(files.length).toBeGreaterThan(0);
  expect({ dir: modeOf(server.dataDir) }).toEqual({ dir: "700" });
  for (const file of files) expect({ file, mode: modeOf(join(server.dataDir, file)) }).toEqual({ file, mode: "600" });
});

test("the setup token is not a field of the structured log", () => {
  const logged = server.logLines().filter((line) => "setup_token" in line);
  expect(logged).toEqual([]);
});

test("guessing the setup token is throttled before any password hashing", async () => {
  const statuses: number[] = [];
  const started = performance.now();
  for (let attempt = 0; attempt < 30; attempt++) {
    const response = await fetch(`${server.url}/admin/api/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: `wrong-${attempt}`, username: "owner", password: "a long enough password" }),
    });
    statuses.push(response.status);
  }
  expect(statuses).toContain(429);
  // A wrong token costs no argon2 hash (tens of ms each): 30 attempts in well under a second.
  expect(performance.now() - started).toBeLessThan(1_000);
}, 30_000);
