/**
 * The receiving end of the webhooks benchmark, in its own process: answers 204
 * to every POST and counts them. Prints `LISTENING <port>`.
 */
let received = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (request) => {
    await request.arrayBuffer();
    received++;
    return new Response(null, { status: 204 });
  },
});
process.stdout.write(`LISTENING ${server.port}\n`);
process.on("SIGTERM", () => {
  process.stdout.write(`RECEIVED ${received}\n`);
  process.exit(0);
});
