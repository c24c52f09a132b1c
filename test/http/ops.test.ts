/** /healthz (liveness, store writable) and /metrics (Prometheus text) of the HTTP door. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { onPostgres, sqliteOnlyReason, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site.stop();
});

test.skipIf(onPostgres)(
  `/healthz answers 200 while the store takes writes, 503 with the reason when it does not${onPostgres ? ` (${sqliteOnlyReason})` : ""}`,
  async () => {
    const healthy = await fetch(`${site.baseUrl}/healthz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toMatchObject({ status: "ok", store: "writable" });
    expect(healthy.headers.get("x-request-id")).toMatch(/^req_/);

    sqliteOf(site.store).exec("PRAGMA query_only = ON");
    try {
      // The store is written at most once every 3 s: the answer
      // just given stands until then, however often /healthz is asked.
      expect((await fetch(`${site.baseUrl}/healthz`)).status).toBe(200);
      await Bun.sleep(3_100);
      const broken = await fetch(`${site.baseUrl}/healthz`);
      expect(broken.status).toBe(503);
      const body = (await broken.json()) as { status: string; store: string; problems: string[] };
      expect(body.status).toBe("error");
      expect(body.store).toContain("readonly");
      expect(body.problems[0]).toMatch(/^store not writable: .*readonly/);
    } finally {
      sqliteOf(site.store).exec("PRAGMA query_only = OFF");
    }
  },
);

test("/metrics counts API requests by route pattern, method and status", async () => {
  for (let index = 0; index < 3; index++)
    await (
      await fetch(`${site.baseUrl}/v1/devices`, { headers: { authorization: `Bearer ${site.keys.acme}` } })
    ).text();
  await (await fetch(`${site.baseUrl}/v1/devices`)).text();
  const response = await fetch(`${site.baseUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  const text = await response.text();
  expect(text).toContain("# TYPE fieldhub_api_requests_total counter");
  expect(text).toContain('fieldhub_api_requests_total{route="/v1/devices",method="GET",status="200"} 3');
  expect(text).toContain('fieldhub_api_requests_total{route="(refused before routing)",method="GET",status="401"} 1');
  expect(text).toContain("fieldhub_api_request_duration_seconds_bucket");
});
