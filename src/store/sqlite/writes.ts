/**
 * Register writes: the register a write targets, and the audit of every
 * attempt with its `register.written` event. Values are in engineering units. A
 * device's write through the Modbus TCP server is stored by its device and request.
 */
import { randomUuid } from "../../lib/ids.ts";
import type { NewEvent } from "../contract/events.ts";
import type { DeviceWriteAttempt, WriteAttempt, WriteRecord, WriteStore, WriteTarget } from "../contract/writes.ts";
import { type StoredWriteRow, writeRecordOf } from "../shared/write-rows.ts";
import type { SqliteConnection } from "./connection.ts";
import type { EventRecorder } from "./events.ts";
import { resolvedOperations } from "./resolved-operations.ts";

export function sqliteWriteStore({ sqlite }: SqliteConnection, recordEvent: EventRecorder): WriteStore {
  const target = sqlite.prepare<Omit<WriteTarget, "isWritable"> & { isWritable: number }, [number, string]>(
    `SELECT r.id AS id, r.uuid AS uuid, r.name AS name, r.unit AS unit, d.uuid AS modbusDeviceUuid,
            d.name AS modbusDeviceName, g.serial AS gatewaySerial, g.name AS gatewayName, r.data_type AS dataType,
            r.scale_factor AS scaleFactor, r.is_writable AS isWritable, r.write_min AS writeMin, r.write_max AS writeMax
       FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id JOIN gateways g ON g.id = r.gateway_id
      WHERE r.gateway_id = ?1 AND r.uuid = ?2 AND r.retired_at IS NULL`,
  );
  const insert = sqlite.prepare<
    never,
    [string, number, number, string, number | null, number, string, number | null, string | null, number, number]
  >(
    `INSERT INTO register_writes (uuid, org_id, register_id, actor, value_before, value_asked, result, read_back,
                                  detail, requested_at, finished_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)`,
  );
  const settle = sqlite.prepare<never, [string, number | null, string]>(
    "UPDATE register_writes SET read_back = ?2, detail = ?3 WHERE uuid = ?1",
  );
  const insertDeviceWrite = sqlite.prepare<
    never,
    [string, number, number, string, string, string | null, number, number, number, number, string]
  >(
    `INSERT INTO register_writes (uuid, org_id, modbus_device_id, actor, result, detail, requested_at, finished_at,
                                  function_code, address, values_written)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)`,
  );
  // A register's write reaches its device through the register; a device's write names it.
  const listSql = `SELECT w.uuid AS id, o.key AS organization, g.serial AS gatewaySerial, d.uuid AS modbusDeviceId,
            d.name AS modbusDeviceName, r.uuid AS registerId, r.name AS registerName, w.actor AS actor,
            w.value_before AS valueBefore, w.value_asked AS valueAsked, w.result AS result, w.read_back AS readBack,
            w.detail AS detail, w.requested_at AS requestedAt, w.finished_at AS finishedAt,
            w.function_code AS functionCode, w.address AS address, w.values_written AS valuesWritten
       FROM register_writes w JOIN organizations o ON o.id = w.org_id
       LEFT JOIN registers r ON r.id = w.register_id
       JOIN modbus_devices d ON d.id = COALESCE(w.modbus_device_id, r.modbus_device_id)
       JOIN gateways g ON g.id = d.gateway_id`;
  const listAll = sqlite.prepare<StoredWriteRow, [number]>(`${listSql} ORDER BY w.id DESC LIMIT ?1`);
  const listOrg = sqlite.prepare<StoredWriteRow, [number, number]>(
    `${listSql} WHERE w.org_id = ?2 ORDER BY w.id DESC LIMIT ?1`,
  );
  const prune = sqlite.prepare<never, [number, number]>(
    `DELETE FROM register_writes WHERE id IN
       (SELECT id FROM register_writes WHERE requested_at < ?1 ORDER BY id LIMIT ?2)`,
  );
  const record = sqlite.transaction((attempt: WriteAttempt, event: (id: string) => NewEvent) => {
    const id = randomUuid();
    insert.run(
      id,
      attempt.orgId,
      attempt.registerId,
      attempt.actor,
      attempt.valueBefore,
      attempt.valueAsked,
      attempt.result,
      attempt.readBack,
      attempt.detail,
      attempt.requestedAt,
      attempt.finishedAt,
    );
    recordEvent(event(id));
    return id;
  });
  return resolvedOperations<WriteStore>({
    target: (gatewayId, registerUuid) => {
      const row = target.get(gatewayId, registerUuid.toLowerCase());
      // is_writable is an integer column (0 or 1) on SQLite.
      return row === null ? null : { ...row, isWritable: row.isWritable === 1 };
    },
    record: (attempt, event) => record(attempt, event),
    recordDeviceWrite: (attempt: DeviceWriteAttempt) => {
      const id = randomUuid();
      const { functionCode, address, values } = attempt.request;
      insertDeviceWrite.run(
        id,
        attempt.orgId,
        attempt.modbusDeviceId,
        attempt.actor,
        attempt.result,
        attempt.detail,
        attempt.requestedAt,
        attempt.finishedAt,
        functionCode,
        address,
        JSON.stringify(values),
      );
      return id;
    },
    settleReadBack: (id, readBack, detail) => {
      settle.run(id, readBack, detail);
    },
    list: ({ orgId, limit }): WriteRecord[] =>
      (orgId === undefined ? listAll.all(limit) : listOrg.all(limit, orgId)).map(writeRecordOf),
    deleteOlderThan: (cutoff, maxRows) => prune.run(cutoff, maxRows).changes,
  });
}
