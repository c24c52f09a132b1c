/**
 * A gateway's Modbus TCP server (docs/polling.md, "The Modbus TCP server"): other
 * masters read and write the gateway's devices through fieldhub instead of the bus.
 * `app/parts.ts` starts one per gateway with `modbus_server` and hands it the
 * gateway's poller as a `ServedBus`.
 */
import { addressAdmitter } from "../lib/address-networks.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { PollingGateway } from "../modbus/polling-config.ts";
import { createAnswerer } from "./answering.ts";
import { startListener } from "./listener.ts";
import type { ServedBus } from "./served-bus.ts";
import type { ModbusServerConfig } from "./server-config.ts";
import { createServerStats } from "./stats.ts";
import type { WriteAuditor } from "./write-audit.ts";

export type { ServedBus } from "./served-bus.ts";
export type { ModbusServerConfig } from "./server-config.ts";
export type { WriteAuditor } from "./write-audit.ts";

export interface ModbusServerOptions {
  config: ModbusServerConfig;
  gateway: PollingGateway;
  bus: ServedBus;
  audit: WriteAuditor;
  clock: Clock;
  logger: Logger;
  /** Each answer's time, for the latency histogram (metrics.ts). */
  observeLatency?: (seconds: number) => void;
  idleMs?: number;
}

export function startModbusServer(options: ModbusServerOptions) {
  const { config, gateway, clock } = options;
  const logger = options.logger.child({ gateway: gateway.serial, gateway_id: gateway.id, port: config.port });
  const stats = createServerStats(config.port, options.observeLatency);
  const answer = createAnswerer({
    config,
    gateway,
    bus: options.bus,
    audit: options.audit,
    clock,
    logger,
    stats,
  });
  const listener = startListener({
    host: config.host,
    port: config.port,
    maxConnections: config.maxConnections,
    admits: addressAdmitter(config.allow),
    answer,
    stats,
    logger,
    idleMs: options.idleMs,
  });
  return {
    gatewayId: config.gatewayId,
    gatewaySerial: config.gatewaySerial,
    listening: listener.listening,
    stats: stats.view,
    stop: listener.stop,
  };
}
export type ModbusServer = ReturnType<typeof startModbusServer>;
