/** fieldhub's entry point: hands the command line to the CLI (src/cli/commands.ts). */
import { runCommandLine } from "./cli/commands.ts";

const code = await runCommandLine(process.argv.slice(2));
// Long-running commands (serve, demo, webhooks listen) return -1 and keep the process alive.
if (code >= 0) process.exit(code);
