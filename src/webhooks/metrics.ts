/** The webhook dispatcher's Prometheus metrics, read at each scrape. */
import { countedFrom, gaugedFrom, type MetricsRegistry } from "../lib/metrics.ts";
import type { Dispatcher } from "./dispatcher.ts";

export function registerWebhookMetrics(registry: MetricsRegistry, dispatcher: Dispatcher): void {
  const read = (pick: (stats: ReturnType<Dispatcher["stats"]>) => number) => () => [
    { labels: {}, value: pick(dispatcher.stats()) },
  ];
  countedFrom(
    registry,
    "fieldhub_webhook_attempts_total",
    "Delivery attempts",
    [],
    read((stats) => stats.attempts),
  );
  countedFrom(
    registry,
    "fieldhub_webhook_delivered_total",
    "Messages delivered",
    [],
    read((stats) => stats.delivered),
  );
  countedFrom(
    registry,
    "fieldhub_webhook_failed_attempts_total",
    "Attempts that failed",
    [],
    read((stats) => stats.failedAttempts),
  );
  countedFrom(
    registry,
    "fieldhub_webhook_failed_messages_total",
    "Messages that failed every attempt",
    [],
    read((stats) => stats.failedMessages),
  );
  countedFrom(
    registry,
    "fieldhub_webhook_lost_claims_total",
    "Attempts whose message another central process had taken over after its lease ran out",
    [],
    read((stats) => stats.lostClaims),
  );
  countedFrom(
    registry,
    "fieldhub_webhook_endpoints_paused_total",
    "Endpoints paused after 410 Gone or ten failed messages in a row",
    [],
    read((stats) => stats.pausedEndpoints),
  );
  gaugedFrom(registry, "fieldhub_webhook_queue_messages", "Messages due or waiting for a retry", [], async () => [
    { labels: {}, value: await dispatcher.pending() },
  ]);
  gaugedFrom(
    registry,
    "fieldhub_webhook_in_flight",
    "Attempts in progress",
    [],
    read((stats) => stats.inFlight),
  );
}
