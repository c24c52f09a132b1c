/**
 * The gateways' Modbus TCP servers (docs/polling.md, "The Modbus TCP server"), each
 * in front of its gateway's poller: the read cache the pollers fill, pass-through
 * turns on the poller's channels, quarantine from the health board, and writes in
 * the write audit like the API's (actor `modbus:<client address>`); a write that
 * covers no register whole by its device and request.
 */
import type { FieldhubConfig } from "../config/index.ts";
import type { Clock } from "../lib/clock.ts";
import type { DeviceHealthReader } from "../lib/device-health.ts";
import type { Logger } from "../lib/logger.ts";
import type { MetricsRegistry } from "../lib/metrics.ts";
import type { ModbusServerViewReader } from "../lib/modbus-server-view.ts";
import { scaleValue } from "../lib/register-scaling.ts";
import type { GatewayPoller } from "../modbus/poller.ts";
import type { PollingGateway } from "../modbus/polling-config.ts";
import type { ReadCache } from "../modbus/read-cache.ts";
import { type ModbusServer, type ServedBus, startModbusServer, type WriteAuditor } from "../modbus-server/index.ts";
import { modbusServerLatency, registerModbusServerMetrics } from "../modbus-server/metrics.ts";
import type { ModbusServerConfig } from "../modbus-server/server-config.ts";
import type { Store } from "../store/index.ts";
import { recordWriteAttempt } from "./register-writes.ts";

export interface ModbusServersOptions {
  config: Pick<FieldhubConfig, "modbusServers" | "polling" | "inventory">;
  /** The running pollers (a list app/parts.ts keeps current across reloads); each request finds its gateway's. */
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
  const { readCache, health, store, clock, metrics, onEvent } = options;
  const logger = options.logger.child({ part: "modbus-server" });
  const latency = modbusServerLatency(metrics);
  const scaleFactorsOf = (config: ModbusServersOptions["config"]) =>
    new Map(
      config.inventory.organizations.flatMap((organization) =>
        organization.gateways.flatMap((gateway) =>
          gateway.modbusDevices.flatMap((device) =>
            device.registers.map((register) => [register.id, register.scaleFactor] as const),
          ),
        ),
      ),
    );
  let scaleFactors = scaleFactorsOf(options.config);
  const pollerOf = (gatewayId: string) => options.pollers.find((candidate) => candidate.gatewayId === gatewayId);

  function start(serverConfig: ModbusServerConfig, polling: readonly PollingGateway[]): ModbusServer[] {
    const gateway = polling.find((candidate) => candidate.id === serverConfig.gatewayId);
    if (gateway === undefined) return [];
    const bus: ServedBus = {
      cached: (deviceId, functionCode, start, count, maxAgeMs) =>
        readCache.lookup(deviceId, functionCode, start, count, clock.monotonic() - maxAgeMs),
      read: (deviceId, functionCode, start, count) =>
        pollerOf(gateway.id)?.passThroughRead(deviceId, functionCode, start, count) ?? Promise.resolve(notSent),
      write: (deviceId, functionCode, start, payload) =>
        pollerOf(gateway.id)?.passThroughWrite(deviceId, functionCode, start, payload) ?? Promise.resolve(notSent),
      quarantined: (deviceId) => health.device(deviceId).status === "quarantined",
    };
    const audit: WriteAuditor = async (write) => {
      const stored = (await store.gateways.all()).find((candidate) => candidate.uuid === gateway.id);
      if (stored === undefined) return;
      const { actor, result, detail, requestedAt, finishedAt } = write;
      const outcome = { result, detail, requestedAt, finishedAt };
      if (write.beyondRegisters) {
        // Addresses no register names (docs/polling.md): the device and the request as sent, and no event.
        const modbusDeviceId = await store.gateways.findModbusDeviceId(stored.id, write.deviceId);
        if (modbusDeviceId !== null) {
          const { request } = write;
          await store.writes.recordDeviceWrite({ orgId: stored.orgId, modbusDeviceId, actor, request, ...outcome });
        }
      }
      if (write.registers.length === 0) return;
      for (const entry of write.registers) {
        const target = await store.writes.target(stored.id, entry.registerId);
        if (target === null) continue;
        const scaleFactor = scaleFactors.get(entry.registerId) ?? null;
        await recordWriteAttempt(store, target, gateway.id, {
          orgId: stored.orgId,
          registerId: target.id,
          actor,
          valueBefore: scaleValue(entry.rawBefore, scaleFactor),
          valueAsked: scaleValue(entry.rawAsked, scaleFactor) ?? entry.rawAsked,
          result,
          readBack: null,
          detail,
          requestedAt,
          finishedAt,
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
  }
  // The list stays the same array across reloads: the metrics read it at each scrape.
  const servers: ModbusServer[] = options.config.modbusServers.flatMap((server) =>
    start(server, options.config.polling),
  );
  registerModbusServerMetrics(metrics, servers);

  const byGateway = (gatewayId: string) => servers.find((server) => server.gatewayId === gatewayId);
  return {
    /** A gateway's server as the API shows it (docs/api.md section 2.5), or null when it has none. */
    view: ((gatewayId) => byGateway(gatewayId.toLowerCase())?.stats() ?? null) satisfies ModbusServerViewReader,
    listening: () => Promise.all(servers.map((server) => server.listening)),
    /**
     * After a reload: the servers of `restart` (gateway ids whose server or polling
     * changed) and of removed gateways stop, those of the new config's `restart` and
     * new gateways start; every other server keeps its port and its connections.
     */
    async reload(next: ModbusServersOptions["config"], restart: ReadonlySet<string>): Promise<void> {
      scaleFactors = scaleFactorsOf(next);
      const wanted = new Map(next.modbusServers.map((server) => [server.gatewayId, server]));
      const leaving = servers.filter((server) => !wanted.has(server.gatewayId) || restart.has(server.gatewayId));
      await Promise.all(leaving.map((server) => server.stop()));
      for (const server of leaving) servers.splice(servers.indexOf(server), 1);
      for (const [gatewayId, serverConfig] of wanted)
        if (byGateway(gatewayId) === undefined) servers.push(...start(serverConfig, next.polling));
    },
    async stop(): Promise<void> {
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}
