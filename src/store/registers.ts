/** Registers with their latest values; GET /devices/{id}/registers polls this. */
import type { Store } from "./open.ts";

export type RegisterRow = {
  id: number;
  uuid: string;
  modbusDeviceUuid: string;
  modbusDeviceName: string | null;
  name: string;
  address: number;
  functionCode: number | null;
  dataType: string;
  unit: string | null;
  scaleFactor: number | null;
  isWritable: number;
  description: string | null;
  latestRawValue: number | null;
  latestTs: number | null;
};

const registerSelect = `
  SELECT r.id AS id, r.uuid AS uuid, d.uuid AS modbusDeviceUuid, d.name AS modbusDeviceName,
         r.name AS name, r.address AS address, r.function_code AS functionCode,
         r.data_type AS dataType, r.unit AS unit, r.scale_factor AS scaleFactor,
         r.is_writable AS isWritable, r.description AS description,
         r.latest_raw_value AS latestRawValue, r.latest_ts AS latestTs
    FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id
   WHERE r.gateway_id = ?1 AND r.retired_at IS NULL`;
const registerOrder = " ORDER BY d.position, r.position, r.id";

/**
 * Prepared once per store: the registers endpoint is the one clients poll, so it
 * runs one cached statement and no query builder.
 */
export function registerQueries(store: Store) {
  const all = store.sqlite.prepare<RegisterRow, [number]>(registerSelect + registerOrder);
  const ofDevice = store.sqlite.prepare<RegisterRow, [number, number]>(
    `${registerSelect} AND r.modbus_device_id = ?2${registerOrder}`,
  );
  const idsOfGateway = store.sqlite.prepare<{ id: number; uuid: string }, [number]>(
    "SELECT id, uuid FROM registers WHERE gateway_id = ?1",
  );
  return {
    listRegisters(gatewayId: number, modbusDeviceId?: number): RegisterRow[] {
      return modbusDeviceId === undefined ? all.all(gatewayId) : ofDevice.all(gatewayId, modbusDeviceId);
    },
    /** Every register the gateway ever had (retired ones too: their history is still history). */
    registerIdsOfGateway(gatewayId: number): { id: number; uuid: string }[] {
      return idsOfGateway.all(gatewayId);
    },
  };
}
export type RegisterQueries = ReturnType<typeof registerQueries>;

/** Engineering value (spec section 1): value = raw_value x scale_factor. */
export function scaleValue(raw: number | null, scaleFactor: number | null): number | null {
  return raw === null ? null : scalerFor(scaleFactor)(raw);
}

/**
 * A function applying one scale factor, chosen once per register. Scale factors
 * are nearly always powers of ten: dividing by the exact inverse gives the
 * decimal a person expects (3 x 0.1 reads 0.3, not 0.30000000000000004) without
 * a costly rounding step per value.
 */
export function scalerFor(scaleFactor: number | null): (raw: number) => number {
  if (scaleFactor === null || scaleFactor === 1) return (raw) => raw;
  if (Number.isInteger(scaleFactor)) return (raw) => raw * scaleFactor;
  const inverse = Math.round(1 / scaleFactor);
  if (inverse > 1 && 1 / inverse === scaleFactor && Number.isInteger(Math.log10(inverse)))
    return (raw) => raw / inverse;
  // Any other factor: rounded to 15 significant digits, the precision a double can promise.
  return (raw) => Number((raw * scaleFactor).toPrecision(15));
}
