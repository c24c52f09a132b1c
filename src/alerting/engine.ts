/**
 * Alert rules and the alert lifecycle (docs/api.md sections 2 Alert, 3 alert status,
 * 6 alert events; the full transition table is docs/alerts.md).
 *
 * Every ingested value is evaluated, not only stored ones; rules are indexed by
 * register, so a reading costs only the rules on its own register. Each rule's
 * condition state is a RuleCondition (rule-condition.ts); the alert it asks for
 * is written with its event (and any automation it runs) by one store operation
 * (rule-alerts.ts, offline-detector.ts): no change without its event, no event
 * without its change.
 */

import type { Clock } from "../lib/clock.ts";
import { LoggedFailure } from "../lib/log-once.ts";
import type { Logger } from "../lib/logger.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { scalerFor } from "../lib/register-scaling.ts";
import { SerialTurns } from "../lib/serial-turns.ts";
import { automationTriggered, type ModbusDeviceChange } from "../store/contract/event-types.ts";
import type { Store } from "../store/index.ts";
import { createOfflineDetector } from "./offline-detector.ts";
import { gatewayNames, type RuleTarget, ruleAlerts } from "./rule-alerts.ts";
import { RuleCondition } from "./rule-condition.ts";
import type { AutomationConfig, OfflineDetectorConfig, RuleConfig } from "./rule-model.ts";
import { indexTriggeredEvents } from "./triggered-events.ts";

type IndexedRule = RuleTarget & { scale: (raw: number) => number; condition: RuleCondition };

export async function createRulesEngine(options: {
  store: Pick<Store, "alerts" | "registers" | "gateways" | "organizations" | "events">;
  clock: Clock;
  logger: Logger;
  rules: readonly RuleConfig[];
  offlineDetector: OfflineDetectorConfig;
  automations: readonly AutomationConfig[];
  /** Called after events were committed (so the webhook dispatcher can send them now). */
  onEvent?: () => void;
}) {
  const { store, clock, logger } = options;

  const registerInfo = new Map((await store.registers.contexts()).map((row) => [row.uuid, row]));
  const gatewayInfo = new Map((await store.gateways.all()).map((row) => [row.uuid, row]));
  const gatewayById = new Map([...gatewayInfo.values()].map((gateway) => [gateway.id, gateway]));
  const openAtStart = await store.alerts.allOpen();
  const orgIdByKey = new Map((await store.organizations.list()).map((org) => [org.key, org.id]));
  const triggeredEvents = indexTriggeredEvents(options.automations, orgIdByKey, options.offlineDetector.id);
  const alerts = ruleAlerts(store, triggeredEvents);
  const detector = createOfflineDetector({
    store,
    detector: options.offlineDetector,
    gateways: gatewayInfo,
    triggeredEvents,
  });

  // Rules by register: a reading costs only its own register's rules.
  const byRegister = new Map<string, IndexedRule[]>();
  for (const rule of options.rules) {
    if (!rule.enabled) continue;
    const info = registerInfo.get(rule.registerId);
    const gateway = info === undefined ? undefined : gatewayById.get(info.gatewayId);
    if (info === undefined || gateway === undefined) {
      logger.warn({ rule: rule.name }, "rule names a register the store does not have; ignored");
      continue;
    }
    const open = openAtStart.find((alert) => alert.ruleId === rule.id && alert.gatewayId === info.gatewayId);
    const list = byRegister.get(rule.registerId) ?? [];
    list.push({
      rule,
      scale: scalerFor(info.scaleFactor),
      subject: {
        rule: { id: rule.id, name: rule.name, severity: rule.severity },
        source: "rule",
        condition: rule.condition,
        gateway: gatewayNames(gateway),
        register: {
          modbusDeviceId: rule.modbusDeviceId,
          modbusDeviceName: info.deviceName,
          id: rule.registerId,
          name: info.name,
          unit: info.unit,
        },
      },
      device: info.deviceName ?? `unit ${info.slaveId}`,
      gateway: { id: info.gatewayId, orgId: info.orgId },
      // An open alert that is not returned means the condition was last seen met.
      condition: new RuleCondition(rule, open !== undefined && open.status !== "returned"),
    });
    byRegister.set(rule.registerId, list);
  }

  // One log line per condition, not one per reading while the disk stays full.
  const writeFailure = new LoggedFailure();
  /** Runs a store write; false (logged once per distinct failure) when the store refused it. */
  async function written(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      writeFailure.ended();
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (writeFailure.occurred(message))
        logger.error({ err: error }, "alert write failed; will retry with the next reading");
      return false;
    }
  }

  // Evaluations and detector changes run one after another: each decides on the
  // rule state the one before left, and writes before the next one looks at it.
  const turns = new SerialTurns((error) => logger.error({ err: error }, "rule evaluation failed"));

  /** Evaluates every reading against the rules on its register. */
  async function evaluateNow(readings: readonly PolledValue[]): Promise<void> {
    let recorded = false;
    for (const reading of readings) {
      const targets = byRegister.get(reading.registerId);
      if (targets === undefined || reading.raw === null) continue;
      for (const target of targets) {
        // A scale read from the device in the same cycle (scale_factor_register) rules over the configured one.
        const value =
          reading.scaleFactor === undefined ? target.scale(reading.raw) : scalerFor(reading.scaleFactor)(reading.raw);
        const change = target.condition.observe(value, reading.monotonic ?? reading.ts);
        // Breaching (or returned) only once the alert is written: a full disk or a
        // held lock leaves the rule where it was, and the next reading tries again.
        if (change === "trigger" && (await written(() => alerts.trigger(target, value, reading.ts)))) {
          target.condition.triggered();
          recorded = true;
        } else if (change === "return" && (await written(() => alerts.return(target, value, reading.ts)))) {
          target.condition.returned();
          recorded = true;
        }
      }
    }
    if (recorded) options.onEvent?.();
  }

  return {
    /** Settles once the readings are evaluated and any alert change written (a refused write is logged). */
    evaluate: (readings: readonly PolledValue[]): Promise<void> => turns.run(() => evaluateNow(readings)),
    /** Settles once every evaluation and detector change asked so far is done (a reload waits for it). */
    settled: (): Promise<void> => turns.settled(),
    /**
     * The offline detector: a gateway went offline (docs/api.md section 3: alert source `detector`).
     * Rejects when the store refused the alert.
     */
    async gatewayOffline(gatewayUuid: string, at: number): Promise<void> {
      if (!detector.watches(gatewayUuid)) return;
      await turns.result(() => detector.opened(gatewayUuid, at));
      options.onEvent?.();
    },
    /** The gateway reports again: its offline alert returns. Rejects when the store refused the change. */
    async gatewayOnline(gatewayUuid: string, at: number): Promise<void> {
      if (!detector.watches(gatewayUuid)) return;
      await turns.result(() => detector.returned(gatewayUuid, at));
      options.onEvent?.();
    },
    /**
     * The offline detector for one Modbus device (`modbus_device.offline` / `.online`):
     * its alert opens or returns. Rejects when the store refused the change.
     */
    async modbusDeviceChanged(change: ModbusDeviceChange, at: number): Promise<void> {
      if (!detector.watchesDevicesOf(change.gateway.id)) return;
      await turns.result(() => detector.deviceChanged(change, at));
      options.onEvent?.();
    },
    /** Runs a scheduled automation now. */
    async runScheduled(automation: AutomationConfig, orgId: number): Promise<void> {
      await store.events.record({ orgId, occurredAt: clock.now(), ...automationTriggered(automation, null) });
      options.onEvent?.();
    },
    /** How many rules were indexed (enabled and on a known register). */
    ruleCount: () => [...byRegister.values()].reduce((sum, list) => sum + list.length, 0),
  };
}
export type RulesEngine = Awaited<ReturnType<typeof createRulesEngine>>;
