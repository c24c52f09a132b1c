// Alerts tab (docs/api.md section 3): filters by status, severity and gateway;
// acknowledge and resolve with a note.
import { call } from "./api.ts";
import { $, askForNote, badge, button, cell, guarded, rowsOf, say, timeText } from "./dom.ts";

interface AlertView {
  id: string;
  organization: string;
  device_id: string | null;
  severity: string;
  status: string;
  message: string;
  value: number | null;
  last_triggered_at: string | null;
  ack_note: string | null;
  resolve_note: string | null;
}

/** Gateway names by id, for the gateway column (filled by the gateways tab). */
export const gatewayNames = new Map<string, string>();

const select = (id: string) => $(id) as HTMLSelectElement;

export async function loadAlerts(): Promise<void> {
  const query = new URLSearchParams();
  for (const [name, id] of [
    ["status", "alert-status"],
    ["severity", "alert-severity"],
    ["device_id", "alert-gateway"],
  ]) {
    const value = select(id as string).value;
    if (value !== "") query.set(name as string, value);
  }
  const text = query.toString();
  const { data, meta } = await call<{ data: AlertView[]; meta: { total: number } }>(
    "GET",
    `/alerts${text === "" ? "" : `?${text}`}`,
  );
  const rows = rowsOf("alert-rows");
  for (const alert of data) {
    const row = rows.insertRow();
    row.dataset.alertId = alert.id;
    cell(row, timeText(alert.last_triggered_at));
    cell(row, alert.device_id === null ? "" : (gatewayNames.get(alert.device_id) ?? alert.device_id));
    cell(row, badge(alert.severity));
    cell(row, badge(alert.status));
    cell(row, alert.message);
    cell(row, [alert.ack_note, alert.resolve_note].filter((note) => note !== null && note !== "").join(" / "));
    const actions = cell(row, "");
    for (const [label, action] of [
      ["Acknowledge", "acknowledge"],
      ["Resolve", "resolve"],
    ] as const) {
      if (alert.status === "resolved" || (action === "acknowledge" && alert.status === "acknowledged")) continue;
      actions.append(
        button(
          label,
          async () => {
            const note = await askForNote(`${label}: ${alert.message}`);
            if (note === null) return;
            const changed = (await call("POST", `/alerts/${alert.id}/${action}`, {
              note: note === "" ? undefined : note,
            })) as { site?: string };
            // On a central, a site's alert is changed by its site, at its next contact (docs/fleet.md, "Alerts").
            say(
              changed.site === undefined
                ? `Alert ${action === "acknowledge" ? "acknowledged" : "resolved"}.`
                : `Asked of site "${changed.site}": applied at its next contact.`,
              "info",
            );
            await loadAlerts();
          },
          "owner-or-admin",
        ),
      );
    }
  }
  if (data.length === 0) cell(rows.insertRow(), "No alerts match.").colSpan = 7;
  $("alert-count").textContent = `${data.length} shown of ${meta.total}`;
}

export function wireAlerts(): void {
  for (const id of ["alert-status", "alert-severity", "alert-gateway"])
    select(id).onchange = () => void guarded(loadAlerts);
}
