// Sites tab, on a central (docs/admin.md, "Sites"): the edge tokens its sites
// present, with organisation, prefix, status, creation and the site's last session
// check, refreshed every 2 seconds while shown. Offered once a token exists; tokens
// are made and revoked with `fieldhub edges` on the machine.
import { call } from "./api.ts";
import { agoText, badge, cell, refreshWhileShown, rowsOf, show, timeText } from "./dom.ts";

interface EdgeTokenView {
  id: string;
  prefix: string;
  name: string;
  organization: string;
  status: "active" | "revoked";
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** Offers the tab when this box has edge tokens, that is, when it is a central. */
export async function detectSites(): Promise<void> {
  const { data } = await call<{ data: EdgeTokenView[] }>("GET", "/edges");
  show("sites-tab", data.length > 0);
}

export async function loadSites(): Promise<void> {
  const { data } = await call<{ data: EdgeTokenView[] }>("GET", "/edges");
  show("sites-tab", data.length > 0);
  const rows = rowsOf("site-rows");
  for (const edge of data) {
    const row = rows.insertRow();
    row.dataset.edgeId = edge.id;
    cell(row, edge.name);
    cell(row, edge.organization);
    cell(row, "").append(Object.assign(document.createElement("code"), { textContent: `${edge.prefix}…` }));
    cell(row, badge(edge.status, "edge-"));
    cell(row, timeText(edge.created_at));
    const contact = cell(row, edge.last_used_at === null ? "never" : agoText(edge.last_used_at));
    if (edge.last_used_at !== null) contact.title = edge.last_used_at;
  }
}

export function startSitesRefresh(): void {
  refreshWhileShown("sites", "sites-live", loadSites);
}
