// Webhook endpoints tab (docs/api.md section 6): add, show and rotate the signing
// secret, send a test and see its result, the delivery log with resend, resending
// a time range, the rate limit, and enabling a paused endpoint; above every tab, a
// banner for each paused endpoint (docs/webhooks.md, "Pausing").
import { call } from "./api.ts";
import { $, badge, button, cell, guarded, rowsOf, say, show, timeText } from "./dom.ts";
import { copy } from "./keys.ts";

interface EndpointView {
  id: string;
  organization: string;
  url: string;
  description: string | null;
  events: string[];
  status: string;
  paused_at: string | null;
  pause_reason: string | null;
  failed_messages_in_row: number;
  rate_limit_per_s: number | null;
}

interface DeliveryView {
  message_id: string;
  created_at: string;
  type: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  attempt_log: { duration_ms: number }[];
}

let shownDeliveries: EndpointView | null = null;
let resendingRange: EndpointView | null = null;

/** How often the paused banner looks again while the page is open. */
const bannerRefreshMs = 5000;

/** Resumes a paused endpoint; its held messages are delivered, or discarded. */
async function resume(endpoint: EndpointView, discard: boolean): Promise<void> {
  const enabled = await call<{ held: number }>("POST", `/endpoints/${endpoint.id}/enable`, { discard_held: discard });
  say(`Resumed ${endpoint.url}; ${enabled.held} held message(s) ${discard ? "discarded" : "to deliver"}.`, "info");
  await loadEndpoints();
}

/** The banner above every tab: each paused endpoint, why and since when, with its resume action. */
function showPaused(endpoints: EndpointView[]): void {
  const banner = $("paused-banner");
  banner.replaceChildren();
  for (const endpoint of endpoints.filter((candidate) => candidate.status === "paused")) {
    const line = document.createElement("p");
    const url = document.createElement("strong");
    url.textContent = endpoint.url;
    line.append(
      "Webhook endpoint ",
      url,
      ` (${endpoint.organization}) is paused since `,
      timeText(endpoint.paused_at, "?"),
      `: ${endpoint.pause_reason ?? "no reason recorded"}. Its messages are held until it is resumed. `,
      button("Resume", () => resume(endpoint, false), "owner-or-admin"),
    );
    banner.append(line);
  }
  banner.hidden = banner.childElementCount === 0;
}

/** Looks for paused endpoints again (each time a tab opens). */
export async function refreshPausedBanner(): Promise<void> {
  showPaused((await call<{ data: EndpointView[] }>("GET", "/endpoints")).data);
}

/**
 * And every few seconds while a live tab (gateways, the landing one, or the
 * endpoints) is shown, as the gateways refresh: other tabs keep the banner of
 * their opening and make no requests of their own in the background.
 */
export function startPausedBanner(): void {
  const tick = async () => {
    const live = !$("gateways").hidden || !$("endpoints").hidden;
    if (live && !$("app").hidden && document.visibilityState === "visible") {
      try {
        await refreshPausedBanner();
      } catch {
        // The next look tries again.
      }
    }
    setTimeout(() => void tick(), bannerRefreshMs);
  };
  setTimeout(() => void tick(), bannerRefreshMs);
}

function openResendRange(endpoint: EndpointView): void {
  resendingRange = endpoint;
  $("resend-range-url").textContent = endpoint.url;
  show("resend-range", true);
}

/** A datetime-local input's value (the browser's time zone) as an RFC 3339 date-time. */
function isoOf(value: FormDataEntryValue | null): string | undefined {
  const text = String(value ?? "");
  return text === "" ? undefined : new Date(text).toISOString();
}

function showSecret(url: string, secret: string): void {
  $("endpoint-secret-url").textContent = url;
  $("endpoint-secret-value").textContent = secret;
  show("endpoint-secret", true);
}

function answerText(delivery: DeliveryView): string {
  if (delivery.last_status_code !== null) return `HTTP ${delivery.last_status_code}`;
  return delivery.last_error ?? (delivery.attempts === 0 ? "not sent yet" : "");
}

export async function loadEndpoints(): Promise<void> {
  const { data } = await call<{ data: EndpointView[] }>("GET", "/endpoints");
  showPaused(data);
  const rows = rowsOf("endpoint-rows");
  for (const endpoint of data) {
    const row = rows.insertRow();
    cell(row, endpoint.url).title = endpoint.description ?? "";
    cell(row, endpoint.organization);
    cell(row, endpoint.events.join(" ") || "all");
    const status = cell(row, badge(endpoint.status));
    if (endpoint.pause_reason !== null) status.append(` ${endpoint.pause_reason}`);
    cell(row, String(endpoint.failed_messages_in_row));
    cell(row, endpoint.rate_limit_per_s === null ? "unlimited" : `${endpoint.rate_limit_per_s}/s`);
    const actions = cell(row, "");
    actions.append(
      button(
        "Secret",
        async () => {
          const { secret } = await call<{ secret: string }>("GET", `/endpoints/${endpoint.id}/secret`);
          showSecret(endpoint.url, secret);
        },
        "owner-or-admin",
      ),
      button(
        "Rotate secret",
        async () => {
          if (!confirm("Rotate the signing secret? The old one keeps signing alongside the new one for 24 hours."))
            return;
          const { secret } = await call<{ secret: string }>("POST", `/endpoints/${endpoint.id}/rotate-secret`, {});
          showSecret(endpoint.url, secret);
          await loadEndpoints();
        },
        "owner-or-admin",
      ),
      button("Send test", () => sendTest(endpoint), "owner-or-admin"),
      button("Deliveries", async () => {
        await loadDeliveries(endpoint);
      }),
      button("Resend range", async () => openResendRange(endpoint), "owner-or-admin"),
      button(
        "Rate limit",
        async () => {
          const answer = prompt(
            "Deliveries a second at most (1 to 10000; empty: unlimited)",
            endpoint.rate_limit_per_s === null ? "" : String(endpoint.rate_limit_per_s),
          );
          if (answer === null) return;
          await call("PATCH", `/endpoints/${endpoint.id}`, {
            rate_limit_per_s: answer.trim() === "" ? null : Number(answer),
          });
          say(`Rate limit of ${endpoint.url}: ${answer.trim() === "" ? "unlimited" : `${answer.trim()}/s`}.`, "info");
          await loadEndpoints();
        },
        "owner-or-admin",
      ),
    );
    if (endpoint.status === "paused") {
      actions.append(
        button(
          "Enable",
          async () => {
            const discard = confirm("Discard the messages held while paused? OK discards them; Cancel delivers them.");
            await resume(endpoint, discard);
          },
          "owner-or-admin",
        ),
      );
    }
  }
  if (data.length === 0) cell(rows.insertRow(), "No webhook endpoints yet.").colSpan = 7;
}

/** Queues a test message, then follows its delivery until it has an outcome (about 15 s at most). */
async function sendTest(endpoint: EndpointView): Promise<void> {
  const { message_id } = await call<{ message_id: string }>("POST", `/endpoints/${endpoint.id}/test`);
  say(`Test message ${message_id} queued…`, "info");
  for (let tries = 0; tries < 30; tries++) {
    const deliveries = await loadDeliveries(endpoint);
    const sent = deliveries.find((delivery) => delivery.message_id === message_id);
    if (sent !== undefined && sent.attempts > 0) {
      const duration = sent.attempt_log.at(-1)?.duration_ms;
      const outcome = `${answerText(sent)}${duration === undefined ? "" : ` in ${duration} ms`}`;
      if (sent.status === "delivered") say(`Test message delivered: ${outcome}.`, "info");
      else say(`Test message not delivered: ${outcome}${sent.next_attempt_at === null ? "" : "; it will be retried"}.`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  say(`Test message ${message_id} is still waiting to be sent; see the delivery log.`, "info");
}

async function loadDeliveries(endpoint: EndpointView): Promise<DeliveryView[]> {
  const { data } = await call<{ data: DeliveryView[] }>("GET", `/endpoints/${endpoint.id}/deliveries?limit=100`);
  shownDeliveries = endpoint;
  $("deliveries-url").textContent = endpoint.url;
  const rows = rowsOf("delivery-rows");
  for (const delivery of data) {
    const row = rows.insertRow();
    cell(row, timeText(delivery.created_at));
    cell(row, delivery.type);
    cell(row, badge(delivery.status));
    cell(row, String(delivery.attempts));
    cell(row, answerText(delivery));
    const last = delivery.attempt_log.at(-1);
    cell(row, last === undefined ? "" : `${last.duration_ms} ms`);
    cell(row, timeText(delivery.next_attempt_at));
    cell(row, "").append(
      button(
        "Resend",
        async () => {
          await call("POST", `/endpoints/${endpoint.id}/resend`, { message_id: delivery.message_id });
          say(`Message ${delivery.message_id} queued again.`, "info");
          await loadDeliveries(endpoint);
        },
        "owner-or-admin",
      ),
    );
  }
  if (data.length === 0) cell(rows.insertRow(), "Nothing delivered to this endpoint yet.").colSpan = 8;
  show("deliveries", true);
  return data;
}

export function wireEndpoints(): void {
  const form = $("new-endpoint") as HTMLFormElement;
  form.onsubmit = (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const description = String(data.get("description") ?? "");
    const rateLimit = String(data.get("rate_limit_per_s") ?? "");
    void guarded(async () => {
      const created = await call<{ endpoint: EndpointView; secret: string }>("POST", "/endpoints", {
        organization: data.get("organization"),
        url: data.get("url"),
        description: description === "" ? undefined : description,
        events: data.getAll("events").map(String),
        rate_limit_per_s: rateLimit === "" ? null : Number(rateLimit),
      });
      showSecret(created.endpoint.url, created.secret);
      form.reset();
      await loadEndpoints();
    });
  };
  const range = $("resend-range") as HTMLFormElement;
  range.onsubmit = (event) => {
    event.preventDefault();
    const data = new FormData(range);
    void guarded(async () => {
      const endpoint = resendingRange;
      if (endpoint === null) return;
      const resent = await call<{ queued: number; held: boolean }>("POST", `/endpoints/${endpoint.id}/resend-range`, {
        since: isoOf(data.get("since")),
        until: isoOf(data.get("until")),
        status: data.get("status"),
      });
      say(
        `${resent.queued} message(s) queued again for ${endpoint.url} with their webhook-ids` +
          `${resent.held ? "; held while the endpoint is paused" : ""}.`,
        "info",
      );
      await loadDeliveries(endpoint);
    });
  };
  $("resend-range-close").onclick = () => show("resend-range", false);
  $("copy-secret").onclick = () => void copy($("endpoint-secret-value").textContent ?? "", $("copy-secret"));
  $("refresh-deliveries").onclick = () =>
    void guarded(async () => {
      if (shownDeliveries !== null) await loadDeliveries(shownDeliveries);
    });
}
