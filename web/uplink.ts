// Central tab: a site's link to its central (docs/admin.md, "Central"): state,
// lag, last contact and forwarding progress, refreshed every 2 seconds while
// shown. The tab is offered only on a box whose config has an `uplink`.
import type { UplinkView } from "../src/lib/uplink-report.ts";
import { call } from "./api.ts";
import { $, agoText, badge, fact, refreshWhileShown, show, timeText, timeWithAgo } from "./dom.ts";

/** "4 s", "12 min 5 s", "3 h 20 min", "2 days 4 h": a lag at a glance. */
function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  const days = Math.floor(s / 86_400);
  return `${days} ${days === 1 ? "day" : "days"} ${Math.floor((s % 86_400) / 3600)} h`;
}

/** Offers the tab when this box forwards to a central. */
export async function detectUplink(): Promise<void> {
  const view = await call<UplinkView>("GET", "/uplink");
  show("uplink-tab", view.configured);
}

export async function loadUplink(): Promise<void> {
  const view = await call<UplinkView>("GET", "/uplink");
  show("uplink-tab", view.configured);
  const list = $("uplink-facts");
  list.replaceChildren();
  if (!view.configured) {
    fact(list, "Central", "none: this box forwards to no central", "uplink-central");
    return;
  }
  fact(list, "State", badge(view.state, "uplink-"), "uplink-state");
  if (view.catching_up) {
    const since = view.catch_up_since === null ? "" : `, since ${agoText(view.catch_up_since)}`;
    const through =
      view.forwarded_through === null ? "" : `, through ${new Date(view.forwarded_through).toLocaleString()}`;
    fact(
      list,
      "Catching up",
      `${view.catch_up_readings.toLocaleString()} readings sent${since}${through}`,
      "uplink-catching-up",
    );
  }
  if (view.reason !== null) fact(list, "Reason", view.reason, "uplink-reason");
  fact(list, "Central", view.central_url, "uplink-central");
  fact(list, "Organisation / site", `${view.organization ?? "—"} / ${view.site ?? "—"}`, "uplink-site");
  fact(list, "In this state since", timeWithAgo(view.since), "uplink-since");
  fact(list, "Last contact", timeWithAgo(view.last_contact_at), "uplink-last-contact");
  const lag = document.createElement("span");
  lag.textContent = durationText(view.lag_seconds);
  lag.title = `${view.lag_seconds} s: every reading stored before then is at the central`;
  fact(list, "Lag", lag, "uplink-lag");
  fact(list, "Readings at the central (since start)", view.forwarded_readings.toLocaleString(), "uplink-forwarded");
  const receipts = `${view.acknowledged_readings.toLocaleString()}${view.unconfirmed_readings > 0 ? `; ${view.unconfirmed_readings.toLocaleString()} sent, answer lost, not yet confirmed` : ""}`;
  fact(list, "Of those, by receipt", receipts, "uplink-acknowledged");
  fact(list, "Forwarded through", timeText(view.forwarded_through, "nothing yet"), "uplink-forwarded-through");
  fact(list, "Complete through", timeText(view.complete_through, "no complete round yet"), "uplink-complete-through");
}

export function startUplinkRefresh(): void {
  refreshWhileShown("uplink", "uplink-live", loadUplink);
}
