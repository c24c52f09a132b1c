/**
 * fieldhub's composition root: reads the command line and hands each command the
 * parts it wires together.
 */
import { CommandError, UsageError } from "./cli/args.ts";
import { commit, version } from "./lib/version.ts";

// Command modules load when their command runs: a short command (history export,
// keys list) then starts without the HTTP server's modules, in less time and memory.
async function usage(): Promise<string> {
  const [serve, demo, keys, alerts, endpoints, admin, history, mirror, webhooks, config] = await Promise.all([
    import("./cli/serve.ts"),
    import("./cli/demo.ts"),
    import("./cli/keys.ts"),
    import("./cli/alerts.ts"),
    import("./cli/endpoints.ts"),
    import("./cli/admin.ts"),
    import("./cli/history.ts"),
    import("./cli/mirror.ts"),
    import("./cli/webhooks-listen.ts"),
    import("./cli/config.ts"),
  ]);
  return `fieldhub ${version}: Modbus data appliance

Usage:
  ${serve.serveUsage}
  ${demo.demoUsage}
  ${keys.keysUsage.split("\n").join("\n  ")}
  ${alerts.alertsUsage.split("\n").join("\n  ")}
  ${endpoints.endpointsUsage.split("\n").join("\n  ")}
  ${admin.adminUsage.split("\n").join("\n  ")}
  ${history.historyUsage.split("\n").join("\n  ")}
  ${mirror.mirrorUsage}
  ${webhooks.webhooksUsage}
  ${config.configUsage}
  fieldhub version
`;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "serve":
        await (await import("./cli/serve.ts")).serveCommand(rest);
        return -1;
      case "demo":
        await (await import("./cli/demo.ts")).demoCommand(rest);
        return -1;
      case "alerts":
        await (await import("./cli/alerts.ts")).alertsCommand(rest);
        return 0;
      case "keys":
        (await import("./cli/keys.ts")).keysCommand(rest, Date.now());
        return 0;
      case "admin":
        await (await import("./cli/admin.ts")).adminCommand(rest, Date.now());
        return 0;
      case "endpoints":
        await (await import("./cli/endpoints.ts")).endpointsCommand(rest);
        return 0;
      case "history":
        await (await import("./cli/history.ts")).historyCommand(rest);
        return 0;
      case "mirror":
        await (await import("./cli/mirror.ts")).mirrorCommand(rest);
        return 0;
      case "webhooks":
        (await import("./cli/webhooks-listen.ts")).webhooksCommand(rest);
        return -1;
      case "config":
        (await import("./cli/config.ts")).configCommand(rest);
        return 0;
      case "version":
      case "--version":
        process.stdout.write(`fieldhub ${version} (${commit})\n`);
        return 0;
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(await usage());
        return 0;
      default:
        throw new UsageError(command === undefined ? "no command given" : `unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`fieldhub: ${error.message}\n\n${await usage()}`);
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
