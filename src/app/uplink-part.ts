/**
 * A site's link to its central (docs/fleet.md): the forwarder, the session check
 * that runs it, the alert changes the central asks for applied here, and what
 * /healthz and the admin page show of it. A box on its own (no `uplink`) has none.
 */
import { alertService } from "../alerting/alerts-service.ts";
import type { FieldhubConfig } from "../config/index.ts";
import type { ModbusDeviceStatusTracker } from "../ingest/modbus-device-status.ts";
import type { Clock } from "../lib/clock.ts";
import { CodedError } from "../lib/errors.ts";
import type { Logger } from "../lib/logger.ts";
import type { MetricsRegistry } from "../lib/metrics.ts";
import type { UplinkView } from "../lib/uplink-report.ts";
import type { Store } from "../store/index.ts";
import { createCentralClient } from "../uplink/central-client.ts";
import { createForwarder } from "../uplink/forwarder.ts";
import { startUplink } from "../uplink/link.ts";
import { registerUplinkMetrics } from "../uplink/metrics.ts";
import { presentUplink } from "../uplink/present.ts";

export function startUplinkPart(options: {
  config: Pick<FieldhubConfig, "uplink" | "inventory">;
  store: Pick<Store, "gateways" | "events" | "alerts" | "registers" | "readings">;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  /** Called after an alert change the central asked for recorded its event. */
  onEvent: () => void;
  /** The site's Modbus devices' announced states, forwarded with their gateway's status. */
  modbusDevices: Pick<ModbusDeviceStatusTracker, "announcedStates">;
}) {
  const { config, store, clock, logger } = options;
  const settings = config.uplink;
  const siteAlerts = alertService(store, () => clock.now(), options.onEvent);
  const central = settings === null ? null : createCentralClient(settings);
  const forwarder =
    central === null
      ? null
      : createForwarder({
          central,
          store,
          gateways: siteGateways(config),
          now: () => clock.now(),
          modbusDevices: (gatewayId) =>
            options.modbusDevices.announcedStates(gatewayId).map((device) => ({
              id: device.device.id,
              status: device.status,
              changed_at: device.changedAt,
              health: device.health,
              previous_health: device.previousHealth,
              last_error: device.lastError,
              last_answer_at: device.lastAnswerAt,
            })),
          async applyAlertRequest({ alertId, action, note }) {
            try {
              if (action === "acknowledge") await siteAlerts.acknowledge(alertId, note);
              else await siteAlerts.resolve(alertId, note);
              logger.info({ alert_id: alertId, action }, "alert change asked on the central applied");
            } catch (error) {
              // Already acknowledged or resolved here, or gone: the alert's state, forwarded next, answers the central.
              if (!(error instanceof CodedError) || (error.code !== "conflict" && error.code !== "not_found"))
                throw error;
              logger.info(
                { alert_id: alertId, action, reason: error.message },
                "alert change asked on the central not applied",
              );
            }
          },
        });
  const uplink =
    settings === null || central === null || forwarder === null
      ? null
      : startUplink({ ...settings, central, clock, logger, forwarder });
  if (uplink !== null && forwarder !== null) registerUplinkMetrics(options.metrics, uplink, forwarder, clock);

  return {
    /** For /healthz: an unreachable central is an outage the site rides out; a refusal is a fault an operator must see. */
    healthCheck: () => {
      const link = uplink?.status();
      return link?.state === "refused"
        ? { ok: false as const, problem: `uplink refused by the central: ${link.reason}` }
        : { ok: true as const };
    },
    /** /healthz shows a site's link to its central (docs/fleet.md): state, reason, last contact, progress. */
    healthDetails: (): Record<string, unknown> =>
      uplink === null || forwarder === null ? {} : { uplink: presentUplink(uplink.status(), forwarder, clock.now()) },
    /**
     * The admin page's view of the same (docs/admin.md, "Central"), with the central's
     * URL: behind a session, where /healthz is open to anyone who can reach the box.
     */
    uplinkView: (): UplinkView =>
      settings === null || uplink === null || forwarder === null
        ? { configured: false }
        : { configured: true, central_url: settings.url, ...presentUplink(uplink.status(), forwarder, clock.now()) },
    /** A reloaded inventory, sent to the central at the forwarder's next round on the same link. */
    retarget: (next: Pick<FieldhubConfig, "inventory">): void => forwarder?.retarget(siteGateways(next)),
    stop: async (): Promise<void> => {
      await uplink?.stop();
    },
  };
}

/** The gateways the site polls, as the forwarder sends them. */
function siteGateways(config: Pick<FieldhubConfig, "inventory">) {
  return config.inventory.organizations.flatMap((organization) => organization.gateways);
}
