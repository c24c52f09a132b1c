/** The JSON shape of a register write's audit record, shared by the admin API and `fieldhub writes list --json`. */
import type { WriteRecord } from "../../store/contract/writes.ts";

/**
 * One audited write (GET /admin/api/writes, `fieldhub writes list --json`). A write
 * through the Modbus TCP server that covers no register whole has `register_id`,
 * `register_name` and `value_asked` null and its `request` as sent (docs/polling.md);
 * a register's write has `request` null.
 */
export function presentWrite(row: WriteRecord) {
  return {
    id: row.id,
    organization: row.organization,
    gateway_serial: row.gatewaySerial,
    modbus_device_id: row.modbusDeviceId,
    modbus_device_name: row.modbusDeviceName,
    register_id: row.registerId,
    register_name: row.registerName,
    actor: row.actor,
    value_before: row.valueBefore,
    value_asked: row.valueAsked,
    request:
      row.request === null
        ? null
        : {
            function_code: row.request.functionCode,
            address: row.request.address,
            count: row.request.values.length,
            values: row.request.values,
          },
    result: row.result,
    read_back: row.readBack,
    detail: row.detail,
    requested_at: new Date(row.requestedAt).toISOString(),
    finished_at: new Date(row.finishedAt).toISOString(),
  };
}
