/**
 * FIELDHUB_WEBHOOK_LEASE_S (docs/config.md, `webhooks`; docs/fleet.md, "Webhook
 * leases"): a value that is not whole seconds from 1 to 3600 stops a central's
 * command at once, naming the variable, before any connection; on a box (no
 * FIELDHUB_DATABASE_URL) it is ignored. The lease itself is measured in
 * test/fleet/central-kill.test.ts.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../harness/cli.ts";

const dataDir = mkdtempSync(join(tmpdir(), "fieldhub-lease-variable-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Nothing listens there: a command that tried to connect would fail differently.
const unreachableCentral = "postgres://fieldhub@127.0.0.1:1/fieldhub";

test.each(["0", "3601", "2.5", "ten", "-5"])(
  "FIELDHUB_WEBHOOK_LEASE_S=%s on a central: exit 1 naming it",
  async (value) => {
    const result = await runCli(["keys", "list", "--data", dataDir], 15_000, {
      FIELDHUB_DATABASE_URL: unreachableCentral,
      FIELDHUB_WEBHOOK_LEASE_S: value,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`FIELDHUB_WEBHOOK_LEASE_S: a whole number of seconds from 1 to 3600: ${value}`);
  },
);

test("on a box's SQLite store the variable is not read", async () => {
  const result = await runCli(["keys", "list", "--data", dataDir], 15_000, { FIELDHUB_WEBHOOK_LEASE_S: "ten" });
  expect(result.code).toBe(1);
  expect(result.stderr).not.toContain("FIELDHUB_WEBHOOK_LEASE_S");
  expect(result.stderr).toContain("no fieldhub store");
});
