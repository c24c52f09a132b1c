/**
 * `--help` on every command, usage errors that show one command's usage, and
 * `--data` that must name an existing store. The list
 * of commands comes from the CLI's own table, so a new command cannot miss these
 * tests; each runs the CLI as a process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allCommands, commandGroups } from "../../src/cli/commands.ts";
import { dataOption } from "../../src/cli/help.ts";
import { type CliResult, runCli } from "../harness/cli.ts";

const commands = await allCommands();
const words = (command: string) => command.split(" ");

let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-help-"));
});
afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** Runs several CLI processes, a few at a time (the machine is shared). */
async function runAll(argvs: string[][]): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (let i = 0; i < argvs.length; i += 4) {
    results.push(...(await Promise.all(argvs.slice(i, i + 4).map((argv) => runCli(argv)))));
  }
  return results;
}

/** Every `fieldhub …` usage line of the CLI, to check that a command prints only its own. */
const usageLinesOf = (text: string) => text.split("\n").filter((line) => /^(Usage: | {2})fieldhub /.test(line));

describe("--help", () => {
  test("every command and subcommand prints its usage with each option explained, exit 0", async () => {
    const results = await runAll(commands.map((help) => [...words(help.command), "--help"]));
    for (const [i, help] of commands.entries()) {
      const result = results[i]!;
      expect({ command: help.command, code: result.code, stderr: result.stderr }).toEqual({
        command: help.command,
        code: 0,
        stderr: "",
      });
      expect(result.stdout.startsWith(`Usage: fieldhub ${help.command}`)).toBe(true);
      expect(result.stdout).toContain(help.summary);
      for (const option of help.options) expect(result.stdout).toContain(`  ${option.flag}  `);
      expect(result.stdout).toContain("-h, --help");
      expect(usageLinesOf(result.stdout)).toHaveLength(1);
    }
  }, 120_000);

  test("-h works as --help, after other options too", async () => {
    const [short, late] = await runAll([
      ["keys", "revoke", "-h"],
      ["endpoints", "create", "--data", join(workDir, "nowhere"), "--help"],
    ]);
    expect(short!.code).toBe(0);
    expect(short!.stdout.startsWith("Usage: fieldhub keys revoke")).toBe(true);
    expect(late!.code).toBe(0);
    expect(late!.stdout.startsWith("Usage: fieldhub endpoints create")).toBe(true);
  });

  test("a group without an action lists its actions; `fieldhub --help` and `help` list every command", async () => {
    const [group, overview, help, helpOf] = await runAll([
      ["endpoints", "--help"],
      ["--help"],
      ["help"],
      ["help", "alerts", "ack"],
    ]);
    expect(group!.code).toBe(0);
    expect(usageLinesOf(group!.stdout)).toEqual(
      (await commandGroups.find((candidate) => candidate.name === "endpoints")!.commands()).map(
        (command) => `  fieldhub ${command.command} ${command.arguments}`,
      ),
    );
    for (const result of [overview!, help!]) {
      expect(result.code).toBe(0);
      for (const command of commands) expect(result.stdout).toContain(`fieldhub ${command.command} `);
      // One line per command, not every option of every command.
      expect(result.stdout).not.toContain("--rate-limit");
    }
    expect(helpOf!.code).toBe(0);
    expect(helpOf!.stdout.startsWith("Usage: fieldhub alerts ack")).toBe(true);
  });
});

describe("usage errors", () => {
  test("print the error and that command's usage only, on stderr, exit 2", async () => {
    const results = await runAll(commands.map((help) => [...words(help.command), "--no-such-option"]));
    for (const [i, help] of commands.entries()) {
      const result = results[i]!;
      expect({ command: help.command, code: result.code, stdout: result.stdout }).toEqual({
        command: help.command,
        code: 2,
        stdout: "",
      });
      expect(result.stderr.startsWith("fieldhub: ")).toBe(true);
      expect(result.stderr).toContain("--no-such-option");
      expect(usageLinesOf(result.stderr)).toEqual([`Usage: fieldhub ${`${help.command} ${help.arguments}`.trimEnd()}`]);
    }
  }, 120_000);

  test("a missing required option names it", async () => {
    const [result] = await runAll([["keys", "list"]]);
    expect(result!.code).toBe(2);
    expect(result!.stderr).toContain("--data is required");
    expect(usageLinesOf(result!.stderr)).toEqual(["Usage: fieldhub keys list --data DIR [--org ORG] [--json]"]);
  });
});

describe("--data must hold a fieldhub store", () => {
  const storeCommands = commands.filter((help) => help.options.includes(dataOption));

  test("every command on a store is listed (serve and demo create theirs)", () => {
    expect(storeCommands.length).toBeGreaterThan(10);
    expect(storeCommands.map((help) => help.command)).not.toContain("serve");
    expect(storeCommands.map((help) => help.command)).not.toContain("demo");
  });

  test("a directory without a store is refused, exit 1, and nothing is created", async () => {
    // Positional arguments (ID, MESSAGE_ID, ...) get a placeholder; required options come after --data.
    const argvFor = (command: string, arguments_: string, dir: string) => [
      ...words(command),
      "--data",
      dir,
      ...arguments_
        .replace(/\[[^\]]*\]/g, "")
        .split(/\s+/)
        .filter((token, index, tokens) => /^[A-Z_]+$/.test(token) && !tokens[index - 1]?.startsWith("--"))
        .map(() => "placeholder"),
    ];
    const dirs = storeCommands.map((_, index) => join(workDir, `typo-${index}`, "data"));
    const results = await runAll(
      storeCommands.map((help, index) => argvFor(help.command, help.arguments, dirs[index]!)),
    );
    for (const [i, help] of storeCommands.entries()) {
      const result = results[i]!;
      expect({ command: help.command, code: result.code, stderr: result.stderr }).toEqual({
        command: help.command,
        code: 1,
        stderr: expect.stringContaining(`no fieldhub store in ${dirs[i]}`),
      });
      expect(existsSync(join(workDir, `typo-${i}`))).toBe(false);
    }
  }, 120_000);
});
