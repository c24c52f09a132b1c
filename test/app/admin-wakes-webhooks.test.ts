/**
 * `fieldhub serve` as a user runs it: an admin change that records an event (the
 * endpoint "test" action, docs/api.md section 6) is delivered at once, not at the
 * dispatcher's next look at the outbox. That look comes every second
 * (webhooks/dispatcher.ts `pollEveryMs`) and, with the config's delivery settings
 * (the defaults here), nothing else wakes the dispatcher between two admin changes:
 * right after a delivery it sleeps the whole period. Each message must arrive
 * well within it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningCli, repoRoot, servedUrl, startCli } from "../harness/cli.ts";

const dispatcherPollMs = 1000;
const owner = { username: "owner", password: "correct horse battery" };

let workDir: string;
let dataDir: string;
let serve: RunningCli;
let base: string;
let receiver: ReturnType<typeof Bun.serve>;
const received: { at: number; body: string }[] = [];

beforeAll(async () => {
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      received.push({ at: performance.now(), body: await request.text() });
      return new Response(null, { status: 204 });
    },
  });
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-admin-wakes-"));
  dataDir = join(workDir, "data");
  const configPath = join(workDir, "fieldhub.yaml");
  writeFileSync(
    configPath,
    "organizations: [{ key: acme, name: Acme }]\nwebhooks: { timeout_s: 10, retry_delays_s: [30, 120] }\n",
  );
  serve = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
  base = await serve.waitFor(servedUrl);
}, 30_000);

afterAll(async () => {
  await serve?.stop();
  receiver?.stop(true);
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

async function admin(method: string, path: string, session: { cookie: string; csrf: string } | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (session !== null) {
    headers.cookie = session.cookie;
    headers["x-csrf-token"] = session.csrf;
  }
  const response = await fetch(`${base}/admin/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function waitForMessage(count: number, timeoutMs = 5_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (received.length < count) {
    if (performance.now() > deadline) throw new Error(`only ${received.length} of ${count} messages arrived`);
    await Bun.sleep(2);
  }
  return received[count - 1]!.at;
}

test("the setup token is on serve's banner (stderr beside JSON logs), not in its JSON log", async () => {
  // The banner follows the log line that gave the URL, on another stream: wait for it.
  const banner = await serve.waitFor(
    (_stdout, stderr) => stderr.split("\n").find((line) => line.includes("setup token")) ?? null,
  );
  expect(banner).toMatch(/setup token \S+/);
  const token = /setup token (\S+?),? /.exec(banner ?? "")?.[1] ?? "missing";
  const log = serve.stdout().split("\n");
  expect(log.filter((line) => line.includes(token))).toEqual([]);
  expect(log.filter((line) => line !== "" && !line.startsWith("{"))).toEqual([]);
});

test("admin test messages reach the receiver well within the dispatcher's poll period", async () => {
  // The owner is created beside the running server, as an operator would.
  const setPassword = Bun.spawn(
    [
      process.execPath,
      "src/main.ts",
      "admin",
      "set-password",
      "--data",
      dataDir,
      "--user",
      owner.username,
      "--role",
      "owner",
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, CI: "true" },
      stdin: new Blob([`${owner.password}\n`]),
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  expect(await setPassword.exited).toBe(0);
  const login = await admin("POST", "/login", null, owner);
  expect(login.status).toBe(200);
  const session = {
    cookie: (login.headers.get("set-cookie") ?? "").split(";")[0]!,
    csrf: login.body.csrf_token as string,
  };

  const created = await admin("POST", "/endpoints", session, {
    organization: "acme",
    url: `http://127.0.0.1:${receiver.port}/hook`,
  });
  expect(created.status).toBe(201);

  // Each test message is sent right after the previous one arrived: the moment the
  // dispatcher starts a full poll period of sleep unless the admin change wakes it.
  const latencies: number[] = [];
  for (let index = 1; index <= 3; index++) {
    const sent = await admin("POST", `/endpoints/${created.body.endpoint.id}/test`, session);
    expect(sent.status).toBe(200);
    const answeredAt = performance.now();
    const arrivedAt = await waitForMessage(index);
    expect(JSON.parse(received[index - 1]!.body).id).toBe(sent.body.message_id);
    latencies.push(Math.max(0, arrivedAt - answeredAt));
  }
  for (const latency of latencies) expect(latency).toBeLessThan(dispatcherPollMs / 2);
}, 30_000);
