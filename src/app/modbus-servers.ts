/**
 * The gateways' Modbus TCP servers (docs/polling.md, "The Modbus TCP server"), each
 * in front of its gateway's poller: the read cache the pollers fill, pass-through
 * turns on the poller's channels, quarantine from the health board, and writes in
 * the write audit like the API's (actor `modbus:<client address>`).
 */
import type { FieldhubConfig } from "../config/index.ts";
import type { Clock } from "../lib/clock.ts";
import type { DeviceHealthReader } from "../lib/device-health.ts";
import type { Logger } from "../lib/logger.ts";
import type { MetricsRegistry } from "../lib/metrics.ts";
import type { ModbusServerViewReader } from "../lib/modbus-server-view.ts";
import { scaleValue } from "../lib/register-scaling.ts";
import type { GatewayPoller } from "../modbus/poller.ts";
import type { ReadCache } from "../modbus/read-cache.ts";
import { type ModbusServer, type ServedBus, startModbusServer, type WriteAuditor } from "../modbus-server/index.ts";
import { modbusServerLatency, registerModbusServerMetrics } from "../modbus-server/metrics.ts";
import type { Store } from "../store/index.ts";
import { recordWriteAttempt } from "./register-writes.ts";

export interface ModbusServersOptions {
  config: FieldhubConfig;
  pollers: readonly GatewayPoller[];
  readCache: ReadCache;
  health: DeviceHealthReader;
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  onEvent: () => void;
}

const notSent = { ok: false, kind: "not_sent" } as const;

export function startModbusServers(options: ModbusServersOptions) {
  const { config, readCache, health, store, clock, metrics, onEvent } = options;
  const logger = options.logger.child({ part: "modbus-server" });
  const latency = modbusServerLatency(metrics);
  const scaleFactors = new Map(
    config.inventory.organizations.flatMap((organization) =>
      organization.gateways.flatMap((gateway) =>
        gateway.modbusDevices.flatMap((device) =>
          device.registers.map((register) => [register.id, register.scaleFactor] as const),
        ),
      ),
    ),
  );

  const servers: ModbusServer[] = config.modbusServers.flatMap((serverConfig) => {
    const gateway = config.polling.find((candidate) => candidate.id === serverConfig.gatewayId);
    if (gateway === undefined) return [];
    const poller = options.pollers.find((candidate) => candidate.gatewayId === gateway.id);
    const bus: ServedBus = {
      cached: (deviceId, functionCode, start, count, maxAgeMs) =>
        readCache.lookup(deviceId, functionCode, start, count, clock.monotonic() - maxAgeMs),
      read: (deviceId, functionCode, start, count) =>
        poller?.passThroughRead(deviceId, functionCode, start, count) ?? Promise.resolve(notSent),
      write: (deviceId, functionCode, start, payload) =>
        poller?.passThroughWrite(deviceId, functionCode, start, payload) ?? Promise.resolve(notSent),
      quarantined: (deviceId) => health.device(deviceId).status === "quarantined",
    };
    const audit: WriteAuditor = async (entries) => {
      const stored = (await store.gateways.all()).find((candidate) => candidate.uuid === gateway.id);
      if (stored === undefined) return;
      for (const entry of entries) {
        const target = await store.writes.target(stored.id, entry.registerId);
        if (target === null) continue;
        const scaleFactor = scaleFactors.get(entry.registerId) ?? null;
        await recordWriteAttempt(store, target, gateway.id, {
          orgId: stored.orgId,
          registerId: target.id,
          actor: entry.actor,
          valueBefore: scaleValue(entry.rawBefore, scaleFactor),
          valueAsked: scaleValue(entry.rawAsked, scaleFactor) ?? entry.rawAsked,
          result: entry.result,
          readBack: null,
          detail: entry.detail,
          requestedAt: entry.requestedAt,
          finishedAt: entry.finishedAt,
        });
      }
      onEvent();
    };
    return [
      startModbusServer({
        config: serverConfig,
        gateway,
        bus,
        audit,
        clock,
        logger,
        observeLatency: latency(gateway.serial),
      }),
    ];
  });
  registerModbusServerMetrics(metrics, servers);

  const byGateway = new Map(servers.map((server) => [server.gatewayId, server]));
  return {
    /** A gateway's server as the API shows it (docs/api.md section 2.9.2), or null when it has none. */
    view: ((gatewayId) => byGateway.get(gatewayId.toLowerCase())?.stats() ?? null) satisfies ModbusServerViewReader,
    listening: () => Promise.all(servers.map((server) => server.listening)),
    async stop(): Promise<void> {
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}
