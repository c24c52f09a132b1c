/**
 * The page client of scripts/bench/store.ts, run as its own process so that it
 * does not share the server's event loop.
 *
 *   page-client.ts URLS_FILE KEY
 *     requests the URLs of the file (one per line) one after another, over and
 *     over. After one warm-up pass over the file it prints "ready"; from then on it
 *     records every request until its stdin closes, then prints one JSON line
 *     {"at": [...], "ms": [...], "errors": N}: the start of each request (epoch ms,
 *     performance.timeOrigin + performance.now(), comparable with the server
 *     process's clock) and its latency in ms, body read included.
 */
export {};

const [file, key] = process.argv.slice(2);
if (file === undefined || key === undefined) throw new Error("usage: page-client.ts URLS_FILE KEY");
const urls = (await Bun.file(file).text()).split("\n").filter((line) => line.length > 0);
if (urls.length === 0) throw new Error(`no URLs in ${file}`);
const headers = { authorization: `Bearer ${key}` };

let stopped = false;
void Bun.stdin.text().then(() => {
  stopped = true;
});

async function request(url: string): Promise<boolean> {
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  return response.status === 200;
}

let errors = 0;
for (const url of urls) if (!(await request(url))) errors++;
process.stdout.write("ready\n");

const at: number[] = [];
const ms: number[] = [];
for (let index = 0; !stopped; index = (index + 1) % urls.length) {
  const began = performance.now();
  const ok = await request(urls[index] as string);
  const took = performance.now() - began;
  at.push(performance.timeOrigin + began);
  ms.push(took);
  if (!ok) errors++;
}
process.stdout.write(`${JSON.stringify({ at, ms, errors })}\n`);
