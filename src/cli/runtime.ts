/**
 * The running parts behind `serve` and `demo`: pollers for every gateway,
 * ingest into the store, and gateway status from what the pollers report.
 */
import { createGatewayStatusTracker } from "../ingest/gateway-status.ts";
import { createIngest } from "../ingest/ingest.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { PollingGateway } from "../lib/polling.ts";
import type { LinkOpener } from "../modbus/link.ts";
import { type GatewayPoller, type PollSink, startGatewayPoller } from "../modbus/poller.ts";
import type { Store } from "../store/open.ts";

export interface Runtime {
  pollers: GatewayPoller[];
  ingest: ReturnType<typeof createIngest>;
  status: ReturnType<typeof createGatewayStatusTracker>;
  stop(): Promise<void>;
}

export function startRuntime(options: {
  store: Store;
  clock: Clock;
  logger: Logger;
  gateways: readonly PollingGateway[];
  openLink?: LinkOpener;
  flushIntervalMs?: number;
}): Runtime {
  const { store, clock, logger, gateways } = options;
  const storageIntervalMs = new Map<string, number>();
  for (const gateway of gateways) {
    for (const device of gateway.devices) {
      for (const register of device.registers) storageIntervalMs.set(register.id, device.storageIntervalMs);
    }
  }
  const ingest = createIngest({
    store,
    clock,
    logger: logger.child({ part: "ingest" }),
    storageIntervalMs,
    flushIntervalMs: options.flushIntervalMs,
  });
  // Gateways without devices have nothing to report: they stay as they are (pending).
  const polled = gateways.filter((gateway) => gateway.devices.length > 0);
  const status = createGatewayStatusTracker({
    store,
    clock,
    logger: logger.child({ part: "status" }),
    gateways: polled.map((gateway) => ({ id: gateway.id, heartbeatMs: gateway.heartbeatMs })),
  });
  const sink: PollSink = {
    readings: (_gatewayId, values) => ingest.accept(values),
    answered: (gatewayId, at) => status.answered(gatewayId, at),
    unreachable: (gatewayId, at, reason, fatal) => status.unreachable(gatewayId, at, reason, fatal),
  };
  const pollers = polled.map((gateway) =>
    startGatewayPoller({ gateway, sink, clock, logger: logger.child({ part: "modbus" }), openLink: options.openLink }),
  );
  return {
    pollers,
    ingest,
    status,
    async stop() {
      // Pollers first, so nothing arrives after the last flush.
      await Promise.all(pollers.map((poller) => poller.stop()));
      ingest.stop();
      status.stop();
    },
  };
}
