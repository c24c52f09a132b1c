/** `fieldhub keys create|list|revoke`: API keys in the store of a data directory. */

import { presentApiKey, presentCreatedApiKey } from "../http/presenters/api-keys.ts";
import { type ApiScope, apiKeyStatus, apiScopes } from "../lib/api-keys.ts";
import { isoOrNull } from "../lib/clock.ts";
import { parseRfc3339 } from "../lib/timestamps.ts";
import { UnknownOrganizationError } from "../store/contract/keys.ts";
import { CommandError, parseCommandArgs, requireDataDir, requireOption, UsageError } from "./args.ts";
import { openCommandStore } from "./command-store.ts";
import { type CommandHelp, dataOption, jsonOption, orgOption } from "./help.ts";

export const keysHelp: readonly CommandHelp[] = [
  {
    command: "keys create",
    arguments: "--data DIR --org ORG --name NAME --scopes a,b [--expires DATE-TIME] [--rate-limit N] [--json]",
    summary: "Create an API key for one organisation; the key is printed on stdout, this once only.",
    options: [
      dataOption,
      orgOption,
      { flag: "--name NAME", text: "what the key is for, shown in `keys list` and on the admin page" },
      { flag: "--scopes a,b", text: `comma-separated scopes the key grants: ${apiScopes.join(", ")}` },
      {
        flag: "--expires DATE-TIME",
        text: "RFC 3339 time the key stops working, e.g. 2027-01-31T00:00:00Z (default: never)",
      },
      {
        flag: "--rate-limit N",
        text: "requests per minute for this key, 1 to 100000 (default: the config's api.rate_limit_per_minute)",
      },
      { flag: "--json", text: "print the created key as JSON (with its id, prefix and scopes)" },
    ],
  },
  {
    command: "keys list",
    arguments: "--data DIR [--org ORG] [--json]",
    summary:
      "List API keys (prefix, id, organisation, name, scopes, status, expiry, last use); never the keys themselves.",
    options: [dataOption, { ...orgOption, text: "only the keys of this organisation" }, jsonOption],
  },
  {
    command: "keys revoke",
    arguments: "--data DIR KEY_ID_OR_PREFIX",
    summary: "Revoke a key at once, named by its id or by its prefix as `keys list` shows it.",
    options: [dataOption],
  },
];

export async function keysCommand(argv: string[], now: number): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case "create":
      await createKey(rest, now);
      return;
    case "list":
      await listKeys(rest);
      return;
    case "revoke":
      await revokeKey(rest, now);
      return;
    default:
      throw new UsageError(action === undefined ? "keys needs an action" : `unknown keys action "${action}"`);
  }
}

async function createKey(argv: string[], now: number): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    data: { type: "string" },
    org: { type: "string" },
    name: { type: "string" },
    scopes: { type: "string" },
    expires: { type: "string" },
    "rate-limit": { type: "string" },
    json: { type: "boolean" },
  });
  const dataDir = requireDataDir(values.data);
  const orgKey = requireOption(values.org, "--org");
  const name = requireOption(values.name, "--name");
  const scopes = parseScopes(requireOption(values.scopes, "--scopes"));
  let expiresAt: number | null = null;
  if (values.expires !== undefined) {
    expiresAt = parseRfc3339(values.expires);
    if (expiresAt === null) throw new UsageError(`--expires: not an RFC 3339 date-time: ${values.expires}`);
    if (expiresAt <= now) throw new UsageError("--expires: lies in the past");
  }
  let rateLimitPerMinute: number | undefined;
  if (values["rate-limit"] !== undefined) {
    rateLimitPerMinute = Number(values["rate-limit"]);
    if (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < 1 || rateLimitPerMinute > 100_000) {
      throw new UsageError("--rate-limit: a whole number of requests per minute from 1 to 100000");
    }
  }
  const store = await openCommandStore(dataDir);
  try {
    const created = await store.keys.create({ orgKey, name, scopes, expiresAt, rateLimitPerMinute }, now);
    if (values.json === true) {
      process.stdout.write(
        `${JSON.stringify({ ...presentCreatedApiKey(created), rate_limit_per_minute: created.rateLimitPerMinute })}\n`,
      );
    } else {
      process.stdout.write(`${created.key}\n`);
      process.stderr.write(
        `Key "${name}" (${created.prefix}…, id ${created.id}) for ${orgKey}. It is shown only this once.\n`,
      );
    }
  } catch (error) {
    if (error instanceof UnknownOrganizationError) {
      const known = (await store.organizations.list()).map((org) => org.key);
      throw new CommandError(
        `no organisation "${orgKey}" in ${dataDir}; ${known.length > 0 ? `known: ${known.join(", ")}` : "start fieldhub serve with its config once first"}`,
      );
    }
    throw error;
  } finally {
    await store.close();
  }
}

function parseScopes(text: string): ApiScope[] {
  const scopes = text
    .split(",")
    .map((scope) => scope.trim())
    .filter((scope) => scope.length > 0);
  const unknown = scopes.filter((scope) => !(apiScopes as readonly string[]).includes(scope));
  if (unknown.length > 0)
    throw new UsageError(`--scopes: unknown ${unknown.join(", ")}; scopes are ${apiScopes.join(", ")}`);
  if (scopes.length === 0) throw new UsageError(`--scopes: name at least one of ${apiScopes.join(", ")}`);
  return [...new Set(scopes)] as ApiScope[];
}

async function listKeys(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    data: { type: "string" },
    org: { type: "string" },
    json: { type: "boolean" },
  });
  const store = await openCommandStore(requireDataDir(values.data));
  try {
    const keys = await store.keys.list(values.org);
    if (values.json === true) {
      const rows = keys.map(presentApiKey);
      process.stdout.write(`${JSON.stringify(rows)}\n`);
      return;
    }
    const lines = keys.map((key) =>
      [
        key.prefix,
        key.id,
        key.orgKey,
        key.name,
        key.scopes.join(","),
        apiKeyStatus(key, Date.now()),
        `expires ${isoOrNull(key.expiresAt) ?? "never"}`,
        `last used ${isoOrNull(key.lastUsedAt) ?? "never"}`,
      ].join("\t"),
    );
    process.stdout.write(lines.length > 0 ? `${lines.join("\n")}\n` : "no keys\n");
  } finally {
    await store.close();
  }
}

async function revokeKey(argv: string[], now: number): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { data: { type: "string" } }, true);
  const target = positionals[0];
  if (target === undefined || positionals.length > 1) throw new UsageError("revoke takes one key id or prefix");
  const store = await openCommandStore(requireDataDir(values.data));
  try {
    const revoked = await store.keys.revoke(target, now);
    if (revoked === 0) throw new CommandError(`no active key with id or prefix "${target}"`);
    process.stdout.write(`revoked ${revoked} key${revoked === 1 ? "" : "s"}\n`);
  } finally {
    await store.close();
  }
}
