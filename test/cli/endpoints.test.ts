/**
 * `fieldhub endpoints ...` as an operator runs them: separate processes on the
 * data directory of a running `fieldhub serve`, whose dispatcher delivers to a
 * real HTTP receiver in this test. Signatures are checked with the reference
 * `standardwebhooks` library, not fieldhub's code (docs/api.md section 6).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { runCli, servedUrl, startCli } from "../harness/cli.ts";

const configYaml = `
organizations:
  - key: acme
    name: Acme Greenhouses
gateways:
  - serial: HOOKS-1
    name: Greenhouse 1
    organization: acme
    bus: { type: tcp }
webhooks:
  retry_delays_s: [1, 1, 1, 1, 1]
  pause_after_failed_messages: 2
`;

interface Received {
  at: number;
  body: string;
  headers: Record<string, string>;
  status: number;
}

/** A receiver per path: answers with the statuses queued for it (then its default) and records each request. */
interface Route {
  received: Received[];
  answers: number[];
  otherwise: number;
}

const routes = new Map<string, Route>();
let receiver: ReturnType<typeof Bun.serve>;

function route(name: string, otherwise = 200, answers: number[] = []): { url: string; route: Route } {
  const entry: Route = { received: [], answers, otherwise };
  routes.set(name, entry);
  return { url: `http://127.0.0.1:${receiver.port}/${name}`, route: entry };
}

let workDir: string;
let dataDir: string;
let server: ReturnType<typeof startCli>;

beforeAll(async () => {
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const entry = routes.get(new URL(request.url).pathname.slice(1));
      if (entry === undefined) return new Response("no such route", { status: 404 });
      const status = entry.answers.shift() ?? entry.otherwise;
      entry.received.push({
        at: Date.now(),
        body: await request.text(),
        headers: Object.fromEntries(request.headers.entries()),
        status,
      });
      return new Response(status === 204 ? null : `answered ${status}`, { status });
    },
  });
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-endpoints-cli-"));
  dataDir = join(workDir, "data");
  const configPath = join(workDir, "fieldhub.yaml");
  writeFileSync(configPath, configYaml);
  server = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
  await server.waitFor(servedUrl);
}, 30_000);

afterAll(async () => {
  if (server !== undefined) await server.stop();
  receiver?.stop(true);
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

interface EndpointJson {
  id: string;
  organization: string;
  url: string;
  description: string | null;
  events: string[];
  status: "enabled" | "paused";
  paused_at: string | null;
  pause_reason: string | null;
  failed_messages_in_row: number;
  created_at: string;
  secret_rotation_ends_at: string | null;
}

interface DeliveryJson {
  message_id: string;
  type: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  attempt_log: {
    at: string;
    status_code: number | null;
    duration_ms: number;
    error: string | null;
    response: string | null;
  }[];
}

async function endpoints(args: string[], timeoutMs = 30_000) {
  const [action, ...rest] = args;
  return runCli(["endpoints", action!, "--data", dataDir, ...rest], timeoutMs);
}

async function ok(args: string[]) {
  const result = await endpoints(args);
  if (result.code !== 0)
    throw new Error(`endpoints ${args.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

async function create(url: string, extra: string[] = []): Promise<EndpointJson & { secret: string }> {
  const result = await ok(["create", "--org", "acme", "--url", url, "--json", ...extra]);
  return JSON.parse(result.stdout) as EndpointJson & { secret: string };
}

async function deliveries(id: string): Promise<DeliveryJson[]> {
  return JSON.parse((await ok(["deliveries", id, "--json"])).stdout) as DeliveryJson[];
}

async function listed(id: string): Promise<EndpointJson | undefined> {
  const rows = JSON.parse((await ok(["list", "--json"])).stdout) as EndpointJson[];
  return rows.find((row) => row.id === id);
}

async function until<T>(find: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== null && found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(100);
  }
}

function verifyWith(secret: string, received: Received): unknown {
  return new Webhook(secret).verify(received.body, received.headers);
}

describe("create, test, deliveries", () => {
  test("the test message arrives signed with the secret create printed, as the envelope docs/webhooks.md shows", async () => {
    const { url, route: r } = route("first", 204);
    const plain = await ok(["create", "--org", "acme", "--url", url, "--description", "first receiver"]);
    const id = /^id\s+(\S+)$/m.exec(plain.stdout)?.[1];
    const secret = /^secret\s+(whsec_\S+)$/m.exec(plain.stdout)?.[1];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);

    const before = Date.now();
    const tested = await ok(["test", id!]);
    expect(tested.stdout).toContain("delivered: HTTP 204");
    expect(r.received.length).toBe(1);
    const delivery = r.received[0]!;

    const payload = verifyWith(secret!, delivery) as { id: string; type: string; timestamp: string; data: any };
    expect(payload.id).toMatch(/^msg_[0-9a-f]+$/);
    expect(payload.id).toBe(delivery.headers["webhook-id"]!);
    expect(tested.stdout).toContain(payload.id);
    expect(payload.type).toBe("webhook.test");
    expect(delivery.headers["x-service-event"]).toBe("webhook.test");
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(payload.timestamp)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Object.keys(payload)).toEqual(["id", "type", "timestamp", "data"]);
    expect(payload.data).toEqual({ endpoint_id: id, message: expect.any(String) });
    expect(delivery.headers["content-type"]).toContain("application/json");
    expect(delivery.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(Math.abs(Number(delivery.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);

    const log = await deliveries(id!);
    expect(log.length).toBe(1);
    expect(log[0]).toMatchObject({
      message_id: payload.id,
      type: "webhook.test",
      status: "delivered",
      attempts: 1,
      last_status_code: 204,
      last_error: null,
    });
    expect(log[0]!.attempt_log).toEqual([
      { at: expect.any(String), status_code: 204, duration_ms: expect.any(Number), error: null, response: null },
    ]);

    const text = await ok(["deliveries", id!]);
    expect(text.stdout).toContain(payload.id);
    expect(text.stdout).toContain("delivered");
    expect(text.stdout).toContain("HTTP 204");

    // The secret is shown again to an admin who asks.
    const shown = await ok(["secret", id!]);
    expect(shown.stdout).toContain(secret!);
    const shownJson = JSON.parse((await ok(["secret", id!, "--json"])).stdout);
    expect(shownJson).toEqual({ id, secret, previous: null, previous_valid_until: null });
  }, 30_000);

  test("a receiver answering 500 then 200: two attempts in the log, the same webhook-id, delivered", async () => {
    const { url, route: r } = route("flaky", 200, [500]);
    const created = await create(url);
    const tested = await endpoints(["test", created.id]);
    expect(tested.code).toBe(1);
    expect(tested.stderr).toContain("HTTP 500");
    expect(tested.stderr).toContain("retried");

    const log = await until(async () => {
      const rows = await deliveries(created.id);
      return rows[0]?.status === "delivered" ? rows : null;
    });
    expect(log[0]!.attempts).toBe(2);
    expect(log[0]!.last_status_code).toBe(200);
    expect(log[0]!.attempt_log.map((attempt) => attempt.status_code)).toEqual([500, 200]);
    expect(log[0]!.attempt_log[0]!.error).toBe("HTTP 500");
    expect(log[0]!.attempt_log[0]!.response).toBe("answered 500");
    expect(r.received.map((received) => received.status)).toEqual([500, 200]);
    expect(r.received[0]!.headers["webhook-id"]).toBe(r.received[1]!.headers["webhook-id"]!);
    // Each attempt is signed afresh and verifies.
    for (const received of r.received) expect(() => verifyWith(created.secret, received)).not.toThrow();
  }, 30_000);
});

describe("rotate-secret", () => {
  test("during the grace period a message verifies with the old and with the new secret", async () => {
    const { url, route: r } = route("rotating");
    const created = await create(url);
    const rotated = await ok(["rotate-secret", created.id, "--grace", "30m", "--json"]);
    const { secret, previous_valid_until } = JSON.parse(rotated.stdout) as {
      secret: string;
      previous_valid_until: string;
    };
    expect(secret).not.toBe(created.secret);
    const until30m = Date.parse(previous_valid_until) - Date.now();
    expect(until30m).toBeGreaterThan(29 * 60_000);
    expect(until30m).toBeLessThanOrEqual(30 * 60_000);

    await ok(["test", created.id]);
    const received = r.received.at(-1)!;
    expect(received.headers["webhook-signature"]!.split(" ").length).toBe(2);
    expect(() => verifyWith(secret, received)).not.toThrow();
    expect(() => verifyWith(created.secret, received)).not.toThrow();
    // A secret that is neither does not verify.
    expect(() => verifyWith(`whsec_${Buffer.alloc(24, 7).toString("base64")}`, received)).toThrow();

    const shown = JSON.parse((await ok(["secret", created.id, "--json"])).stdout);
    expect(shown).toEqual({ id: created.id, secret, previous: created.secret, previous_valid_until });
    expect((await listed(created.id))?.secret_rotation_ends_at).toBe(previous_valid_until);

    // Without --json the new secret is on stdout and the grace period is told.
    const again = await ok(["rotate-secret", created.id]);
    expect(again.stdout).toMatch(/^secret\s+whsec_\S+\n$/);
    expect(again.stderr).toContain("valid until");
  }, 30_000);

  test("a grace of 0s stops the old secret at once; bad durations are usage errors", async () => {
    const { url, route: r } = route("rotate-now");
    const created = await create(url);
    const { secret } = JSON.parse((await ok(["rotate-secret", created.id, "--grace", "0s", "--json"])).stdout);
    await ok(["test", created.id]);
    const received = r.received.at(-1)!;
    expect(() => verifyWith(secret, received)).not.toThrow();
    expect(() => verifyWith(created.secret, received)).toThrow();

    for (const grace of ["tomorrow", "5", "1w", "400d"]) {
      const result = await endpoints(["rotate-secret", created.id, "--grace", grace]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--grace");
    }
  }, 30_000);
});

describe("pausing", () => {
  test("410 Gone pauses at once; a test is then held; enable delivers it", async () => {
    const { url, route: r } = route("gone", 410);
    const created = await create(url);
    const tested = await endpoints(["test", created.id]);
    expect(tested.code).toBe(1);
    expect(tested.stderr).toContain("HTTP 410");
    expect(tested.stderr).toContain("paused");

    const row = await listed(created.id);
    expect(row?.status).toBe("paused");
    expect(row?.pause_reason).toContain("410");
    const text = await ok(["list"]);
    const line = text.stdout.split("\n").find((candidate) => candidate.includes(created.id));
    expect(line).toContain("paused");
    expect(line).toContain("410");

    r.otherwise = 200;
    const held = await endpoints(["test", created.id]);
    expect(held.code).toBe(1);
    expect(held.stderr).toContain("held");
    const heldId = /queued test message (msg_[0-9a-f]+)/.exec(held.stdout)?.[1];
    expect(heldId).toBeDefined();
    await Bun.sleep(1_500);
    expect(r.received.length).toBe(1);
    expect((await deliveries(created.id)).find((d) => d.message_id === heldId)?.status).toBe("held");

    const enabled = await ok(["enable", created.id]);
    expect(enabled.stdout).toContain("enabled");
    const delivered = await until(async () => r.received.find((received) => received.headers["webhook-id"] === heldId));
    expect(delivered.status).toBe(200);
    expect(() => verifyWith(created.secret, delivered)).not.toThrow();
    expect((await listed(created.id))?.status).toBe("enabled");
    await until(
      async () => (await deliveries(created.id)).find((d) => d.message_id === heldId)?.status === "delivered",
    );
  }, 40_000);

  test("after pause_after_failed_messages messages fail every attempt the endpoint pauses; --discard-held drops what was held", async () => {
    const { url, route: r } = route("down", 500);
    const created = await create(url);
    await ok(["test", created.id, "--wait", "0"]);
    await ok(["test", created.id, "--wait", "0"]);
    const row = await until(async () => {
      const current = await listed(created.id);
      return current?.status === "paused" ? current : null;
    }, 30_000);
    expect(row.pause_reason).toContain("2 messages in a row failed every attempt");
    const log = await deliveries(created.id);
    expect(log.map((delivery) => delivery.status)).toEqual(["failed", "failed"]);
    expect(log.map((delivery) => delivery.attempts)).toEqual([6, 6]);
    expect(r.received.length).toBe(12);

    const held = await endpoints(["test", created.id]);
    expect(held.stderr).toContain("held");
    const enabled = await ok(["enable", created.id, "--discard-held"]);
    expect(enabled.stdout).toContain("discarded");
    expect((await deliveries(created.id))[0]!.status).toBe("discarded");
    await Bun.sleep(1_500);
    expect(r.received.length).toBe(12);
    expect((await listed(created.id))?.status).toBe("enabled");
  }, 60_000);
});

describe("resend, update, delete", () => {
  test("resend delivers the same message again with the same webhook-id", async () => {
    const { url, route: r } = route("resend");
    const created = await create(url);
    await ok(["test", created.id]);
    const first = r.received[0]!;
    const messageId = first.headers["webhook-id"]!;
    const resent = await ok(["resend", created.id, messageId]);
    expect(resent.stdout).toContain(messageId);
    const second = await until(async () => r.received[1]);
    expect(second.headers["webhook-id"]).toBe(messageId);
    expect(second.body).toBe(first.body);
    expect(() => verifyWith(created.secret, second)).not.toThrow();
    const log = await until(async () => {
      const rows = await deliveries(created.id);
      return rows.length === 2 && rows.every((row) => row.status === "delivered") ? rows : null;
    });
    expect(log.map((row) => row.message_id)).toEqual([messageId, messageId]);

    const unknown = await endpoints(["resend", created.id, "msg_0000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("msg_0000");
  }, 30_000);

  test("update --events, --url and --description; delete", async () => {
    const { url } = route("updated");
    const created = await create(url, ["--events", "alert.triggered,alert.resolved"]);
    expect(created.events).toEqual(["alert.triggered", "alert.resolved"]);
    expect(created.description).toBeNull();

    const updated = JSON.parse(
      (await ok(["update", created.id, "--events", "device.offline", "--description", "night shift", "--json"])).stdout,
    ) as EndpointJson;
    expect(updated.events).toEqual(["device.offline"]);
    expect(updated.description).toBe("night shift");
    expect((await listed(created.id))?.events).toEqual(["device.offline"]);

    const moved = route("moved");
    const all = JSON.parse((await ok(["update", created.id, "--url", moved.url, "--events", "", "--json"])).stdout);
    expect(all.events).toEqual([]);
    expect(all.url).toBe(moved.url);
    await ok(["test", created.id]);
    expect(moved.route.received.length).toBe(1);

    const nothing = await endpoints(["update", created.id]);
    expect(nothing.code).toBe(2);

    const deleted = await ok(["delete", created.id]);
    expect(deleted.stdout).toContain(created.id);
    expect(await listed(created.id)).toBeUndefined();
    const again = await endpoints(["delete", created.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(created.id);
  }, 30_000);

  test("list --org filters; the text list names each endpoint", async () => {
    const { url } = route("listed");
    const created = await create(url, ["--description", "listed one"]);
    const acme = JSON.parse((await ok(["list", "--org", "acme", "--json"])).stdout) as EndpointJson[];
    expect(acme.some((row) => row.id === created.id)).toBe(true);
    const other = JSON.parse((await ok(["list", "--org", "globex", "--json"])).stdout) as EndpointJson[];
    expect(other).toEqual([]);
    const text = await ok(["list"]);
    const line = text.stdout.split("\n").find((candidate) => candidate.includes(created.id));
    expect(line).toContain(url);
    expect(line).toContain("listed one");
    expect(line).toContain("all events");
    expect(text.stdout).not.toContain(created.secret);
  });
});

describe("refusals", () => {
  const unknownId = "00000000-0000-4000-8000-000000000000";
  const cases: { title: string; args: string[]; code: number; mentions: RegExp }[] = [
    { title: "an unknown id (test)", args: ["test", unknownId], code: 1, mentions: /no webhook endpoint 0{8}/ },
    {
      title: "an unknown id (update)",
      args: ["update", unknownId, "--url", "http://x.test/"],
      code: 1,
      mentions: /no webhook endpoint/,
    },
    { title: "an unknown id (deliveries)", args: ["deliveries", unknownId], code: 1, mentions: /no webhook endpoint/ },
    { title: "an unknown id (enable)", args: ["enable", unknownId], code: 1, mentions: /no webhook endpoint/ },
    { title: "an unknown id (secret)", args: ["secret", unknownId], code: 1, mentions: /no webhook endpoint/ },
    {
      title: "an ftp URL",
      args: ["create", "--org", "acme", "--url", "ftp://files.example.com/hooks"],
      code: 1,
      mentions: /http or https: ftp:\/\/files\.example\.com\/hooks/,
    },
    {
      title: "not a URL",
      args: ["create", "--org", "acme", "--url", "receiver"],
      code: 1,
      mentions: /not a URL: receiver/,
    },
    {
      title: "an unknown event type",
      args: ["create", "--org", "acme", "--url", "http://127.0.0.1:9/", "--events", "device.online,device.exploded"],
      code: 1,
      mentions: /unknown event type device\.exploded/,
    },
    {
      title: "an unknown organisation",
      args: ["create", "--org", "initech", "--url", "http://127.0.0.1:9/"],
      code: 1,
      mentions: /"initech".*known: acme/,
    },
    { title: "a missing --url", args: ["create", "--org", "acme"], code: 2, mentions: /--url is required/ },
    { title: "an unknown action", args: ["explode"], code: 2, mentions: /unknown endpoints action "explode"/ },
    { title: "a missing id", args: ["enable"], code: 2, mentions: /enable takes ID/ },
    { title: "a bad --limit", args: ["deliveries", unknownId, "--limit", "0"], code: 2, mentions: /--limit/ },
  ];
  for (const { title, args, code, mentions } of cases) {
    test(title, async () => {
      const before = JSON.parse((await ok(["list", "--json"])).stdout) as EndpointJson[];
      const result = await endpoints(args);
      expect(result.code).toBe(code);
      expect(result.stderr).toMatch(mentions);
      expect(result.stdout).not.toContain("whsec_");
      const after = JSON.parse((await ok(["list", "--json"])).stdout) as EndpointJson[];
      expect(after.length).toBe(before.length);
    });
  }

  test("an update to an ftp URL or an unknown event type changes nothing", async () => {
    const { url } = route("kept");
    const created = await create(url, ["--events", "device.online"]);
    const ftp = await endpoints(["update", created.id, "--url", "ftp://x.example.com/"]);
    expect(ftp.code).toBe(1);
    expect(ftp.stderr).toContain("http or https");
    const badType = await endpoints(["update", created.id, "--events", "device.gone"]);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toContain("unknown event type device.gone");
    const row = await listed(created.id);
    expect(row?.url).toBe(url);
    expect(row?.events).toEqual(["device.online"]);
  });
});

describe("without a running fieldhub", () => {
  test("test says plainly that nothing delivered it and the message stays queued", async () => {
    const otherDir = join(workDir, "stopped");
    const configPath = join(workDir, "fieldhub.yaml");
    const other = startCli(["serve", "--config", configPath, "--data", otherDir, "--host", "127.0.0.1", "--port", "0"]);
    await other.waitFor(servedUrl);
    expect(await other.stop()).toBe(0);

    const { url, route: r } = route("nobody");
    const created = JSON.parse(
      (await runCli(["endpoints", "create", "--data", otherDir, "--org", "acme", "--url", url, "--json"])).stdout,
    );
    const result = await runCli(["endpoints", "test", "--data", otherDir, created.id, "--wait", "1"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no fieldhub seems to be running on");
    expect(result.stderr).toContain(otherDir);
    expect(result.stderr).toContain("stays queued");
    expect(r.received.length).toBe(0);
    const log = JSON.parse(
      (await runCli(["endpoints", "deliveries", "--data", otherDir, created.id, "--json"])).stdout,
    ) as DeliveryJson[];
    expect(log.map((row) => [row.status, row.attempts])).toEqual([["pending", 0]]);
  }, 30_000);
});
