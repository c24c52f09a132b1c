/** Store rows to the JSON shapes of docs/api.md section 2 (ISO 8601 UTC timestamps, snake_case). */
import { isoFromMs, isoOrNull } from "../../lib/clock.ts";
import type { DeviceHealthReader } from "../../lib/device-health.ts";
import { latestStatus } from "../../lib/latest-status.ts";
import type { ModbusServerView } from "../../lib/modbus-server-view.ts";
import { presentAlertCore } from "../../lib/present-alert.ts";
import { scaleValue } from "../../lib/register-scaling.ts";
import type { AlertRecord } from "../../store/contract/alerts.ts";
import type { GatewayRow, ModbusDeviceRow } from "../../store/contract/gateways.ts";
import type { RegisterRow } from "../../store/contract/registers.ts";

export function presentGateway(row: GatewayRow) {
  return {
    id: row.uuid,
    serial: row.serial,
    name: row.name,
    status: row.status,
    firmware_ver: row.firmwareVer,
    ip_eth: row.ipEth,
    ip_wifi: row.ipWifi,
    ip_4g: row.ip4g,
    signal_4g: row.signal4g,
    last_seen: isoOrNull(row.lastSeen),
    created_at: isoFromMs(row.createdAt),
    customer:
      row.customerUuid === null ? null : { id: row.customerUuid, name: row.customerName ?? "", city: row.customerCity },
  };
}

/** A gateway's Modbus TCP server as this process runs it, or null (docs/api.md section 2.5). */
export function presentModbusServer(view: ModbusServerView | null) {
  if (view === null) return null;
  return { port: view.port, clients_connected: view.clientsConnected, requests: { ...view.requests } };
}

/** A Modbus device with its health as this process's pollers see it (docs/api.md section 2.6, device health). */
export function presentModbusDevice(row: ModbusDeviceRow, health: DeviceHealthReader) {
  const seen = health.device(row.uuid);
  return {
    id: row.uuid,
    name: row.name,
    slave_id: row.slaveId,
    protocol: row.protocol,
    ip_address: row.ipAddress,
    port: row.port,
    poll_interval_ms: row.pollIntervalMs,
    template:
      row.templateUuid === null
        ? null
        : { id: row.templateUuid, brand: row.templateBrand ?? "", model: row.templateModel ?? "" },
    health: {
      status: seen.status,
      last_answer_at: isoOrNull(seen.lastAnswerAt),
      last_error: seen.lastError,
      last_error_at: isoOrNull(seen.lastErrorAt),
      registers_set_aside: seen.registersSetAside,
      next_probe_at: isoOrNull(seen.nextProbeAt),
      counters: {
        requests: seen.counters.requests,
        timeouts: seen.counters.timeouts,
        exceptions: seen.counters.exceptions,
        crc_errors: seen.counters.crcErrors,
        framing_errors: seen.counters.framingErrors,
        retries: seen.counters.retries,
        mean_response_ms:
          seen.counters.meanResponseMs === null ? null : Math.round(seen.counters.meanResponseMs * 10) / 10,
      },
    },
  };
}

/**
 * A register with its latest value or text, whether that value is current, and
 * whether its device refuses it (docs/api.md section 2.7). `now`: wall time, ms.
 */
export function presentRegister(row: RegisterRow, health: DeviceHealthReader, now: number) {
  const setAside = health.setAside(row.uuid);
  return {
    id: row.uuid,
    modbus_device_id: row.modbusDeviceUuid,
    modbus_device_name: row.modbusDeviceName,
    name: row.name,
    address: row.address,
    function_code: row.functionCode,
    data_type: row.dataType,
    unit: row.unit,
    scale_factor: row.scaleFactor,
    is_writable: row.isWritable,
    description: row.description,
    latest_value: scaleValue(row.latestRawValue, row.scaleFactor),
    latest_raw_value: row.latestRawValue,
    latest_ts: isoOrNull(row.latestTs),
    latest_text: row.latestText,
    latest_status: latestStatus({
      latestTs: row.latestTs,
      pollIntervalMs: row.pollIntervalMs,
      deviceHealth: health.device(row.modbusDeviceUuid).status,
      setAside: setAside !== null,
      forwarded: row.edgeSite === null ? null : { storageIntervalMs: row.storageIntervalMs },
      now,
    }),
    set_aside:
      setAside === null
        ? null
        : { reason: setAside.reason, since: isoFromMs(setAside.since), retry_at: isoFromMs(setAside.retryAt) },
  };
}

/** An alert after acknowledge or resolve (the admin API's answer): the status fields of the change. */
export function presentAlertStatusChange(alert: AlertRecord) {
  return {
    ...presentAlertCore(alert),
    ack_at: isoOrNull(alert.ackAt),
    resolved_at: isoOrNull(alert.resolvedAt),
    // On a central, a site's alert changes at the site: what was asked of it (docs/fleet.md, "Alerts").
    ...(alert.edgeSite === null ? {} : { site: alert.edgeSite, requested_action: alert.requestedAction }),
  };
}
