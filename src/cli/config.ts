/** `fieldhub config check FILE`: validates a config without starting anything. */
import { readRunningConfig } from "../app/running-config.ts";
import {
  checkConfigFile,
  describeChange,
  diffConfigs,
  type FieldhubConfig,
  formatLocatedProblems,
} from "../config/index.ts";
import { CommandError, parseCommandArgs, UsageError } from "./args.ts";
import type { CommandHelp } from "./help.ts";

export const configHelp: readonly CommandHelp[] = [
  {
    command: "config check",
    arguments: "FILE [--data DIR]",
    summary:
      "Check a config file without starting anything: every problem with its path, line and column; exit 1 if any. Warnings (an address that looks like a Modicon reference) are printed the same way on stderr and do not fail the check. With --data, also what a reload (SIGHUP, systemctl reload) would change against the config the serve of DIR runs.",
    options: [
      {
        flag: "--data DIR",
        text: "the data directory of a running (or the last) serve: prints what FILE changes against the config it runs (recorded there at start and at each reload), added, removed and changed, by name",
      },
    ],
  },
];

export function configCommand(argv: string[]): void {
  const [action, ...rest] = argv;
  if (action !== "check")
    throw new UsageError(action === undefined ? "config needs an action" : `unknown config action "${action}"`);
  const { values, positionals } = parseCommandArgs(rest, { data: { type: "string" } }, true);
  const [file, ...extra] = positionals;
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
  if (values.data !== undefined) printReloadChanges(result.config, values.data);
}

/** What a reload with `config` would change against the config the serve of `dataDir` runs. */
function printReloadChanges(config: FieldhubConfig, dataDir: string): void {
  const recorded = readRunningConfig(dataDir);
  if (recorded === null)
    throw new CommandError(
      `${dataDir}: no running config recorded (serve records it there at start and at each reload)`,
    );
  const diff = diffConfigs(recorded.config, config);
  const against = `the running config (${recorded.path}, sha256 ${recorded.sha256}, loaded ${recorded.loadedAt})`;
  if (diff.changes.length === 0 && diff.needRestart.length === 0) {
    process.stdout.write(`a reload changes nothing against ${against}\n`);
    return;
  }
  const lines = [
    ...diff.changes.map(describeChange),
    ...diff.needRestart.map((field) => `! ${field}: takes effect at the next restart, not at a reload`),
  ];
  process.stdout.write(`a reload would change, against ${against}:\n${lines.map((line) => `  ${line}`).join("\n")}\n`);
}
