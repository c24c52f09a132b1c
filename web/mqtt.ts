// MQTT tab: the link to the broker (docs/admin.md, "MQTT"; docs/mqtt.md, "Watching
// the link"): state, since when, the last error, what was published and what
// waits, refreshed every 2 seconds while shown. The tab is offered only on a box
// whose config has `mqtt`.
import type { MqttView } from "../src/lib/mqtt-report.ts";
import { call } from "./api.ts";
import { $, badge, fact, refreshWhileShown, show, timeWithAgo } from "./dom.ts";

/** Offers the tab when this box publishes to a broker. */
export async function detectMqtt(): Promise<void> {
  const view = await call<MqttView>("GET", "/mqtt");
  show("mqtt-tab", view.configured);
}

export async function loadMqtt(): Promise<void> {
  const view = await call<MqttView>("GET", "/mqtt");
  show("mqtt-tab", view.configured);
  const list = $("mqtt-facts");
  list.replaceChildren();
  if (!view.configured) {
    fact(list, "Broker", "none: this box publishes to no MQTT broker", "mqtt-broker");
    return;
  }
  fact(list, "State", badge(view.state, "mqtt-"), "mqtt-state");
  if (view.reason !== null) fact(list, "Reason", view.reason, "mqtt-reason");
  fact(list, "Broker", view.broker_url, "mqtt-broker");
  fact(list, "In this state since", timeWithAgo(view.since), "mqtt-since");
  fact(list, "Last connected", timeWithAgo(view.connected_at), "mqtt-connected-at");
  const error = document.createElement("span");
  if (view.last_error === null) error.textContent = "none";
  else error.append(view.last_error, " — ", timeWithAgo(view.last_error_at));
  fact(list, "Last error", error, "mqtt-last-error");
  fact(list, "Values published (since start)", view.values_published.toLocaleString(), "mqtt-values-published");
  fact(list, "Values waiting for the broker", view.values_waiting.toLocaleString(), "mqtt-values-waiting");
  fact(list, "Events published (since start)", view.events_published.toLocaleString(), "mqtt-events-published");
  const waiting = view.events_waiting >= 100_000 ? "100,000 or more" : view.events_waiting.toLocaleString();
  fact(
    list,
    "Events waiting (outbox position)",
    `${waiting} (after event ${view.events_position})`,
    "mqtt-events-waiting",
  );
}

export function startMqttRefresh(): void {
  refreshWhileShown("mqtt", "mqtt-live", loadMqtt);
}
