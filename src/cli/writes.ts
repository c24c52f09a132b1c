/** `fieldhub writes list`: the audit of register writes in a data directory (docs/api.md section 4.8). */

import { presentWrite } from "../http/presenters/register-writes.ts";
import type { WriteRecord } from "../store/contract/writes.ts";
import { CommandError, parseCommandArgs, requireDataDir, UsageError } from "./args.ts";
import { openCommandStore } from "./command-store.ts";
import { type CommandHelp, dataOption, jsonOption, orgOption } from "./help.ts";

export const writesHelp: readonly CommandHelp[] = [
  {
    command: "writes list",
    arguments: "--data DIR [--org ORG] [--limit N] [--json]",
    summary: "List the audit of register writes (API, admin page, Modbus TCP server), newest first.",
    options: [
      dataOption,
      { ...orgOption, text: "only the writes of this organisation (default: every organisation)" },
      { flag: "--limit N", text: "at most N writes, 1 to 10000 (default 100)" },
      jsonOption,
    ],
  },
];

export async function writesCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  if (action !== "list") {
    throw new UsageError(action === undefined ? "writes needs an action" : `unknown writes action "${action}"`);
  }
  const { values } = parseCommandArgs(rest, {
    data: { type: "string" },
    org: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  });
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    throw new UsageError("--limit: a whole number from 1 to 10000");
  }
  const store = await openCommandStore(requireDataDir(values.data));
  try {
    let orgId: number | undefined;
    if (values.org !== undefined) {
      const organization = await store.organizations.findByKey(values.org);
      if (organization === null) throw new CommandError(`no organisation "${values.org}"`);
      orgId = organization.id;
    }
    const rows = await store.writes.list({ orgId, limit });
    if (values.json === true) {
      process.stdout.write(`${JSON.stringify(rows.map(presentWrite))}\n`);
      return;
    }
    const lines = rows.map((row) =>
      [
        new Date(row.requestedAt).toISOString(),
        row.organization,
        row.gatewaySerial,
        ...targetAndAsked(row),
        row.result,
        `read back ${row.readBack ?? "-"}`,
        row.detail ?? "",
      ].join("\t"),
    );
    process.stdout.write(lines.length > 0 ? `${lines.join("\n")}\n` : "no writes\n");
  } finally {
    await store.close();
  }
}

/**
 * A register's write: its name, who, `before -> asked`; a device's write through the
 * Modbus TCP server (no register): the device with the request, who, the values sent.
 */
function targetAndAsked(row: WriteRecord): string[] {
  if (row.request === null) {
    return [row.registerName ?? "-", row.actor, `${row.valueBefore ?? "-"} -> ${row.valueAsked ?? "-"}`];
  }
  const { functionCode, address, values } = row.request;
  const device = row.modbusDeviceName ?? row.modbusDeviceId;
  return [`${device} fc ${functionCode} at ${address} (${values.length})`, row.actor, `[${values.join(", ")}]`];
}
