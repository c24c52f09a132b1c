/**
 * Acknowledge and resolve (docs/api.md section 3): the one service behind the CLI's
 * `fieldhub alerts` and, later, the admin page. Each change is written with its
 * event (AlertStatusEvent) in one transaction; an invalid transition is refused
 * with `conflict` and changes nothing. The transition is checked on the alert as
 * read and written only if its status is still that one (the store's
 * acknowledge/resolve), so a concurrent change is refused too.
 */
import { CodedError } from "../lib/errors.ts";
import type { AlertRecord, AlertRequestAction } from "../store/contract/alerts.ts";
import { alertStatusChanged } from "../store/contract/event-types.ts";
import type { NewEvent } from "../store/contract/events.ts";
import type { Store } from "../store/index.ts";

export function alertService(store: Pick<Store, "alerts">, now: () => number, onEvent?: () => void) {
  const { alerts } = store;

  async function find(id: string): Promise<AlertRecord> {
    const alert = await alerts.find(id.toLowerCase());
    if (alert === null) throw new CodedError("not_found", `no alert ${id}`);
    return alert;
  }

  function statusEvent(
    alert: AlertRecord,
    status: "acknowledged" | "resolved",
    at: number,
    note: string | null,
  ): NewEvent {
    return { orgId: alert.orgId, occurredAt: at, ...alertStatusChanged(alert, status, at, note) };
  }

  /** Raised when the alert changed between reading it and writing (another process acted on it). */
  const changedMeanwhile = (alert: AlertRecord) =>
    new CodedError("conflict", `alert ${alert.uuid} changed meanwhile; try again`);

  /**
   * On a central, a site's alert has one writer, the site (docs/fleet.md, "Alerts"):
   * the change is asked of the site, which applies it at its next contact and
   * forwards the outcome with its event; the central records no event of its own.
   */
  async function askSite(alert: AlertRecord, action: AlertRequestAction, note: string | null): Promise<AlertRecord> {
    await alerts.request(alert.id, { action, note, at: now() });
    return await find(alert.uuid);
  }

  return {
    async acknowledge(id: string, note: string | null): Promise<AlertRecord> {
      const alert = await find(id);
      if (alert.status === "resolved")
        throw new CodedError("conflict", `alert ${alert.uuid} is resolved; it cannot be acknowledged`);
      if (alert.status === "acknowledged")
        throw new CodedError("conflict", `alert ${alert.uuid} is already acknowledged`);
      if (alert.edgeSite !== null) return await askSite(alert, "acknowledge", note);
      const at = now();
      const change = { id: alert.id, from: alert.status, at, note };
      if (!(await alerts.acknowledge(change, statusEvent(alert, "acknowledged", at, note)))) {
        throw changedMeanwhile(alert);
      }
      onEvent?.();
      return await find(id);
    },
    async resolve(id: string, note: string | null): Promise<AlertRecord> {
      const alert = await find(id);
      if (alert.status === "resolved") throw new CodedError("conflict", `alert ${alert.uuid} is already resolved`);
      if (alert.edgeSite !== null) return await askSite(alert, "resolve", note);
      const at = now();
      const change = { id: alert.id, from: alert.status, at, note };
      if (!(await alerts.resolve(change, statusEvent(alert, "resolved", at, note)))) throw changedMeanwhile(alert);
      onEvent?.();
      return await find(id);
    },
  };
}
