/**
 * Register writes on PostgreSQL, as ../sqlite/writes.ts: the register a write targets, and
 * the audit of every attempt, stored with its `register.written` event in one
 * transaction (event-store.ts, `recordEventIn`: the event and its deliveries); a
 * device's write through the Modbus TCP server by its device and request.
 */
import { randomUuid } from "../../lib/ids.ts";
import type { NewEvent } from "../contract/events.ts";
import type { DeviceWriteAttempt, WriteAttempt, WriteRecord, WriteStore, WriteTarget } from "../contract/writes.ts";
import { type StoredWriteRow, writeRecordOf } from "../shared/write-rows.ts";
import type { Sql } from "./connection.ts";
import { recordEventIn } from "./event-store.ts";
import { firstOf, rowsOf } from "./rows.ts";

export function postgresWriteStore(sql: Sql): WriteStore {
  function target(gatewayId: number, registerUuid: string): Promise<WriteTarget | null> {
    return firstOf(sql`
      SELECT r.id, r.uuid, r.name, r.unit, d.uuid AS "modbusDeviceUuid", d.name AS "modbusDeviceName",
             g.serial AS "gatewaySerial", g.name AS "gatewayName", r.data_type AS "dataType",
             r.scale_factor AS "scaleFactor", r.is_writable AS "isWritable", r.write_min AS "writeMin",
             r.write_max AS "writeMax"
        FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id JOIN gateways g ON g.id = r.gateway_id
       WHERE r.gateway_id = ${gatewayId} AND r.uuid = ${registerUuid.toLowerCase()} AND r.retired_at IS NULL`);
  }

  function record(attempt: WriteAttempt, event: (id: string) => NewEvent): Promise<string> {
    return sql.begin(async (tx) => {
      const id = randomUuid();
      await tx`
        INSERT INTO register_writes (uuid, org_id, register_id, actor, value_before, value_asked, result, read_back,
                                     detail, requested_at, finished_at)
        VALUES (${id}, ${attempt.orgId}, ${attempt.registerId}, ${attempt.actor}, ${attempt.valueBefore}::float8,
                ${attempt.valueAsked}::float8, ${attempt.result}, ${attempt.readBack}::float8, ${attempt.detail},
                ${attempt.requestedAt}, ${attempt.finishedAt})`;
      await recordEventIn(tx, event(id));
      return id;
    });
  }

  async function recordDeviceWrite(attempt: DeviceWriteAttempt): Promise<string> {
    const id = randomUuid();
    const { functionCode, address, values } = attempt.request;
    await sql`
      INSERT INTO register_writes (uuid, org_id, modbus_device_id, actor, result, detail, requested_at, finished_at,
                                   function_code, address, values_written)
      VALUES (${id}, ${attempt.orgId}, ${attempt.modbusDeviceId}, ${attempt.actor}, ${attempt.result},
              ${attempt.detail}, ${attempt.requestedAt}, ${attempt.finishedAt}, ${functionCode}, ${address},
              ${JSON.stringify(values)})`;
    return id;
  }

  async function settleReadBack(id: string, readBack: number | null, detail: string): Promise<void> {
    await sql`UPDATE register_writes SET read_back = ${readBack}::float8, detail = ${detail} WHERE uuid = ${id}`;
  }

  // A register's write reaches its device through the register; a device's write names it.
  async function list(filter: { orgId?: number; limit: number }): Promise<WriteRecord[]> {
    const orgId = filter.orgId ?? null;
    const rows = await rowsOf<StoredWriteRow>(sql`
      SELECT w.uuid AS id, o.key AS organization, g.serial AS "gatewaySerial", d.uuid AS "modbusDeviceId",
             d.name AS "modbusDeviceName", r.uuid AS "registerId", r.name AS "registerName", w.actor,
             w.value_before AS "valueBefore", w.value_asked AS "valueAsked", w.result, w.read_back AS "readBack",
             w.detail, w.requested_at::float8 AS "requestedAt", w.finished_at::float8 AS "finishedAt",
             w.function_code AS "functionCode", w.address, w.values_written AS "valuesWritten"
        FROM register_writes w JOIN organizations o ON o.id = w.org_id
        LEFT JOIN registers r ON r.id = w.register_id
        JOIN modbus_devices d ON d.id = COALESCE(w.modbus_device_id, r.modbus_device_id)
        JOIN gateways g ON g.id = d.gateway_id
       WHERE ${orgId}::int IS NULL OR w.org_id = ${orgId}::int
       ORDER BY w.id DESC LIMIT ${filter.limit}`);
    return rows.map(writeRecordOf);
  }

  async function deleteOlderThan(cutoff: number, maxRows: number): Promise<number> {
    const deleted = await rowsOf(sql`
      DELETE FROM register_writes WHERE id IN
        (SELECT id FROM register_writes WHERE requested_at < ${cutoff} ORDER BY id LIMIT ${maxRows})
      RETURNING id`);
    return deleted.length;
  }

  return { target, record, recordDeviceWrite, settleReadBack, list, deleteOlderThan };
}
