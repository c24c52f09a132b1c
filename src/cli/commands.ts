/**
 * The command line: one table of command groups, each with its help and what runs
 * it. `--help` (or `help <command>`) prints a command's usage; a usage error prints
 * the error and that command's usage only; the overview lists every command.
 */
import { commit, version } from "../lib/version.ts";
import { demoHelp, serveHelp } from "./appliance-help.ts";
import { CommandError, parseCommandArgs, UsageError } from "./args.ts";
import { discoverHelp } from "./discover-options.ts";
import { asksForHelp, type CommandHelp, commandUsage, groupUsage } from "./help.ts";

export interface CommandGroup {
  name: string;
  /** Its commands' help, from the group's module, which is loaded only when it runs or its help is asked for. */
  commands(): Promise<readonly CommandHelp[]>;
  /** "running": a long-running command (serve, demo) that keeps the process alive. */
  run(argv: string[]): Promise<"done" | "running">;
}

const versionHelp: CommandHelp = {
  command: "version",
  arguments: "",
  summary: "Print fieldhub's version and the commit it was built from.",
  options: [],
};

/** A command that ends when its work is done, or one that keeps running (serve, demo, listen). */
const ends =
  (work: (argv: string[]) => unknown) =>
  async (argv: string[]): Promise<"done"> => {
    await work(argv);
    return "done";
  };
const keepsRunning =
  (work: (argv: string[]) => unknown) =>
  async (argv: string[]): Promise<"running"> => {
    await work(argv);
    return "running";
  };

/** A group whose module is loaded only when it runs or its help is printed. */
function loadedGroup<Module>(
  name: string,
  load: () => Promise<Module>,
  help: (module: Module) => readonly CommandHelp[],
  run: (module: Module) => CommandGroup["run"],
): CommandGroup {
  return { name, commands: async () => help(await load()), run: async (argv) => run(await load())(argv) };
}

// A group's module is loaded when it runs (or its help is printed): `serve` never
// parses the code of the other commands (docs/benchmarks.md, "Footprint").
export const commandGroups: readonly CommandGroup[] = [
  {
    name: "serve",
    commands: async () => [serveHelp],
    run: keepsRunning(async (argv) => (await import("./serve.ts")).serveCommand(argv)),
  },
  {
    name: "demo",
    commands: async () => [demoHelp],
    run: keepsRunning(async (argv) => (await import("./demo.ts")).demoCommand(argv)),
  },
  loadedGroup(
    "keys",
    () => import("./keys.ts"),
    (module) => module.keysHelp,
    (module) => ends((argv) => module.keysCommand(argv, Date.now())),
  ),
  loadedGroup(
    "alerts",
    () => import("./alerts.ts"),
    (module) => module.alertsHelp,
    (module) => ends(module.alertsCommand),
  ),
  loadedGroup(
    "writes",
    () => import("./writes.ts"),
    (module) => module.writesHelp,
    (module) => ends(module.writesCommand),
  ),
  loadedGroup(
    "history",
    () => import("./history.ts"),
    (module) => module.historyHelp,
    (module) => ends(module.historyCommand),
  ),
  loadedGroup(
    "mirror",
    () => import("./mirror.ts"),
    (module) => module.mirrorHelp,
    (module) => ends(module.mirrorCommand),
  ),
  loadedGroup(
    "endpoints",
    () => import("./endpoints.ts"),
    (module) => module.endpointsHelp,
    (module) => ends(module.endpointsCommand),
  ),
  loadedGroup(
    "edges",
    () => import("./edges.ts"),
    (module) => module.edgesHelp,
    (module) => ends((argv) => module.edgesCommand(argv, Date.now())),
  ),
  loadedGroup(
    "admin",
    () => import("./admin.ts"),
    (module) => module.adminHelp,
    (module) => ends((argv) => module.adminCommand(argv, Date.now())),
  ),
  loadedGroup(
    "webhooks",
    () => import("./webhooks-listen.ts"),
    (module) => module.webhooksHelp,
    (module) => keepsRunning(module.webhooksCommand),
  ),
  loadedGroup(
    "config",
    () => import("./config.ts"),
    (module) => module.configHelp,
    (module) => ends(module.configCommand),
  ),
  loadedGroup(
    "templates",
    () => import("./templates.ts"),
    (module) => module.templatesHelp,
    (module) => ends(module.templatesCommand),
  ),
  {
    name: "discover",
    commands: async () => [discoverHelp],
    run: ends(async (argv) => (await import("./discover.ts")).discoverCommand(argv)),
  },
  {
    name: "version",
    commands: async () => [versionHelp],
    run: async (argv) => {
      parseCommandArgs(argv, {});
      process.stdout.write(`fieldhub ${version} (${commit})\n`);
      return "done";
    },
  },
];

/** Every command of every group, in the table's order. */
export async function allCommands(): Promise<readonly CommandHelp[]> {
  return (await Promise.all(commandGroups.map((group) => group.commands()))).flat();
}

/** Every command, one line each: `fieldhub --help`, and after an unknown command. */
export async function overview(): Promise<string> {
  const commands = await allCommands();
  const width = Math.max(...commands.map((help) => help.command.length)) + 11;
  const lines = commands.map((help) => `  ${`fieldhub ${help.command}`.padEnd(width)}${help.summary}`);
  return [
    `fieldhub ${version}: Modbus data appliance`,
    "",
    "Usage:",
    ...lines,
    "",
    "Run `fieldhub <command> --help` for a command's options.",
    "",
  ].join("\n");
}

/** The usage that fits `argv`: one command's, a group's, or the overview. */
export async function usageFor(argv: readonly string[]): Promise<string> {
  const [name, action] = argv;
  const group = commandGroups.find((candidate) => candidate.name === name);
  if (group === undefined) return overview();
  const commands = await group.commands();
  const command =
    commands.find((help) => help.command === `${name} ${action}`) ?? commands.find((help) => help.command === name);
  return command === undefined ? groupUsage(group.name, commands) : commandUsage(command);
}

/** Runs the command `argv` names; the exit code, or -1 when it keeps running. */
export async function runCommandLine(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    if (name === undefined) return usageError(argv, "no command given");
    process.stdout.write(await usageFor(rest));
    return 0;
  }
  if (name === "--version") return runCommandLine(["version"]);
  const group = commandGroups.find((candidate) => candidate.name === name);
  if (group === undefined) return usageError(argv, `unknown command "${name}"`);
  if (asksForHelp(rest)) {
    process.stdout.write(await usageFor(argv));
    return 0;
  }
  try {
    return (await group.run(rest)) === "running" ? -1 : 0;
  } catch (error) {
    if (error instanceof UsageError) return usageError(argv, error.message);
    if (error instanceof CommandError) {
      process.stderr.write(`fieldhub: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

async function usageError(argv: readonly string[], message: string): Promise<number> {
  process.stderr.write(`fieldhub: ${message}\n\n${await usageFor(argv)}`);
  return 2;
}
