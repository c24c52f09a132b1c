/**
 * The command line: one table of command groups, each with its help and what runs
 * it. `--help` (or `help <command>`) prints a command's usage; a usage error prints
 * the error and that command's usage only; the overview lists every command.
 */
import { commit, version } from "../lib/version.ts";
import { adminCommand, adminHelp } from "./admin.ts";
import { alertsCommand, alertsHelp } from "./alerts.ts";
import { demoHelp, serveHelp } from "./appliance-help.ts";
import { CommandError, parseCommandArgs, UsageError } from "./args.ts";
import { configCommand, configHelp } from "./config.ts";
import { discoverHelp } from "./discover-options.ts";
import { edgesCommand, edgesHelp } from "./edges.ts";
import { endpointsCommand, endpointsHelp } from "./endpoints.ts";
import { asksForHelp, type CommandHelp, commandUsage, groupUsage } from "./help.ts";
import { historyCommand, historyHelp } from "./history.ts";
import { keysCommand, keysHelp } from "./keys.ts";
import { mirrorCommand, mirrorHelp } from "./mirror.ts";
import { templatesCommand, templatesHelp } from "./templates.ts";
import { webhooksCommand, webhooksHelp } from "./webhooks-listen.ts";
import { writesCommand, writesHelp } from "./writes.ts";

export interface CommandGroup {
  name: string;
  commands: readonly CommandHelp[];
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

export const commandGroups: readonly CommandGroup[] = [
  // Loaded when they run: the appliance's modules would slow every other command's start.
  {
    name: "serve",
    commands: [serveHelp],
    run: keepsRunning(async (argv) => (await import("./serve.ts")).serveCommand(argv)),
  },
  {
    name: "demo",
    commands: [demoHelp],
    run: keepsRunning(async (argv) => (await import("./demo.ts")).demoCommand(argv)),
  },
  { name: "keys", commands: keysHelp, run: ends((argv) => keysCommand(argv, Date.now())) },
  { name: "alerts", commands: alertsHelp, run: ends(alertsCommand) },
  { name: "writes", commands: writesHelp, run: ends(writesCommand) },
  { name: "history", commands: historyHelp, run: ends(historyCommand) },
  { name: "mirror", commands: mirrorHelp, run: ends(mirrorCommand) },
  { name: "endpoints", commands: endpointsHelp, run: ends(endpointsCommand) },
  { name: "edges", commands: edgesHelp, run: ends((argv) => edgesCommand(argv, Date.now())) },
  { name: "admin", commands: adminHelp, run: ends((argv) => adminCommand(argv, Date.now())) },
  { name: "webhooks", commands: webhooksHelp, run: keepsRunning(webhooksCommand) },
  { name: "config", commands: configHelp, run: ends(configCommand) },
  { name: "templates", commands: templatesHelp, run: ends(templatesCommand) },
  {
    name: "discover",
    commands: [discoverHelp],
    run: ends(async (argv) => (await import("./discover.ts")).discoverCommand(argv)),
  },
  {
    name: "version",
    commands: [versionHelp],
    run: async (argv) => {
      parseCommandArgs(argv, {});
      process.stdout.write(`fieldhub ${version} (${commit})\n`);
      return "done";
    },
  },
];

/** Every command, one line each: `fieldhub --help`, and after an unknown command. */
export function overview(): string {
  const width = Math.max(...commandGroups.flatMap((group) => group.commands.map((help) => help.command.length))) + 11;
  const lines = commandGroups.flatMap((group) =>
    group.commands.map((help) => `  ${`fieldhub ${help.command}`.padEnd(width)}${help.summary}`),
  );
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
export function usageFor(argv: readonly string[]): string {
  const [name, action] = argv;
  const group = commandGroups.find((candidate) => candidate.name === name);
  if (group === undefined) return overview();
  const command =
    group.commands.find((help) => help.command === `${name} ${action}`) ??
    group.commands.find((help) => help.command === name);
  return command === undefined ? groupUsage(group.name, group.commands) : commandUsage(command);
}

/** Runs the command `argv` names; the exit code, or -1 when it keeps running. */
export async function runCommandLine(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    if (name === undefined) return usageError(argv, "no command given");
    process.stdout.write(usageFor(rest));
    return 0;
  }
  if (name === "--version") return runCommandLine(["version"]);
  const group = commandGroups.find((candidate) => candidate.name === name);
  if (group === undefined) return usageError(argv, `unknown command "${name}"`);
  if (asksForHelp(rest)) {
    process.stdout.write(usageFor(argv));
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

function usageError(argv: readonly string[], message: string): number {
  process.stderr.write(`fieldhub: ${message}\n\n${usageFor(argv)}`);
  return 2;
}
