/** `fieldhub edges create|list|revoke`: the edge tokens site boxes present to this central (docs/fleet.md). */

import { presentEdgeToken } from "../http/presenters/edge-tokens.ts";
import { EdgeNameTakenError } from "../store/contract/edges.ts";
import { UnknownOrganizationError } from "../store/contract/keys.ts";
import { CommandError, parseCommandArgs, requireDataDir, requireOption, UsageError } from "./args.ts";
import { openCommandStore } from "./command-store.ts";
import { type CommandHelp, dataOption, jsonOption, orgOption } from "./help.ts";

export const edgesHelp: readonly CommandHelp[] = [
  {
    command: "edges create",
    arguments: "--data DIR --org ORG --name NAME [--json]",
    summary: "Create the edge token of one site for one organisation; the token is printed on stdout, this once only.",
    options: [
      dataOption,
      orgOption,
      { flag: "--name NAME", text: "the site's name, unique among the organisation's tokens that are not revoked" },
      { flag: "--json", text: "print the created token as JSON (with its id and prefix)" },
    ],
  },
  {
    command: "edges list",
    arguments: "--data DIR [--org ORG] [--json]",
    summary:
      "List edge tokens (prefix, id, organisation, site name, status, created, last used: the site's last session check, to the minute); never the tokens themselves.",
    options: [dataOption, { ...orgOption, text: "only the tokens of this organisation" }, jsonOption],
  },
  {
    command: "edges revoke",
    arguments: "--data DIR TOKEN_ID_OR_PREFIX",
    summary: "Revoke a site's edge token at once, named by its id or by its prefix as `edges list` shows it.",
    options: [dataOption],
  },
];

export async function edgesCommand(argv: string[], now: number): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case "create":
      await createEdgeToken(rest, now);
      return;
    case "list":
      await listEdgeTokens(rest);
      return;
    case "revoke":
      await revokeEdgeToken(rest, now);
      return;
    default:
      throw new UsageError(action === undefined ? "edges needs an action" : `unknown edges action "${action}"`);
  }
}

async function createEdgeToken(argv: string[], now: number): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    data: { type: "string" },
    org: { type: "string" },
    name: { type: "string" },
    json: { type: "boolean" },
  });
  const dataDir = requireDataDir(values.data);
  const orgKey = requireOption(values.org, "--org");
  const name = requireOption(values.name, "--name").trim();
  if (name === "") throw new UsageError("--name: the site's name may not be blank");
  const store = await openCommandStore(dataDir);
  try {
    const created = await store.edges.create(orgKey, name, now);
    if (values.json === true) {
      const { token, ...listed } = created;
      process.stdout.write(
        `${JSON.stringify({ token, ...presentEdgeToken({ ...listed, revokedAt: null, lastUsedAt: null }) })}\n`,
      );
    } else {
      process.stdout.write(`${created.token}\n`);
      process.stderr.write(
        `Edge token for site "${name}" (${created.prefix}…, id ${created.id}) of ${orgKey}. It is shown only this once.\n`,
      );
    }
  } catch (error) {
    if (error instanceof UnknownOrganizationError) {
      const known = (await store.organizations.list()).map((org) => org.key);
      throw new CommandError(
        `no organisation "${orgKey}" in ${dataDir}; ${known.length > 0 ? `known: ${known.join(", ")}` : "start fieldhub serve with its config once first"}`,
      );
    }
    if (error instanceof EdgeNameTakenError) {
      throw new CommandError(`${error.message}; revoke it first (fieldhub edges revoke) or choose another name`);
    }
    throw error;
  } finally {
    await store.close();
  }
}

async function listEdgeTokens(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    data: { type: "string" },
    org: { type: "string" },
    json: { type: "boolean" },
  });
  const store = await openCommandStore(requireDataDir(values.data));
  try {
    const edges = await store.edges.list(values.org);
    if (values.json === true) {
      process.stdout.write(`${JSON.stringify(edges.map(presentEdgeToken))}\n`);
      return;
    }
    const lines = edges.map((edge) => {
      const shown = presentEdgeToken(edge);
      return [
        shown.prefix,
        shown.id,
        shown.organization,
        shown.name,
        shown.status,
        `created ${shown.created_at}`,
        `last used ${shown.last_used_at ?? "never"}`,
      ].join("\t");
    });
    process.stdout.write(lines.length > 0 ? `${lines.join("\n")}\n` : "no edge tokens\n");
  } finally {
    await store.close();
  }
}

async function revokeEdgeToken(argv: string[], now: number): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { data: { type: "string" } }, true);
  const target = positionals[0];
  if (target === undefined || positionals.length > 1) throw new UsageError("revoke takes one token id or prefix");
  const store = await openCommandStore(requireDataDir(values.data));
  try {
    const revoked = await store.edges.revoke(target, now);
    if (revoked === 0) throw new CommandError(`no active edge token with id or prefix "${target}"`);
    process.stdout.write(`revoked ${revoked} edge token${revoked === 1 ? "" : "s"}\n`);
  } finally {
    await store.close();
  }
}
