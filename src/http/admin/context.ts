/** What every resource of the admin API (docs/admin.md) is built from, and its path prefix. */
import type { Clock } from "../../lib/clock.ts";
import type { DeviceHealthReader } from "../../lib/device-health.ts";
import type { ErrorCode } from "../../lib/errors.ts";
import type { ModbusServerViewReader } from "../../lib/modbus-server-view.ts";
import type { MqttView } from "../../lib/mqtt-report.ts";
import type { RegisterWriter } from "../../lib/register-write.ts";
import type { UplinkView } from "../../lib/uplink-report.ts";
import type { AdminSession } from "../../store/contract/admin.ts";
import type { Store } from "../../store/index.ts";

export const adminPrefix = "/admin/api";

export interface AdminDeps {
  store: Store;
  clock: Clock;
  /** Each Modbus device's health as the pollers of this process see it. */
  deviceHealth: DeviceHealthReader;
  /** Each gateway's Modbus TCP server as this process runs it; absent: none runs. */
  modbusServerView?: ModbusServerViewReader;
  /** A problem+json response carrying the request's id and headers (plus `headers`). */
  problem(request: Request, code: ErrorCode, detail?: string, headers?: Record<string, string>): Response;
  /** Called after a change that recorded an event (wakes webhook delivery). */
  onEvent?: () => void;
  /** Register writes through the pollers; absent: nothing can be written. */
  writeRegister?: RegisterWriter;
  /** The site's link to its central (docs/fleet.md); absent: this box forwards to none. */
  uplinkView?: () => UplinkView;
  /** The link to the MQTT broker (docs/mqtt.md); absent: this box publishes to none. */
  mqttView?: () => Promise<MqttView>;
  /** Login attempts per client address per minute (default 10). */
  loginLimitPerMinute?: number;
}

export interface AdminContext extends AdminDeps {
  now(): number;
  /** The session the router's check found for this request (`unauthorized` if none). */
  sessionOf(request: Request): AdminSession;
}
