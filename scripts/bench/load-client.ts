/**
 * A load generator run as its own process (so it does not share the server's
 * event loop): CONNECTIONS concurrent request loops against URL for SECONDS,
 * then prints {"requests": N, "errors": N, "seconds": S} as JSON.
 * Usage: bun scripts/bench/load-client.ts URL SECONDS CONNECTIONS [BEARER_KEY]
 */
const [url, secondsText, connectionsText, key] = process.argv.slice(2);
if (url === undefined) throw new Error("usage: load-client.ts URL SECONDS CONNECTIONS [KEY]");
const seconds = Number(secondsText ?? "5");
const connections = Number(connectionsText ?? "16");
const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` };

let requests = 0;
let errors = 0;
const deadline = performance.now() + seconds * 1000;
async function loop(): Promise<void> {
  while (performance.now() < deadline) {
    const response = await fetch(url as string, { headers });
    await response.arrayBuffer();
    if (response.status === 200) requests++;
    else errors++;
  }
}
const started = performance.now();
await Promise.all(Array.from({ length: connections }, loop));
export {};
process.stdout.write(`${JSON.stringify({ requests, errors, seconds: (performance.now() - started) / 1000 })}\n`);
