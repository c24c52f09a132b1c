/**
 * A site's calls to its central (docs/fleet.md, "The edge protocol") against a
 * central in the test answering each call as told: every 2xx answer is checked
 * against the declared reply, extra fields pass (a newer central), and each kind of
 * failure is named and classed (refused: an operator must act; else an outage).
 */
import { afterAll, expect, test } from "bun:test";
import { edgeMessages } from "../../src/lib/edge-protocol/messages.ts";
import { CentralCallError, createCentralClient } from "../../src/uplink/central-client.ts";

let answer: () => Response = () => new Response(null, { status: 204 });
const received: { method: string; path: string; body: string }[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    received.push({ method: request.method, path: new URL(request.url).pathname, body: await request.text() });
    return answer();
  },
});
afterAll(() => server.stop(true));

const token = `fhe_${"b".repeat(64)}`;
const client = createCentralClient({ url: `http://127.0.0.1:${server.port}`, token, timeoutMs: 2_000 });

async function failure(call: () => Promise<unknown>): Promise<CentralCallError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof CentralCallError) return error;
    throw error;
  }
  throw new Error("the call did not fail");
}

test("a declared reply is given as read, fields a newer central adds pass, the request goes as declared", async () => {
  answer = () => Response.json({ stored: 3, skipped: 1, took_ms: 12 });
  const reply = await client.call(edgeMessages.readings, { readings: [["r", 1, 2]] });
  expect(reply).toMatchObject({ stored: 3, skipped: 1 });
  expect(received.at(-1)).toEqual({ method: "POST", path: "/edge/v1/readings", body: '{"readings":[["r",1,2]]}' });
});

test("an answer that does not fit is named by call, JSON pointer and the central's version; refused", async () => {
  answer = () => Response.json({ stored: "3", skipped: 0 }, { headers: { "fieldhub-version": "2.0.0" } });
  const unreadable = await failure(() => client.call(edgeMessages.readings, { readings: [] }));
  expect(unreadable.message).toBe(
    "the central's answer to POST /edge/v1/readings does not fit this site's protocol: /stored: expected integer (central fieldhub 2.0.0)",
  );
  expect(unreadable.refused).toBe(true);

  answer = () => Response.json({ organization: "acme", site: 7, token_id: "t" });
  const session = await failure(() => client.call(edgeMessages.session));
  expect(session.message).toBe(
    "the central's answer to GET /edge/v1/session does not fit this site's protocol: /site: expected string",
  );

  answer = () =>
    Response.json({
      forwarded_through: 0,
      requests: [{ alert_id: "a", action: "delete", note: null, requested_at: 1 }],
    });
  const action = await failure(() => client.call(edgeMessages.alertPosition));
  expect(action.message).toContain("/requests/0/action");

  answer = () => new Response("<html>ok</html>", { status: 200 });
  const notJson = await failure(() => client.call(edgeMessages.positions));
  expect(notJson.message).toBe(
    "the central's answer to GET /edge/v1/positions does not fit this site's protocol: not JSON",
  );
});

test("a refusal carries the central's code and detail (refused); a 5xx or no answer is an outage", async () => {
  answer = () =>
    Response.json(
      { type: "about:blank", code: "conflict", detail: 'Gateway g is not one of site "n"\'s.' },
      { status: 409 },
    );
  const conflict = await failure(() => client.call(edgeMessages.status, { gateways: [] }));
  expect(conflict.message).toBe('PUT /edge/v1/status: HTTP 409 conflict: Gateway g is not one of site "n"\'s.');
  expect(conflict.refused).toBe(true);

  answer = () => new Response("busy", { status: 503 });
  const busy = await failure(() => client.call(edgeMessages.inventory, { gateways: [] }));
  expect(busy.message).toBe("PUT /edge/v1/inventory: HTTP 503");
  expect(busy.refused).toBe(false);

  const nobody = createCentralClient({ url: "http://127.0.0.1:1", token, timeoutMs: 2_000 });
  const down = await failure(() => nobody.call(edgeMessages.session));
  expect(down.failure.kind).toBe("network");
  expect(down.refused).toBe(false);
});
