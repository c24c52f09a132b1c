// Register writes: the audit of every attempt, and the set-value action
// of a writable register in the gateway view (owners and admins; a bounds check and
// a confirmation before anything reaches the equipment).
import { call } from "./api.ts";
import { button, cell, rowsOf, say, timeText } from "./dom.ts";

interface WriteView {
  organization: string;
  gateway_serial: string;
  modbus_device_name: string | null;
  modbus_device_id: string;
  /** null for a write through the Modbus TCP server that covers no register whole; `request` says what was sent. */
  register_name: string | null;
  actor: string;
  value_before: number | null;
  value_asked: number | null;
  request: { function_code: number; address: number; count: number; values: number[] } | null;
  result: string;
  read_back: number | null;
  detail: string | null;
  requested_at: string;
}

export interface WritableRegister {
  id: string;
  name: string;
  unit: string | null;
  is_writable: boolean;
  write_min: number | null;
  write_max: number | null;
}

export async function loadWrites(): Promise<void> {
  const { data } = await call<{ data: WriteView[] }>("GET", "/writes");
  const rows = rowsOf("write-rows");
  for (const write of data) {
    const row = rows.insertRow();
    cell(row, "").append(timeText(write.requested_at));
    const { request } = write;
    if (request === null) {
      cell(row, `${write.gateway_serial} · ${write.register_name ?? "—"}`);
      cell(row, write.actor);
      cell(row, `${write.value_before ?? "—"} → ${write.value_asked ?? "—"}`);
    } else {
      const device = write.modbus_device_name ?? write.modbus_device_id;
      const where = `function code ${request.function_code} at ${request.address} (${request.count})`;
      cell(row, `${write.gateway_serial} · ${device} · ${where}`);
      cell(row, write.actor);
      cell(row, `→ [${request.values.join(", ")}]`);
    }
    cell(row, write.result);
    cell(row, write.read_back === null ? "" : String(write.read_back));
    cell(row, write.detail ?? "");
  }
  if (data.length === 0) cell(rows.insertRow(), "No register writes yet.").colSpan = 7;
}

/** The "Set…" button of a writable register: asks the value, shows the bounds, confirms, writes. */
export function setValueButton(
  gatewayId: string,
  register: WritableRegister,
  afterWrite: () => Promise<void>,
): HTMLButtonElement {
  const unit = register.unit === null ? "" : ` ${register.unit}`;
  const bounds = `${register.write_min ?? "?"} to ${register.write_max ?? "?"}${unit}`;
  const element = button(
    "Set…",
    async () => {
      const answer = prompt(`New value for ${register.name} (${bounds}):`);
      if (answer === null || answer.trim() === "") return;
      const value = Number(answer);
      if (!Number.isFinite(value)) throw new Error(`"${answer}" is not a number.`);
      if (
        (register.write_min !== null && value < register.write_min) ||
        (register.write_max !== null && value > register.write_max)
      ) {
        throw new Error(`${value} is outside ${bounds}.`);
      }
      if (!confirm(`Write ${value}${unit} to ${register.name}? This changes the equipment.`)) return;
      const result = await call<{ read_back: number | null }>(
        "PUT",
        `/gateways/${gatewayId}/registers/${register.id}`,
        { value },
      );
      say(`${register.name} is now ${result.read_back}${unit} (read back from the device).`, "info");
      await afterWrite();
    },
    "owner-or-admin",
  );
  element.title = `Write a value (${bounds})`;
  element.dataset.writeRegister = register.name;
  return element;
}
