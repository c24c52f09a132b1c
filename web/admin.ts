// The admin page: talks to /admin/api (docs/admin.md) with the session cookie and
// the CSRF token on every change. No framework and nothing loaded from outside.
const api = "/admin/api";
let csrf = "";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const show = (id: string, visible: boolean) => {
  $(id).hidden = !visible;
};

function say(text: string | null): void {
  const message = $("message");
  message.textContent = text ?? "";
  message.hidden = text === null;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${api}${path}`, {
    method,
    credentials: "same-origin",
    headers: { "content-type": "application/json", ...(csrf === "" ? {} : { "x-csrf-token": csrf }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
  if (!response.ok) throw new Error(payload?.detail ?? payload?.title ?? `HTTP ${response.status}`);
  return payload as T;
}

function cell(row: HTMLTableRowElement, text: string): HTMLTableCellElement {
  const td = row.insertCell();
  td.textContent = text;
  return td;
}

function button(label: string, action: () => Promise<void>): HTMLButtonElement {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  element.onclick = () => void guarded(action);
  return element;
}

async function loadKeys(): Promise<void> {
  const { data } = await call<{ data: { id: string; prefix: string; name: string; organization: string; scopes: string[]; created_at: string; expires_at: string | null; status: string }[] }>("GET", "/keys");
  const rows = $("key-rows");
  rows.replaceChildren();
  for (const key of data) {
    const row = (rows as HTMLTableSectionElement).insertRow();
    for (const text of [key.prefix, key.name, key.organization, key.scopes.join(", "), key.created_at, key.expires_at ?? "never", key.status]) cell(row, text);
    const actions = row.insertCell();
    if (key.status === "active") {
      actions.append(
        button("Revoke", async () => {
          if (!confirm(`Revoke key ${key.prefix}… (${key.name})? Requests with it fail from now on.`)) return;
          await call("POST", `/keys/${key.id}/revoke`);
          await loadKeys();
        }),
      );
    }
  }
}

async function loadAlerts(): Promise<void> {
  const status = ($("alert-status") as HTMLSelectElement).value;
  const { data } = await call<{ data: { id: string; severity: string; status: string; message: string; last_triggered_at: string | null }[] }>("GET", `/alerts${status === "" ? "" : `?status=${status}`}`);
  const rows = $("alert-rows");
  rows.replaceChildren();
  for (const alert of data) {
    const row = (rows as HTMLTableSectionElement).insertRow();
    for (const text of [alert.last_triggered_at ?? "", alert.severity, alert.status, alert.message]) cell(row, text);
    const actions = row.insertCell();
    for (const [label, action] of [["Acknowledge", "acknowledge"], ["Resolve", "resolve"]] as const) {
      if (alert.status === "resolved" || (action === "acknowledge" && alert.status === "acknowledged")) continue;
      actions.append(
        button(label, async () => {
          const note = prompt(`${label}: a note (optional)`) ?? undefined;
          await call("POST", `/alerts/${alert.id}/${action}`, { note: note === "" ? undefined : note });
          await loadAlerts();
        }),
      );
    }
  }
}

interface EndpointView {
  id: string;
  organization: string;
  url: string;
  events: string[];
  status: string;
  pause_reason: string | null;
  failed_messages_in_row: number;
}

function showSecret(url: string, secret: string): void {
  $("endpoint-secret-url").textContent = url;
  $("endpoint-secret-value").textContent = secret;
  show("endpoint-secret", true);
}

async function loadEndpoints(): Promise<void> {
  const { data } = await call<{ data: EndpointView[] }>("GET", "/endpoints");
  const rows = $("endpoint-rows");
  rows.replaceChildren();
  for (const endpoint of data) {
    const row = (rows as HTMLTableSectionElement).insertRow();
    const status = endpoint.pause_reason === null ? endpoint.status : `${endpoint.status} (${endpoint.pause_reason})`;
    for (const text of [endpoint.url, endpoint.organization, endpoint.events.join(" ") || "all", status, String(endpoint.failed_messages_in_row)]) cell(row, text);
    const actions = row.insertCell();
    actions.append(
      button("Secret", async () => {
        const { secret } = await call<{ secret: string }>("GET", `/endpoints/${endpoint.id}/secret`);
        showSecret(endpoint.url, secret);
      }),
      button("Rotate secret", async () => {
        if (!confirm("Rotate the signing secret? The old one keeps signing alongside the new one for 24 hours.")) return;
        const { secret } = await call<{ secret: string }>("POST", `/endpoints/${endpoint.id}/rotate-secret`, {});
        showSecret(endpoint.url, secret);
        await loadEndpoints();
      }),
      button("Send test", async () => {
        const { message_id } = await call<{ message_id: string }>("POST", `/endpoints/${endpoint.id}/test`);
        say(`Test message ${message_id} queued.`);
        await loadDeliveries(endpoint);
      }),
      button("Deliveries", () => loadDeliveries(endpoint)),
    );
    if (endpoint.status === "paused") {
      actions.append(
        button("Enable", async () => {
          const discard = confirm("Discard the messages held while paused? OK discards them; Cancel delivers them.");
          const enabled = await call<{ held: number }>("POST", `/endpoints/${endpoint.id}/enable`, { discard_held: discard });
          say(`Enabled; ${enabled.held} held message(s) ${discard ? "discarded" : "to deliver"}.`);
          await loadEndpoints();
        }),
      );
    }
  }
}

async function loadDeliveries(endpoint: EndpointView): Promise<void> {
  const { data } = await call<{ data: { created_at: string; type: string; status: string; attempts: number; last_status_code: number | null; last_error: string | null; next_attempt_at: string | null }[] }>(
    "GET",
    `/endpoints/${endpoint.id}/deliveries?limit=100`,
  );
  $("deliveries-url").textContent = endpoint.url;
  const rows = $("delivery-rows");
  rows.replaceChildren();
  for (const delivery of data) {
    const row = (rows as HTMLTableSectionElement).insertRow();
    const answer = delivery.last_status_code === null ? (delivery.last_error ?? "") : `HTTP ${delivery.last_status_code}`;
    for (const text of [delivery.created_at, delivery.type, delivery.status, String(delivery.attempts), answer, delivery.next_attempt_at ?? ""]) cell(row, text);
  }
  show("deliveries", true);
}

async function guarded(work: () => Promise<void>): Promise<void> {
  try {
    say(null);
    await work();
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
  }
}

function form(id: string): HTMLFormElement {
  return $(id) as HTMLFormElement;
}

async function enter(user: { username: string; role: string }, token: string): Promise<void> {
  csrf = token;
  $("who").textContent = `${user.username} (${user.role})`;
  show("logout", true);
  show("login", false);
  show("setup", false);
  show("app", true);
  await guarded(loadKeys);
}

form("login").onsubmit = (event) => {
  event.preventDefault();
  const data = new FormData(form("login"));
  void guarded(async () => {
    const result = await call<{ user: { username: string; role: string }; csrf_token: string }>("POST", "/login", {
      username: data.get("username"),
      password: data.get("password"),
    });
    await enter(result.user, result.csrf_token);
  });
};

form("setup").onsubmit = (event) => {
  event.preventDefault();
  const data = new FormData(form("setup"));
  void guarded(async () => {
    await call("POST", "/setup", { token: data.get("token"), username: data.get("username"), password: data.get("password") });
    show("setup", false);
    show("login", true);
    say("Owner account created: log in.");
  });
};

form("new-key").onsubmit = (event) => {
  event.preventDefault();
  const data = new FormData(form("new-key"));
  const expires = String(data.get("expires_at") ?? "");
  void guarded(async () => {
    const created = await call<{ key: string }>("POST", "/keys", {
      organization: data.get("organization"),
      name: data.get("name"),
      scopes: data.getAll("scopes"),
      expires_at: expires === "" ? undefined : new Date(expires).toISOString(),
    });
    $("created-key-value").textContent = created.key;
    show("created-key", true);
    await loadKeys();
  });
};

form("new-endpoint").onsubmit = (event) => {
  event.preventDefault();
  const data = new FormData(form("new-endpoint"));
  const description = String(data.get("description") ?? "");
  void guarded(async () => {
    const created = await call<{ endpoint: EndpointView; secret: string }>("POST", "/endpoints", {
      organization: data.get("organization"),
      url: data.get("url"),
      description: description === "" ? undefined : description,
      events: String(data.get("events") ?? "").split(/\s+/).filter((type) => type !== ""),
    });
    showSecret(created.endpoint.url, created.secret);
    await loadEndpoints();
  });
};

$("copy-secret").onclick = () => void navigator.clipboard?.writeText($("endpoint-secret-value").textContent ?? "");
$("copy-key").onclick = () => void navigator.clipboard?.writeText($("created-key-value").textContent ?? "");
$("logout").onclick = () =>
  void guarded(async () => {
    await call("POST", "/logout");
    location.reload();
  });
($("alert-status") as HTMLSelectElement).onchange = () => void guarded(loadAlerts);
for (const button of document.querySelectorAll<HTMLButtonElement>("nav button")) {
  button.onclick = () => {
    for (const tab of document.querySelectorAll<HTMLElement>(".tab")) tab.hidden = tab.id !== button.dataset.tab;
    const loaders: Record<string, () => Promise<void>> = { keys: loadKeys, alerts: loadAlerts, endpoints: loadEndpoints };
    void guarded(loaders[button.dataset.tab ?? "keys"] ?? loadKeys);
  };
}

// On load: a running session, the setup form, or the login form.
void guarded(async () => {
  try {
    const me = await call<{ user: { username: string; role: string }; csrf_token: string }>("GET", "/me");
    await enter(me.user, me.csrf_token);
    return;
  } catch {
    // not logged in
  }
  const { needed } = await call<{ needed: boolean }>("GET", "/setup");
  show(needed ? "setup" : "login", true);
});
