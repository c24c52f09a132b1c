/**
 * `fieldhub webhooks listen` as someone writing a receiver runs it: deliveries
 * signed with the reference `standardwebhooks` library (not fieldhub's code) are
 * accepted with 204 and printed; tampered, stale or unsigned ones get 400 and the
 * output says why (docs/api.md section 6.3, "Signature verification").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { freePort, runCli, startCli } from "../harness/cli.ts";

const secret = `whsec_${randomBytes(24).toString("base64")}`;
let listener: ReturnType<typeof startCli>;
let baseUrl: string;

beforeAll(async () => {
  const port = freePort();
  listener = startCli(["webhooks", "listen", "--host", "127.0.0.1", "--port", String(port), "--secret", secret]);
  await listener.waitFor((stdout) => (stdout.includes("listening on") ? true : null));
  baseUrl = `http://127.0.0.1:${port}`;
}, 20_000);

afterAll(async () => {
  if (listener !== undefined) await listener.stop();
});

let counter = 0;

function envelope(type = "device.offline") {
  counter++;
  const id = `msg_${randomBytes(16).toString("hex")}`;
  const body = JSON.stringify({
    id,
    type,
    timestamp: new Date().toISOString(),
    data: { device_id: "6f1c1c1e-3b8a-4f6e-9a51-2c7b4f1d9e0a", serial: `LISTEN-${counter}`, status: "offline" },
  });
  return { id, body };
}

function signed(id: string, body: string, timestampSeconds = Math.floor(Date.now() / 1000), key = secret) {
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": new Webhook(key).sign(id, new Date(timestampSeconds * 1000), body),
    "x-service-event": "device.offline",
  };
}

/** Posts and waits until the listener has printed the line for this delivery. */
async function deliver(body: string, headers: Record<string, string>, marker: string) {
  const already = listener.stdout().length;
  const response = await fetch(`${baseUrl}/hooks`, { method: "POST", body, headers });
  const answer = await response.text();
  const printed = await listener.waitFor((stdout) => {
    const added = stdout.slice(already);
    return added.includes(marker) ? added : null;
  }, 5_000);
  return { status: response.status, answer, printed };
}

describe("webhooks listen", () => {
  test("a correctly signed delivery: 204, printed with its id, type, validity and pretty JSON", async () => {
    const { id, body } = envelope();
    const result = await deliver(body, signed(id, body), id);
    expect(result.status).toBe(204);
    const firstLine = result.printed.split("\n")[0]!;
    expect(firstLine).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
    expect(firstLine).toContain(id);
    expect(firstLine).toContain("device.offline");
    expect(firstLine).toContain("valid");
    expect(firstLine).not.toContain("REJECTED");
    // Pretty-printed: one field a line, indented.
    expect(result.printed).toContain(`  "id": "${id}",`);
    expect(result.printed).toContain(`    "serial": "LISTEN-${counter}",`);
  });

  test("the same delivery signed with two secrets (a rotation) is valid", async () => {
    const { id, body } = envelope();
    const other = `whsec_${randomBytes(24).toString("base64")}`;
    const headers = signed(id, body);
    const now = Number(headers["webhook-timestamp"]);
    headers["webhook-signature"] =
      `${new Webhook(other).sign(id, new Date(now * 1000), body)} ${headers["webhook-signature"]}`;
    const result = await deliver(body, headers, id);
    expect(result.status).toBe(204);
  });

  test("a tampered body: 400 and bad signature", async () => {
    const { id, body } = envelope();
    const headers = signed(id, body);
    const tampered = body.replace('"offline"}', '"online"}');
    expect(tampered).not.toBe(body);
    const result = await deliver(tampered, headers, id);
    expect(result.status).toBe(400);
    expect(result.printed.split("\n")[0]).toContain("bad signature");
    expect(result.answer).toContain("bad signature");
  });

  test("a signature made with another secret: 400 and bad signature", async () => {
    const { id, body } = envelope();
    const other = `whsec_${randomBytes(24).toString("base64")}`;
    const result = await deliver(body, signed(id, body, undefined, other), id);
    expect(result.status).toBe(400);
    expect(result.printed).toContain("bad signature");
  });

  test("a timestamp ten minutes old, correctly signed for it: 400 and clock skew with the seconds", async () => {
    const { id, body } = envelope();
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    const headers = signed(id, body, tenMinutesAgo);
    // The signature itself is right: the reference library accepts it but for the age.
    expect(() => new Webhook(secret).verify(body, headers)).toThrow("Message timestamp too old");
    const result = await deliver(body, headers, id);
    expect(result.status).toBe(400);
    const line = result.printed.split("\n")[0]!;
    expect(line).toContain("clock skew");
    expect(line).toMatch(/\b(600|601|602) s behind\b/);
    expect(line).not.toContain("bad signature");
  });

  test("a timestamp ten minutes ahead: clock skew, ahead", async () => {
    const { id, body } = envelope();
    const result = await deliver(body, signed(id, body, Math.floor(Date.now() / 1000) + 600), id);
    expect(result.status).toBe(400);
    expect(result.printed).toMatch(/clock skew: webhook-timestamp is (598|599|600) s ahead/);
  });

  test("missing headers: 400 and which ones", async () => {
    const { id, body } = envelope();
    const result = await deliver(body, { "content-type": "application/json", "webhook-id": id }, id);
    expect(result.status).toBe(400);
    expect(result.printed).toContain("missing headers: webhook-timestamp, webhook-signature");

    const bare = await fetch(`${baseUrl}/`, { method: "POST", body: "{}" });
    expect(bare.status).toBe(400);
    expect(await bare.text()).toContain("missing headers");
  });

  test("a secret that is not whsec_ base64 is a usage error", async () => {
    const result = await runCli(["webhooks", "listen", "--port", "0", "--secret", "hunter2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--secret");
  });
});

describe("stopping", () => {
  test("SIGINT stops it with exit 0", async () => {
    const port = freePort();
    const other = startCli(["webhooks", "listen", "--host", "127.0.0.1", "--port", String(port), "--secret", secret]);
    await other.waitFor((stdout) => (stdout.includes("listening on") ? true : null));
    other.proc.kill("SIGINT");
    const code = await Promise.race([other.proc.exited, Bun.sleep(5_000).then(() => null)]);
    expect(code).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" })).rejects.toThrow();
  });

  test("SIGTERM stops it with exit 0", async () => {
    expect(await listener.stop()).toBe(0);
  });
});
