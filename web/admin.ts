// The admin page's entry: setup, log in, tabs. Each tab lives in its own module;
// all of them talk to /admin/api (docs/admin.md). No framework and nothing loaded
// from outside.
import { loadAlerts, wireAlerts } from "./alerts.ts";
import { call, setCsrfToken, whenSessionEnds } from "./api.ts";
import { wireChart } from "./chart.ts";
import { $, fillCheckboxes, fillSelect, guarded, say, show } from "./dom.ts";
import { detectSites, loadSites, startSitesRefresh } from "./edges.ts";
import { loadEndpoints, refreshPausedBanner, startPausedBanner, wireEndpoints } from "./endpoints.ts";
import { loadGateways, startLiveRefresh, wireGateways } from "./gateways.ts";
import { loadKeys, wireKeys } from "./keys.ts";
import { detectMqtt, loadMqtt, startMqttRefresh } from "./mqtt.ts";
import { detectUplink, loadUplink, startUplinkRefresh } from "./uplink.ts";
import { loadWrites } from "./writes.ts";

interface Session {
  user: { username: string; role: string };
  csrf_token: string;
}

const loaders: Record<string, () => Promise<void>> = {
  gateways: loadGateways,
  alerts: loadAlerts,
  keys: loadKeys,
  endpoints: loadEndpoints,
  writes: loadWrites,
  uplink: loadUplink,
  mqtt: loadMqtt,
  sites: loadSites,
};

function openTab(name: string): void {
  for (const tab of document.querySelectorAll<HTMLElement>(".tab")) tab.hidden = tab.id !== name;
  for (const item of document.querySelectorAll<HTMLButtonElement>("nav button")) {
    item.setAttribute("aria-current", String(item.dataset.tab === name));
  }
  void guarded(loaders[name] ?? loadGateways);
  if (name !== "endpoints") void guarded(refreshPausedBanner);
}

/** Fills the forms' choices (organisations, scopes, event types) from the server. */
async function loadChoices(): Promise<void> {
  const choices = await call<{
    organizations: { key: string; name: string }[];
    scopes: string[];
    event_types: string[];
  }>("GET", "/choices");
  const organizations = choices.organizations.map((org) => ({ value: org.key, label: `${org.name} (${org.key})` }));
  for (const id of ["key-organization", "endpoint-organization"]) fillSelect($(id) as HTMLSelectElement, organizations);
  fillCheckboxes($("key-scopes"), "scopes", choices.scopes, true);
  // Writing reaches equipment: a new key gets it only when ticked on purpose.
  const writeScope = $("key-scopes").querySelector<HTMLInputElement>('input[value="registers:write"]');
  if (writeScope !== null) writeScope.defaultChecked = writeScope.checked = false;
  fillCheckboxes($("endpoint-events"), "events", choices.event_types, false);
}

async function enter(session: Session): Promise<void> {
  setCsrfToken(session.csrf_token);
  $("who").textContent = `${session.user.username} (${session.user.role})`;
  document.body.dataset.role = session.user.role;
  show("logout", true);
  show("login", false);
  show("setup", false);
  show("app", true);
  await guarded(loadChoices);
  await guarded(detectUplink);
  await guarded(detectMqtt);
  await guarded(detectSites);
  openTab("gateways");
}

function wireAccess(): void {
  const login = $("login") as HTMLFormElement;
  login.onsubmit = (event) => {
    event.preventDefault();
    const data = new FormData(login);
    void guarded(async () => {
      const session = await call<Session>("POST", "/login", {
        username: data.get("username"),
        password: data.get("password"),
      });
      login.reset();
      await enter(session);
    });
  };
  const setup = $("setup") as HTMLFormElement;
  setup.onsubmit = (event) => {
    event.preventDefault();
    const data = new FormData(setup);
    void guarded(async () => {
      await call("POST", "/setup", {
        token: data.get("token"),
        username: data.get("username"),
        password: data.get("password"),
      });
      show("setup", false);
      show("login", true);
      say("Owner account created: log in.", "info");
    });
  };
  $("logout").onclick = () =>
    void guarded(async () => {
      await call("POST", "/logout");
      location.reload();
    });
  whenSessionEnds(() => {
    show("app", false);
    show("logout", false);
    $("who").textContent = "";
    show("login", true);
  });
}

wireAccess();
wireKeys();
wireAlerts();
wireEndpoints();
wireGateways();
wireChart();
for (const item of document.querySelectorAll<HTMLButtonElement>("nav button"))
  item.onclick = () => openTab(item.dataset.tab ?? "gateways");
startLiveRefresh();
startUplinkRefresh();
startMqttRefresh();
startSitesRefresh();
startPausedBanner();

// On load: a running session, the setup form, or the login form.
void guarded(async () => {
  try {
    await enter(await call<Session>("GET", "/me"));
    return;
  } catch {
    // not signed in
  }
  const { needed } = await call<{ needed: boolean }>("GET", "/setup");
  show(needed ? "setup" : "login", true);
});
