// Gateways tab: status and last seen of every gateway; one gateway's Modbus
// devices with their health and their registers' latest values (or text, or why
// the device refuses them), refreshed every 2 seconds while shown; a register's chart.

import { gatewayNames } from "./alerts.ts";
import { call } from "./api.ts";
import { appendLiveValue, closeChart, formatValue, showChart } from "./chart.ts";
import { $, agoText, badge, button, cell, fillSelect, guarded, rowsOf, show, timeText } from "./dom.ts";
import { setValueButton } from "./writes.ts";

interface GatewayView {
  id: string;
  organization: string;
  serial: string;
  name: string;
  status: string;
  last_seen: string | null;
  customer: { name: string } | null;
  modbus_devices: number;
}

interface RegisterView {
  id: string;
  name: string;
  address: number;
  function_code: number | null;
  data_type: string;
  unit: string | null;
  description: string | null;
  latest_value: number | null;
  latest_raw_value: number | null;
  latest_ts: string | null;
  latest_text: string | null;
  /** Whether the latest value is current (docs/api.md section 2.7). */
  latest_status: "ok" | "stale" | "unavailable";
  set_aside: { reason: string; since: string; retry_at: string } | null;
  is_writable: boolean;
  write_min: number | null;
  write_max: number | null;
}

interface DeviceHealthView {
  status: string;
  last_answer_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  registers_set_aside: number;
  next_probe_at: string | null;
  counters: {
    requests: number;
    timeouts: number;
    exceptions: Record<string, number>;
    crc_errors: number;
    framing_errors: number;
    retries: number;
    mean_response_ms: number | null;
  };
}

/** The gateway's Modbus TCP server (docs/polling.md, "The Modbus TCP server"). */
interface ModbusServerView {
  port: number;
  clients_connected: number;
  requests: { cache: number; bus: number; exception: number; refused: number };
}

interface GatewayDetail {
  organization: string;
  writes_enabled: boolean;
  gateway: GatewayView;
  modbus_server: ModbusServerView | null;
  modbus_devices: {
    id: string;
    name: string | null;
    slave_id: number;
    protocol: string;
    ip_address: string | null;
    port: number | null;
    poll_interval_ms: number;
    health: DeviceHealthView;
    registers: RegisterView[];
  }[];
}

const refreshMs = 2000;
let openedGatewayId: string | null = null;
/** Last value shown per register, so a changed value can be marked. */
const shownValues = new Map<string, string>();

export async function loadGateways(): Promise<void> {
  const { data } = await call<{ data: GatewayView[] }>("GET", "/gateways");
  const rows = rowsOf("gateway-rows");
  for (const gateway of data) {
    gatewayNames.set(gateway.id, gateway.name);
    const row = rows.insertRow();
    cell(row, gateway.name);
    cell(row, gateway.serial);
    cell(row, gateway.organization);
    cell(row, gateway.customer?.name ?? "");
    cell(row, badge(gateway.status));
    cell(row, agoText(gateway.last_seen)).title = gateway.last_seen ?? "";
    cell(row, String(gateway.modbus_devices));
    cell(row, "").append(button("Open", () => openGateway(gateway.id)));
  }
  if (data.length === 0) cell(rows.insertRow(), "No gateways: add them to the config file.").colSpan = 8;
  fillSelect(
    $("alert-gateway") as HTMLSelectElement,
    data.map((gateway) => ({ value: gateway.id, label: gateway.name })),
    { value: "", label: "any" },
  );
}

async function openGateway(id: string): Promise<void> {
  if (openedGatewayId !== id) {
    shownValues.clear();
    closeChart();
  }
  openedGatewayId = id;
  await loadGatewayDetail();
  show("gateway-detail", true);
  $("gateway-detail").scrollIntoView({ block: "start" });
}

async function loadGatewayDetail(): Promise<void> {
  if (openedGatewayId === null) return;
  const detail = await call<GatewayDetail>("GET", `/gateways/${openedGatewayId}`);
  const { gateway } = detail;
  $("gateway-title").textContent = `${gateway.name} (${gateway.serial})`;
  $("gateway-facts").replaceChildren(
    badge(gateway.status),
    ` last seen ${agoText(gateway.last_seen)} (`,
    timeText(gateway.last_seen, "never"),
    `) · organisation ${detail.organization}`,
  );
  const server = detail.modbus_server;
  if (server !== null) {
    const { cache, bus, exception, refused } = server.requests;
    $("gateway-facts").append(
      ` · Modbus TCP server on port ${server.port}: ${server.clients_connected} client(s); ` +
        `requests from memory ${cache}, through the bus ${bus}, exceptions ${exception}, refused ${refused}`,
    );
  }
  const devices = $("gateway-devices");
  devices.replaceChildren();
  for (const device of detail.modbus_devices) devices.append(deviceSection(gateway.id, device, detail.writes_enabled));
  if (detail.modbus_devices.length === 0) devices.append("This gateway has no Modbus devices in the config.");
}

function deviceSection(
  gatewayId: string,
  device: GatewayDetail["modbus_devices"][number],
  writesEnabled: boolean,
): HTMLElement {
  const section = document.createElement("section");
  const heading = document.createElement("h4");
  const where =
    device.ip_address === null
      ? `slave ${device.slave_id}`
      : `${device.ip_address}:${device.port ?? 502}, slave ${device.slave_id}`;
  heading.textContent = `${device.name ?? `Slave ${device.slave_id}`} · ${where} · every ${device.poll_interval_ms / 1000} s`;
  const health = healthLine(device.health);
  const table = document.createElement("table");
  table.className = "registers";
  table
    .createTHead()
    .insertRow()
    .append(...["Register", "Value", "Raw", "Updated", ""].map(headerCell));
  const body = table.createTBody();
  for (const register of device.registers) {
    const row = body.insertRow();
    row.dataset.registerId = register.id;
    cell(row, register.name).title = register.description ?? `${register.data_type} at ${register.address}`;
    const value = valueText(register);
    const valueCell = cell(row, value);
    valueCell.className = "value";
    if (register.set_aside !== null) {
      row.classList.add("set-aside");
      valueCell.title = `left out of the poll cycle until ${register.set_aside.retry_at}`;
    }
    const previous = shownValues.get(register.id);
    if (previous !== undefined && previous !== value) valueCell.classList.add("changed");
    shownValues.set(register.id, value);
    cell(row, register.latest_raw_value === null ? "" : String(register.latest_raw_value));
    const updated = cell(row, agoText(register.latest_ts));
    updated.title = register.latest_ts ?? "";
    // A value that is not current says so beside its time, and is shown dimmed: never passed off as fresh.
    if (register.latest_status !== "ok") {
      row.classList.add(`latest-${register.latest_status}`);
      updated.append(" ", badge(register.latest_status, "latest-"));
    }
    const actions = cell(row, "");
    // A string register has no history to chart.
    if (register.data_type !== "string") actions.append(button("Chart", () => showChart(gatewayId, register.id)));
    if (writesEnabled && register.is_writable)
      actions.append(" ", setValueButton(gatewayId, register, loadGatewayDetail));
    appendLiveValue(register.id, register.latest_ts, register.latest_value);
  }
  if (device.registers.length === 0) cell(body.insertRow(), "No registers.").colSpan = 5;
  section.append(heading, health, table);
  return section;
}

/** The device's health as the poller sees it: status, last answer, last error (docs/admin.md). */
function healthLine(health: DeviceHealthView): HTMLElement {
  const line = document.createElement("p");
  line.className = "device-health";
  line.append(badge(health.status, "health-"), ` last answer ${agoText(health.last_answer_at)}`);
  if (health.registers_set_aside > 0) line.append(` · ${health.registers_set_aside} register(s) set aside`);
  if (health.next_probe_at !== null) line.append(" · next probe ", timeText(health.next_probe_at));
  if (health.last_error !== null) {
    const error = document.createElement("span");
    error.className = "last-error";
    error.textContent = ` · last error ${agoText(health.last_error_at)}: ${health.last_error}`;
    line.append(error);
  }
  line.append(countersLine(health.counters));
  return line;
}

/**
 * The device's bus counters since start (docs/admin.md): timeouts or CRC errors on
 * every device of a bus point at the line, on one device at that device.
 */
function countersLine(counters: DeviceHealthView["counters"]): HTMLElement {
  const exceptions = Object.entries(counters.exceptions)
    .map(([code, count]) => `${count} × exception ${code}`)
    .join(", ");
  const parts = [
    `${counters.requests} requests`,
    `${counters.timeouts} timeouts`,
    exceptions === "" ? "no exceptions" : exceptions,
    `${counters.crc_errors} CRC errors`,
    `${counters.framing_errors} framing errors`,
    `${counters.retries} retries`,
  ];
  if (counters.mean_response_ms !== null) parts.push(`mean response ${counters.mean_response_ms} ms`);
  const span = document.createElement("span");
  span.className = "bus-counters";
  span.textContent = ` · since start: ${parts.join(" · ")}`;
  return span;
}

/** What the value column shows: why the device refuses the register, its text, or its value with unit. */
function valueText(register: RegisterView): string {
  if (register.set_aside !== null) return `set aside: ${register.set_aside.reason}`;
  if (register.latest_text !== null) return register.latest_text;
  if (register.latest_value === null) return "—";
  return `${formatValue(register.latest_value)}${register.unit === null ? "" : ` ${register.unit}`}`;
}

function headerCell(text: string): HTMLTableCellElement {
  const th = document.createElement("th");
  th.textContent = text;
  return th;
}

/** Refreshes the gateways tab every 2 s while it is on screen; a failure shows on the live line and retries. */
export function startLiveRefresh(): void {
  const tick = async () => {
    if (!$("gateways").hidden && !$("app").hidden && document.visibilityState === "visible") {
      try {
        await loadGateways();
        if (openedGatewayId !== null) await loadGatewayDetail();
        $("live-status").textContent = `Live: updated ${new Date().toLocaleTimeString()}`;
        $("live-status").className = "";
      } catch (error) {
        $("live-status").textContent =
          `Live updates failing: ${error instanceof Error ? error.message : String(error)}`;
        $("live-status").className = "error";
      }
    }
    setTimeout(() => void tick(), refreshMs);
  };
  setTimeout(() => void tick(), refreshMs);
}

export function wireGateways(): void {
  $("gateway-close").onclick = () => {
    openedGatewayId = null;
    closeChart();
    show("gateway-detail", false);
  };
  $("gateways-refresh").onclick = () => void guarded(loadGateways);
}
