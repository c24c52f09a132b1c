/**
 * The mirror benchmark's baseline (scripts/bench/history-io.ts): the requests
 * `fieldhub mirror` makes for a fresh mirror, one after another, each response
 * parsed and nothing written, in a process of its own like the mirror.
 *
 * Usage: bun scripts/bench/mirror-bare-loop.ts BASE_URL KEY SINCE
 */
export {};

const [base, key, since] = process.argv.slice(2) as [string, string, string];
const week = 7 * 86_400_000;
const headers = { authorization: `Bearer ${key}` };
const get = async (path: string) => (await (await fetch(`${base}${path}`, { headers })).json()) as any;
let rows = 0;
const until = Date.now();
const gateways = (await get("/devices?limit=100&offset=0")).data as { id: string }[];
for (const gateway of gateways) {
  await get(`/devices/${gateway.id}`);
  await get(`/devices/${gateway.id}/registers`);
  for (let low = Date.parse(since); low < until; low += week) {
    const query = `order=asc&limit=1000&since=${new Date(low).toISOString()}&until=${new Date(Math.min(low + week, until)).toISOString()}`;
    let cursor: string | null = null;
    do {
      const page = await get(
        `/devices/${gateway.id}/readings?${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      rows += page.data.length;
      cursor = page.meta.has_more ? page.meta.next_cursor : null;
    } while (cursor !== null);
  }
}
process.stderr.write(`rows ${rows}\n`);
