/** `fieldhub config check FILE`: validates a config without starting anything. */
import { checkConfigFile, formatLocatedProblems } from "../config/index.ts";
import { CommandError, parseCommandArgs, UsageError } from "./args.ts";
import type { CommandHelp } from "./help.ts";

export const configHelp: readonly CommandHelp[] = [
  {
    command: "config check",
    arguments: "FILE",
    summary:
      "Check a config file without starting anything: every problem with its path, line and column; exit 1 if any. Warnings (an address that looks like a Modicon reference) are printed the same way on stderr and do not fail the check.",
    options: [],
  },
];

export function configCommand(argv: string[]): void {
  const [action, ...rest] = argv;
  if (action !== "check")
    throw new UsageError(action === undefined ? "config needs an action" : `unknown config action "${action}"`);
  const [file, ...extra] = parseCommandArgs(rest, {}, true).positionals;
  if (file === undefined || extra.length > 0) throw new UsageError("config check takes one file");
  const result = checkConfigFile(file);
  if (!result.ok) {
    throw new CommandError(
      `${file}: ${result.problems.length} problem${result.problems.length === 1 ? "" : "s"}\n${formatLocatedProblems(result.problems, file)}`,
    );
  }
  // Warnings go to stderr, located like problems; they do not fail the check.
  if (result.warnings.length > 0) {
    const count = `${result.warnings.length} warning${result.warnings.length === 1 ? "" : "s"}`;
    process.stderr.write(`${file}: ${count}\n${formatLocatedProblems(result.warnings, file)}\n`);
  }
  const { inventory } = result.config;
  const gateways = inventory.organizations.reduce((sum, org) => sum + org.gateways.length, 0);
  const registers = inventory.organizations
    .flatMap((org) => org.gateways)
    .flatMap((gateway) => gateway.modbusDevices)
    .reduce((sum, device) => sum + device.registers.length, 0);
  process.stdout.write(
    `${file}: ok (${inventory.organizations.length} organisation${inventory.organizations.length === 1 ? "" : "s"}, ${gateways} gateways, ${registers} registers)\n`,
  );
}
