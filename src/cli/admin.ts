/** `fieldhub admin set-password|sign-out`: admin page accounts in the store of a data directory (see docs/admin.md). */
import { hashPassword, minPasswordLength } from "../lib/crypto.ts";
import { type AdminRole, adminRoles } from "../store/contract/admin.ts";
import { CommandError, parseCommandArgs, requireDataDir, requireOption, UsageError } from "./args.ts";
import { openCommandStore } from "./command-store.ts";
import { type CommandHelp, dataOption } from "./help.ts";

export const adminHelp: readonly CommandHelp[] = [
  {
    command: "admin set-password",
    arguments: "--data DIR --user NAME [--role owner|admin|viewer]",
    summary: "Create an admin page account, or set the password of one (which signs out its sessions).",
    options: [
      dataOption,
      { flag: "--user NAME", text: "account name: 1 to 64 letters, digits and . _ @ -" },
      {
        flag: "--role ROLE",
        text: `one of ${adminRoles.join(", ")} (default: owner for the first account, else the account keeps its role)`,
      },
    ],
    notes: `The password is the first line of stdin (never an argument, where \`ps\` would show it), at least ${minPasswordLength} characters:\n  printf '%s\\n' 'a long passphrase' | fieldhub admin set-password --data DIR --user NAME`,
  },
  {
    command: "admin sign-out",
    arguments: "--data DIR --user NAME",
    summary: "Sign an admin page account out of all its sessions.",
    options: [dataOption, { flag: "--user NAME", text: "the account to sign out" }],
  },
];

const usernamePattern = /^[A-Za-z0-9._@-]{1,64}$/;

export async function adminCommand(argv: string[], now: number): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case "set-password":
      await setPassword(rest, now);
      return;
    case "sign-out":
      await signOut(rest, now);
      return;
    default:
      throw new UsageError(action === undefined ? "admin needs an action" : `unknown admin action "${action}"`);
  }
}

async function setPassword(argv: string[], now: number): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    data: { type: "string" },
    user: { type: "string" },
    role: { type: "string" },
  });
  const dataDir = requireDataDir(values.data);
  const username = requireOption(values.user, "--user");
  if (!usernamePattern.test(username)) {
    throw new UsageError("--user: 1 to 64 letters, digits and . _ @ -");
  }
  let role: AdminRole | undefined;
  if (values.role !== undefined) {
    if (!(adminRoles as readonly string[]).includes(values.role)) {
      throw new UsageError(`--role: one of ${adminRoles.join(", ")}`);
    }
    role = values.role as AdminRole;
  }
  // The password comes from stdin (never the command line, where `ps` shows it): its first line.
  const input = await new Response(Bun.stdin.stream()).text();
  const password = input.split(/\r?\n/)[0] ?? "";
  if (password.length < minPasswordLength) {
    throw new CommandError(`the password (first line of stdin) needs at least ${minPasswordLength} characters`);
  }
  const passwordHash = await hashPassword(password);
  const store = await openCommandStore(dataDir);
  try {
    const queries = store.admin;
    // The first account is the owner unless a role is named.
    const effectiveRole = role ?? ((await queries.countUsers()) === 0 ? "owner" : undefined);
    const outcome = await queries.setPassword(username, passwordHash, effectiveRole, now);
    const user = await queries.findUser(username);
    process.stdout.write(
      outcome === "created"
        ? `Created admin user ${username} (role ${user?.role}).\n`
        : `Set the password of ${username} (role ${user?.role}); their sessions were signed out.\n`,
    );
  } finally {
    await store.close();
  }
}

async function signOut(argv: string[], now: number): Promise<void> {
  const { values } = parseCommandArgs(argv, { data: { type: "string" }, user: { type: "string" } });
  const dataDir = requireDataDir(values.data);
  const username = requireOption(values.user, "--user");
  const store = await openCommandStore(dataDir);
  try {
    const queries = store.admin;
    if ((await queries.findUser(username)) === null) throw new CommandError(`no admin user ${username}`);
    const count = await queries.revokeUserSessions(username, now);
    process.stdout.write(`Signed ${username} out of ${count} session(s).\n`);
  } finally {
    await store.close();
  }
}
