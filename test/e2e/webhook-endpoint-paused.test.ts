/**
 * An endpoint that pauses is told to the organisation's other endpoints
 * (docs/webhooks.md, "`webhook_endpoint.paused`"), through the public doors: a real
 * `fieldhub serve`, one receiver answering 410 Gone (which pauses its endpoint at
 * once) and one healthy receiver verifying every delivery with `standardwebhooks`.
 * The healthy one gets `webhook_endpoint.paused` naming the other, once; the paused
 * endpoint gets nothing about its own pause; the log has one error line and
 * /metrics counts the pause.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isEventData } from "../../src/store/contract/event-types.ts";
import { metricValue } from "../faults/harness/serve.ts";
import { startRecordingReceiver, startVerifyingReceiver } from "../faults/harness/webhook-receivers.ts";
import { type RunningCli, runCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";

let workDir = "";
let dataDir = "";
let server: RunningCli | undefined;
let baseUrl = "";
const healthy = startVerifyingReceiver();
const goneRequests: string[] = [];
const gone = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = (await request.json()) as { type: string };
    goneRequests.push(body.type);
    return new Response("this hook was removed", { status: 410 });
  },
});
const goneUrl = `http://127.0.0.1:${gone.port}/hook?token=s3cret`;
// An endpoint of another organisation hears nothing of this one's pause.
const otherOrg = startRecordingReceiver();

async function createEndpoint(org: string, url: string, description?: string) {
  const args = ["endpoints", "create", "--data", dataDir, "--org", org, "--url", url, "--json"];
  if (description !== undefined) args.push("--description", description);
  const created = await runCli(args);
  expect(created.code).toBe(0);
  return JSON.parse(created.stdout) as { id: string; secret: string };
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-endpoint-paused-"));
  dataDir = join(workDir, "data");
  const config = join(workDir, "fieldhub.yaml");
  writeFileSync(config, "organizations: [{ key: plant, name: Plant }, { key: other, name: Other }]\n");
  server = startCli(serveArgs(config, dataDir));
  baseUrl = await server.waitFor(servedUrl);
}, 30_000);

afterAll(async () => {
  await server?.stop();
  healthy.stop();
  gone.stop(true);
  otherOrg.stop();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

test("a 410 pauses the endpoint; the organisation's other endpoint receives webhook_endpoint.paused naming it", async () => {
  const healthyEndpoint = await createEndpoint("plant", healthy.url);
  healthy.useSecret(healthyEndpoint.secret);
  const goneEndpoint = await createEndpoint("plant", goneUrl, "Old control room");
  await createEndpoint("other", otherOrg.url);
  expect(await metricValue(baseUrl, "fieldhub_webhook_endpoints_paused_total")).toBe(0);

  // Test messages go to the gone endpoint only; more than one may be in flight when the 410 comes back.
  const testMessage = () => runCli(["endpoints", "test", "--data", dataDir, goneEndpoint.id, "--wait", "0"]);
  expect((await testMessage()).code).toBe(0);
  for (let i = 0; i < 2; i++) {
    // Queued (exit 0), or held once the 410 has paused the endpoint, and the command says so (exit 1).
    const more = await testMessage();
    if (more.code !== 0) expect(`${more.stdout}${more.stderr}`).toContain("is paused");
  }

  const deadline = Date.now() + 20_000;
  while (!healthy.arrivals.some((a) => a.type === "webhook_endpoint.paused") && Date.now() < deadline) {
    await Bun.sleep(100);
  }
  const paused = healthy.arrivals.filter((a) => a.type === "webhook_endpoint.paused");
  expect(paused.length).toBe(1);
  const event = paused[0];
  if (event === undefined) throw new Error("no webhook_endpoint.paused arrived");
  expect(isEventData("webhook_endpoint.paused", event.data)).toBe(true);
  expect(event.data).toMatchObject({
    endpoint_id: goneEndpoint.id,
    // The query string (a token, often) is left out.
    url: `http://127.0.0.1:${gone.port}/hook`,
    description: "Old control room",
    reason: "gone",
    failed_messages: 1,
    last_status_code: 410,
  });
  expect(healthy.invalid()).toBe(0);

  const listed = await runCli(["endpoints", "list", "--data", dataDir, "--json"]);
  const endpoints = JSON.parse(listed.stdout) as { id: string; status: string }[];
  expect(endpoints.find((e) => e.id === goneEndpoint.id)?.status).toBe("paused");

  expect(await metricValue(baseUrl, "fieldhub_webhook_endpoints_paused_total")).toBe(1);
  const pauseLines = `${server?.stdout()}${server?.stderr()}`
    .split("\n")
    .filter((line) => line.includes("webhook endpoint paused"));
  expect(pauseLines.length).toBe(1);
  expect(JSON.parse(pauseLines[0] ?? "{}")).toMatchObject({ level: 50, endpoint: goneEndpoint.id, reason: "gone" });
  expect(pauseLines[0]).not.toContain("s3cret");

  // Nothing about its own pause reached the paused endpoint, nor any endpoint of another organisation.
  await Bun.sleep(1500);
  expect(goneRequests.every((type) => type === "webhook.test")).toBe(true);
  expect(otherOrg.deliveries.map((d) => d.type)).toEqual([]);
  const log = await runCli(["endpoints", "deliveries", "--data", dataDir, goneEndpoint.id, "--json"]);
  expect(log.stdout).not.toContain("webhook_endpoint.paused");
}, 40_000);
