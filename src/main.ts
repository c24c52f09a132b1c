/**
 * fieldhub's composition root: reads the command line and hands each command the
 * parts it wires together.
 */
import { adminCommand, adminUsage } from "./cli/admin.ts";
import { alertsCommand, alertsUsage } from "./cli/alerts.ts";
import { CommandError, UsageError } from "./cli/args.ts";
import { configCommand, configUsage } from "./cli/config.ts";
import { demoCommand, demoUsage } from "./cli/demo.ts";
import { endpointsCommand, endpointsUsage } from "./cli/endpoints.ts";
import { historyCommand, historyUsage } from "./cli/history.ts";
import { keysCommand, keysUsage } from "./cli/keys.ts";
import { mirrorCommand, mirrorUsage } from "./cli/mirror.ts";
import { serveCommand, serveUsage } from "./cli/serve.ts";
import { webhooksCommand, webhooksUsage } from "./cli/webhooks-listen.ts";
import { commit, version } from "./lib/version.ts";

const usage = `fieldhub ${version}: Modbus data appliance

Usage:
  ${serveUsage}
  ${demoUsage}
  ${keysUsage.split("\n").join("\n  ")}
  ${alertsUsage.split("\n").join("\n  ")}
  ${endpointsUsage.split("\n").join("\n  ")}
  ${adminUsage.split("\n").join("\n  ")}
  ${historyUsage.split("\n").join("\n  ")}
  ${mirrorUsage}
  ${webhooksUsage}
  ${configUsage}
  fieldhub version
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "serve":
        await serveCommand(rest);
        return -1;
      case "demo":
        await demoCommand(rest);
        return -1;
      case "alerts":
        await alertsCommand(rest);
        return 0;
      case "keys":
        keysCommand(rest, Date.now());
        return 0;
      case "admin":
        await adminCommand(rest, Date.now());
        return 0;
      case "endpoints":
        await endpointsCommand(rest);
        return 0;
      case "history":
        await historyCommand(rest);
        return 0;
      case "mirror":
        await mirrorCommand(rest);
        return 0;
      case "webhooks":
        webhooksCommand(rest);
        return -1;
      case "config":
        configCommand(rest);
        return 0;
      case "version":
      case "--version":
        process.stdout.write(`fieldhub ${version} (${commit})\n`);
        return 0;
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(usage);
        return 0;
      default:
        throw new UsageError(command === undefined ? "no command given" : `unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`fieldhub: ${error.message}\n\n${usage}`);
      return 2;
    }
    if (error instanceof CommandError) {
      process.stderr.write(`fieldhub: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

const code = await main(process.argv.slice(2));
// Long-running commands (serve, demo) return -1 and keep the process alive.
if (code >= 0) process.exit(code);
