/**
 * The baseline of scripts/bench/footprint.ts: a bare Bun HTTP server, compiled the
 * way scripts/build compiles fieldhub, so the difference between the two is what
 * fieldhub's own code and data take. Prints "READY <port>".
 */
const bareServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
process.stdout.write(`READY ${bareServer.port}\n`);

export {};
