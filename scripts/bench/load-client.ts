/**
 * The client side of the API benchmarks, run as its own process so that it
 * does not share the server's event loop.
 *
 *   load-client.ts load URL SECONDS CONNECTIONS [KEY]
 *     CONNECTIONS concurrent request loops for SECONDS; prints
 *     {"requests": N, "errors": N, "seconds": S}.
 *   load-client.ts rate URL SECONDS RATE [KEY]
 *     RATE requests a second for SECONDS, each started on its own time whether or
 *     not the ones before have been answered; prints the same as load.
 *   load-client.ts latency URLS_FILE [KEY]
 *     requests each URL of the file (one per line) in turn, twice (the first
 *     pass warms up); prints {"ms": [...], "errors": N} for the second pass.
 */
const [mode, ...rest] = process.argv.slice(2);

function headersFor(key: string | undefined): Record<string, string> {
  return key === undefined ? {} : { authorization: `Bearer ${key}` };
}

async function load(url: string, seconds: number, connections: number, key: string | undefined) {
  const headers = headersFor(key);
  let requests = 0;
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status === 200) requests++;
      else errors++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  return { requests, errors, seconds: (performance.now() - started) / 1000 };
}

async function atRate(url: string, seconds: number, rate: number, key: string | undefined) {
  const headers = headersFor(key);
  let requests = 0;
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < seconds * rate; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    inFlight.push(
      fetch(url, { headers }).then(
        async (response) => {
          await response.arrayBuffer();
          if (response.status === 200) requests++;
          else errors++;
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  return { requests, errors, seconds: (performance.now() - started) / 1000 };
}

async function latency(urls: string[], key: string | undefined) {
  const headers = headersFor(key);
  let ms: number[] = [];
  let errors = 0;
  for (let pass = 0; pass < 2; pass++) {
    ms = [];
    for (const url of urls) {
      const began = performance.now();
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      ms.push(performance.now() - began);
      if (response.status !== 200) errors++;
    }
  }
  return { ms, errors };
}

export {};

if (mode === "load") {
  const [url, seconds, connections, key] = rest;
  if (url === undefined) throw new Error("usage: load-client.ts load URL SECONDS CONNECTIONS [KEY]");
  process.stdout.write(`${JSON.stringify(await load(url, Number(seconds ?? 5), Number(connections ?? 16), key))}\n`);
} else if (mode === "rate") {
  const [url, seconds, rate, key] = rest;
  if (url === undefined) throw new Error("usage: load-client.ts rate URL SECONDS RATE [KEY]");
  process.stdout.write(`${JSON.stringify(await atRate(url, Number(seconds ?? 5), Number(rate ?? 200), key))}\n`);
} else if (mode === "latency") {
  const [file, key] = rest;
  if (file === undefined) throw new Error("usage: load-client.ts latency URLS_FILE [KEY]");
  const urls = (await Bun.file(file).text()).split("\n").filter((line) => line.length > 0);
  process.stdout.write(`${JSON.stringify(await latency(urls, key))}\n`);
} else {
  throw new Error("usage: load-client.ts load|rate|latency ...");
}
