// API keys tab (docs/api.md section 5): create with scopes and expiry, the key shown
// once with a copy button, the list, revoke with confirmation.
import { call } from "./api.ts";
import { $, badge, button, cell, guarded, rowsOf, show, timeText } from "./dom.ts";

interface KeyView {
  id: string;
  prefix: string;
  name: string;
  organization: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  status: string;
}

export async function loadKeys(): Promise<void> {
  const { data } = await call<{ data: KeyView[] }>("GET", "/keys");
  const rows = rowsOf("key-rows");
  for (const key of data) {
    const row = rows.insertRow();
    row.dataset.keyId = key.id;
    cell(row, `${key.prefix}…`);
    cell(row, key.name);
    cell(row, key.organization);
    cell(row, key.scopes.join(", "));
    cell(row, timeText(key.created_at));
    cell(row, timeText(key.last_used_at, "never"));
    cell(row, timeText(key.expires_at, "never"));
    cell(row, badge(key.status, "key-"));
    const actions = cell(row, "");
    if (key.status === "active") {
      actions.append(
        button(
          "Revoke",
          async () => {
            if (!confirm(`Revoke key ${key.prefix}… (${key.name})? Requests with it fail from now on.`)) return;
            await call("POST", `/keys/${key.id}/revoke`);
            await loadKeys();
          },
          "owner-or-admin",
        ),
      );
    }
  }
  if (data.length === 0) cell(rows.insertRow(), "No API keys yet.").colSpan = 9;
}

export function wireKeys(): void {
  const form = $("new-key") as HTMLFormElement;
  form.onsubmit = (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const expires = String(data.get("expires_at") ?? "");
    void guarded(async () => {
      const scopes = data.getAll("scopes");
      if (scopes.length === 0) throw new Error("Choose at least one scope.");
      const created = await call<{ key: string }>("POST", "/keys", {
        organization: data.get("organization"),
        name: data.get("name"),
        scopes,
        expires_at: expires === "" ? undefined : new Date(expires).toISOString(),
      });
      $("created-key-value").textContent = created.key;
      show("created-key", true);
      form.reset();
      await loadKeys();
    });
  };
  $("copy-key").onclick = () => void copy($("created-key-value").textContent ?? "", $("copy-key"));
}

/** Copies to the clipboard; plain-http pages have no clipboard API, so the text is selected instead. */
export async function copy(text: string, trigger: HTMLElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    trigger.textContent = "Copied";
  } catch {
    const code = trigger.previousElementSibling;
    if (code !== null) window.getSelection()?.selectAllChildren(code);
    trigger.textContent = "Selected: press Ctrl+C";
  }
  setTimeout(() => {
    trigger.textContent = "Copy";
  }, 2000);
}
