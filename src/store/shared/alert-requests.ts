/** What both engines share of alert requests and forwarded alert events (docs/fleet.md, "Alerts"). */
import type { ForwardedAlertEvent } from "../contract/alerts.ts";

/** An alert's status answers a request when it is where the request leads, or past it. */
export const requestAnsweredSql = `(requested_action = 'acknowledge' AND status IN ('acknowledged', 'resolved'))
   OR (requested_action = 'resolve' AND status = 'resolved')`;

/** Each alert's newest event `seq` in a batch. */
export function lastSeqOfAlerts(events: readonly ForwardedAlertEvent[]): Map<string, number> {
  const last = new Map<string, number>();
  for (const event of events) last.set(event.alertUuid, Math.max(last.get(event.alertUuid) ?? 0, event.seq));
  return last;
}
