/**
 * What each command takes, in words: `--help` prints one command's usage with its
 * options explained, a usage error prints the error and that usage only, and the
 * overview lists every command on one line.
 */

export interface OptionHelp {
  /** As typed, with its value: `--data DIR`. */
  flag: string;
  text: string;
}

export interface CommandHelp {
  /** The words after `fieldhub`: `keys create`. */
  command: string;
  /** Options and arguments, as in a usage line: `--data DIR [--json]`. */
  arguments: string;
  /** One sentence: what the command does. */
  summary: string;
  options: readonly OptionHelp[];
  /** Anything else worth knowing before running it (stdin, exit codes). */
  notes?: string;
}

/** The options several commands share, worded once. */
export const dataOption: OptionHelp = {
  flag: "--data DIR",
  text: "data directory of the fieldhub to work on (the --data given to `fieldhub serve`); it must hold a fieldhub store",
};
export const jsonOption: OptionHelp = { flag: "--json", text: "print JSON instead of text" };
export const orgOption: OptionHelp = { flag: "--org ORG", text: "organisation key (as in the config's organizations)" };
const helpOption: OptionHelp = { flag: "-h, --help", text: "print this help and exit" };

export function usageLine(help: CommandHelp): string {
  return `fieldhub ${help.command} ${help.arguments}`.trimEnd();
}

/** The full help of one command: usage, what it does, each option. */
export function commandUsage(help: CommandHelp): string {
  const options = [...help.options, helpOption];
  const width = Math.max(...options.map((option) => option.flag.length)) + 2;
  const lines = [
    `Usage: ${usageLine(help)}`,
    "",
    help.summary,
    "",
    "Options:",
    ...options.map((option) => `  ${option.flag.padEnd(width)}${option.text}`),
  ];
  if (help.notes !== undefined) lines.push("", help.notes);
  return `${lines.join("\n")}\n`;
}

/** A command group without a (known) action: each of its commands with its summary. */
export function groupUsage(name: string, commands: readonly CommandHelp[]): string {
  return [
    "Usage:",
    ...commands.map((help) => `  ${usageLine(help)}\n      ${help.summary}`),
    "",
    `Run \`fieldhub ${name} <action> --help\` for the options of one action.`,
    "",
  ].join("\n");
}

/** `--help` or `-h` anywhere before a `--` that ends the options. */
export function asksForHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}
