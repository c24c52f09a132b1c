/** The JSON shape of a register write's audit record, shared by the admin API and `fieldhub writes list --json`. */
import type { WriteRecord } from "../../store/contract/writes.ts";

/** One audited write (GET /admin/api/writes, `fieldhub writes list --json`). */
export function presentWrite(row: WriteRecord) {
  return {
    id: row.id,
    organization: row.organization,
    gateway_serial: row.gatewaySerial,
    register_id: row.registerId,
    register_name: row.registerName,
    actor: row.actor,
    value_before: row.valueBefore,
    value_asked: row.valueAsked,
    result: row.result,
    read_back: row.readBack,
    detail: row.detail,
    requested_at: new Date(row.requestedAt).toISOString(),
    finished_at: new Date(row.finishedAt).toISOString(),
  };
}
