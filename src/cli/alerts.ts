/** `fieldhub alerts list|ack|resolve`: alerts in the store of a data directory (see docs/alerts.md). */

import { alertService } from "../alerting/alerts-service.ts";
import { systemClock } from "../lib/clock.ts";
import { CodedError } from "../lib/errors.ts";
import { alertSeverities, alertStatuses } from "../store/contract/alerts.ts";
import type { Store } from "../store/index.ts";
import { CommandError, parseCommandArgs, requireDataDir, UsageError } from "./args.ts";
import { openCommandStore } from "./command-store.ts";
import { type CommandHelp, dataOption, jsonOption, type OptionHelp, orgOption } from "./help.ts";

const noteOption: OptionHelp = {
  flag: "--note TEXT",
  text: "why, recorded with the change (shown in the alert's history)",
};

export const alertsHelp: readonly CommandHelp[] = [
  {
    command: "alerts list",
    arguments: "--data DIR [--org ORG] [--status S] [--severity S] [--limit N] [--json]",
    summary: "List alerts, most recently triggered first.",
    options: [
      dataOption,
      { ...orgOption, text: "only the alerts of this organisation (default: every organisation)" },
      { flag: "--status S", text: `only alerts in this status: ${alertStatuses.join(", ")}` },
      { flag: "--severity S", text: `only alerts of this severity: ${alertSeverities.join(", ")}` },
      { flag: "--limit N", text: "at most N alerts per organisation, 1 to 1000 (default 50)" },
      jsonOption,
    ],
  },
  {
    command: "alerts ack",
    arguments: "--data DIR ALERT_ID [--note TEXT]",
    summary: "Acknowledge an alert: someone is on it; it stays until its condition clears or it is resolved.",
    options: [dataOption, noteOption],
  },
  {
    command: "alerts resolve",
    arguments: "--data DIR ALERT_ID [--note TEXT]",
    summary: "Resolve an alert by hand.",
    options: [dataOption, noteOption],
  },
];

export async function alertsCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case "list":
      return list(rest);
    case "ack":
    case "resolve":
      return change(action, rest);
    default:
      throw new UsageError(action === undefined ? "alerts needs an action" : `unknown alerts action "${action}"`);
  }
}

async function withStore<T>(dataDir: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openCommandStore(dataDir);
  try {
    return await work(store);
  } catch (error) {
    if (error instanceof CodedError) throw new CommandError(error.message);
    throw error;
  } finally {
    await store.close();
  }
}

async function list(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    data: { type: "string" },
    org: { type: "string" },
    status: { type: "string" },
    severity: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  });
  const status = values.status as (typeof alertStatuses)[number] | undefined;
  if (status !== undefined && !alertStatuses.includes(status))
    throw new UsageError(`--status: one of ${alertStatuses.join(", ")}`);
  const severity = values.severity as (typeof alertSeverities)[number] | undefined;
  if (severity !== undefined && !alertSeverities.includes(severity)) {
    throw new UsageError(`--severity: one of ${alertSeverities.join(", ")}`);
  }
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new UsageError("--limit: a whole number from 1 to 1000");
  await withStore(requireDataDir(values.data), async (store) => {
    const organizations =
      values.org === undefined ? await store.organizations.list() : [await store.organizations.findByKey(values.org)];
    const queries = store.alerts;
    const rows = [];
    for (const organization of organizations) {
      if (organization === null) throw new CommandError(`no organisation "${values.org}"`);
      const page = await queries.list(organization.id, { status, severity, limit, offset: 0 });
      rows.push(...page.rows.map((row) => ({ organization: organization.key, ...row })));
    }
    if (values.json === true) {
      process.stdout.write(
        `${JSON.stringify(
          rows.map((row) => ({
            id: row.uuid,
            organization: row.organization,
            device_id: row.gatewayUuid,
            rule_id: row.ruleId,
            severity: row.severity,
            status: row.status,
            message: row.message,
            value: row.value,
            entry_count: row.entryCount,
            last_triggered_at: row.lastTriggeredAt === null ? null : new Date(row.lastTriggeredAt).toISOString(),
          })),
        )}\n`,
      );
      return;
    }
    const lines = rows.map((row) =>
      [
        row.uuid,
        row.organization,
        row.status,
        row.severity,
        new Date(row.lastTriggeredAt ?? row.createdAt).toISOString(),
        row.message,
      ].join("\t"),
    );
    process.stdout.write(lines.length > 0 ? `${lines.join("\n")}\n` : "no alerts\n");
  });
}

async function change(action: "ack" | "resolve", argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { data: { type: "string" }, note: { type: "string" } }, true);
  const [id, ...extra] = positionals;
  if (id === undefined || extra.length > 0) throw new UsageError(`alerts ${action} takes one alert id`);
  await withStore(requireDataDir(values.data), async (store) => {
    const service = alertService(store, () => systemClock.now());
    const note = values.note ?? null;
    const alert = action === "ack" ? await service.acknowledge(id, note) : await service.resolve(id, note);
    process.stdout.write(
      alert.requestedAction === null
        ? `alert ${alert.uuid} ${alert.status}\n`
        : `alert ${alert.uuid} ${alert.status}: ${alert.requestedAction} asked of site "${alert.edgeSite}", applied at its next contact\n`,
    );
  });
}
