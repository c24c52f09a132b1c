/**
 * Alert rules and the alert lifecycle (docs/api.md sections 2 Alert, 3 alert status,
 * 6 alert events; the full transition table is docs/alerts.md).
 *
 * Every ingested value is evaluated, not only stored ones; rules are indexed by
 * register, so a reading costs only the rules on its own register. Each alert
 * change is written with its event (and any automation it runs) by one store
 * operation: no change without its event, no event without its change.
 */

import type { Clock } from "../lib/clock.ts";
import { randomUuid } from "../lib/ids.ts";
import type { Logger } from "../lib/logger.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { scalerFor } from "../lib/register-scaling.ts";
import {
  type AlertSubject,
  alertReturned,
  alertTriggered,
  automationTriggered,
  type GatewayNames,
} from "../store/contract/event-types.ts";
import type { NewEvent } from "../store/contract/events.ts";
import type { Store } from "../store/index.ts";
import { isCleared, isMet } from "./conditions.ts";
import { fillMessage, offlineMessage } from "./messages.ts";
import type { AutomationConfig, OfflineDetectorConfig, RuleConfig } from "./rule-model.ts";

/** `pendingSince`: when the condition began to hold, on the clock of PolledValue.monotonic (else its wall time). */
type RuleState = { breaching: boolean; pendingSince: number | null };
type Target = {
  rule: RuleConfig;
  scale: (raw: number) => number;
  /** The rule, gateway and register as its events name them. */
  subject: AlertSubject;
  /** The Modbus device as messages name it (its name, else its unit id). */
  device: string;
  gateway: { id: number; orgId: number };
  state: RuleState;
};

export async function createRulesEngine(options: {
  store: Store;
  clock: Clock;
  logger: Logger;
  rules: readonly RuleConfig[];
  offlineDetector: OfflineDetectorConfig;
  automations: readonly AutomationConfig[];
  /** Called after events were committed (so the webhook dispatcher can send them now). */
  onEvent?: () => void;
}) {
  const { store, clock, logger } = options;
  const { alerts } = store;

  const registerInfo = new Map((await store.registers.contexts()).map((row) => [row.uuid, row]));
  const gatewayInfo = new Map((await store.gateways.all()).map((row) => [row.uuid, row]));
  const gatewayById = new Map([...gatewayInfo.values()].map((gateway) => [gateway.id, gateway]));
  const gatewayNames = (gateway: { uuid: string; serial: string; name: string }): GatewayNames => ({
    id: gateway.uuid,
    serial: gateway.serial,
    name: gateway.name,
  });
  const openAtStart = await alerts.allOpen();

  // Rules by register: a reading costs only its own register's rules.
  const byRegister = new Map<string, Target[]>();
  for (const rule of options.rules) {
    if (!rule.enabled) continue;
    const info = registerInfo.get(rule.registerId);
    const gateway = info === undefined ? undefined : gatewayById.get(info.gatewayId);
    if (info === undefined || gateway === undefined) {
      logger.warn({ rule: rule.name }, "rule names a register the store does not have; ignored");
      continue;
    }
    // An open alert that is not returned means the condition was last seen met.
    const open = openAtStart.find((alert) => alert.ruleId === rule.id && alert.gatewayId === info.gatewayId);
    const target: Target = {
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
      state: { breaching: open !== undefined && open.status !== "returned", pendingSince: null },
    };
    const list = byRegister.get(rule.registerId) ?? [];
    list.push(target);
    byRegister.set(rule.registerId, list);
  }
  const automationsByRule = new Map<string, AutomationConfig[]>();
  for (const automation of options.automations) {
    if (!automation.enabled || automation.trigger.kind !== "rule") continue;
    const list = automationsByRule.get(automation.trigger.ruleId) ?? [];
    list.push(automation);
    automationsByRule.set(automation.trigger.ruleId, list);
  }

  const orgIdByKey = new Map((await store.organizations.list()).map((org) => [org.key, org.id]));
  /**
   * The events of an alert triggered at `at`: its `alert.triggered` and the
   * automations on its rule that belong to the organisation where it fired, each
   * naming the alert (active after a trigger: docs/alerts.md).
   */
  function triggeredEvents(
    subject: AlertSubject,
    orgId: number,
    at: number,
    message: string,
    measured: { value: number; threshold: number } | null,
  ) {
    const automations = (automationsByRule.get(subject.rule.id) ?? []).filter(
      (automation) => orgIdByKey.get(automation.orgKey) === orgId,
    );
    return (alertId: string): NewEvent[] => [
      { orgId, occurredAt: at, ...alertTriggered(alertId, subject, message, measured) },
      ...automations.map((automation) => ({
        orgId,
        occurredAt: at,
        ...automationTriggered(automation, {
          alertId,
          alertStatus: "active",
          subject,
          value: measured?.value ?? null,
        }),
      })),
    ];
  }

  function breach(target: Target, value: number, at: number): Promise<unknown> {
    const { rule, subject } = target;
    const message = fillMessage(rule.message, {
      value,
      unit: subject.register?.unit ?? null,
      threshold: rule.threshold,
      register: subject.register?.name ?? "",
      device: target.device,
      gateway: subject.gateway.name,
    });
    const { orgId } = target.gateway;
    const trigger = {
      ruleId: rule.id,
      gatewayId: target.gateway.id,
      orgId,
      severity: rule.severity,
      message,
      value,
      at,
      newUuid: randomUuid(),
    };
    return alerts.trigger(trigger, triggeredEvents(subject, orgId, at, message, { value, threshold: rule.threshold }));
  }

  function clear(target: Target, value: number, at: number): Promise<unknown> {
    const { rule, subject, gateway } = target;
    return alerts.markReturned({ ruleId: rule.id, gatewayId: gateway.id, at, value }, (alertId) => [
      { orgId: gateway.orgId, occurredAt: at, ...alertReturned(alertId, subject, value) },
    ]);
  }

  let writeError: string | null = null;
  /** Runs a store write; false (logged once per condition) when the store refused it. */
  async function written(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      writeError = null;
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== writeError) logger.error({ err: error }, "alert write failed; will retry with the next reading");
      writeError = message;
      return false;
    }
  }

  // Evaluations and detector changes run one after another: each decides on the
  // rule state the one before left, and writes before the next one looks at it.
  let turn: Promise<void> = Promise.resolve();
  function inTurn(work: () => Promise<void>): Promise<void> {
    turn = turn.then(work).catch((error: unknown) => {
      logger.error({ err: error }, "rule evaluation failed");
    });
    return turn;
  }
  /** A write in turn whose error reaches the caller (the turn itself goes on). */
  function inTurnOrThrow(write: () => Promise<unknown>): Promise<void> {
    let failure: { error: unknown } | null = null;
    return inTurn(async () => {
      try {
        await write();
      } catch (error) {
        failure = { error };
      }
    }).then(() => {
      if (failure !== null) throw failure.error;
    });
  }

  /** Evaluates every reading against the rules on its register. */
  async function evaluateNow(readings: readonly PolledValue[]): Promise<void> {
    let recorded = false;
    for (const reading of readings) {
      const targets = byRegister.get(reading.registerId);
      if (targets === undefined || reading.raw === null) continue;
      for (const target of targets) {
        const value = target.scale(reading.raw);
        const { rule, state } = target;
        if (!state.breaching) {
          if (!isMet(rule.condition, value, rule.threshold)) {
            state.pendingSince = null;
            continue;
          }
          // A rule's "for" is a duration: measured on the monotonic clock the poller
          // stamps, so a wall-clock step neither fires it early nor holds it back.
          const readAt = reading.monotonic ?? reading.ts;
          state.pendingSince ??= readAt;
          if (readAt - state.pendingSince < rule.forMs) continue;
          // Breaching only once the alert is written: a full disk or a held lock
          // leaves the rule pending, and the next reading tries again.
          if (!(await written(() => breach(target, value, reading.ts)))) continue;
          state.breaching = true;
          state.pendingSince = null;
          recorded = true;
        } else if (isCleared(rule.condition, value, rule.threshold, rule.hysteresis)) {
          if (!(await written(() => clear(target, value, reading.ts)))) continue;
          state.breaching = false;
          recorded = true;
        }
      }
    }
    if (recorded) options.onEvent?.();
  }

  const detector = options.offlineDetector;
  const detectorSubject = (gateway: { uuid: string; serial: string; name: string }): AlertSubject => ({
    rule: { id: detector.id, name: detector.name, severity: detector.severity },
    source: "detector",
    condition: "offline",
    gateway: gatewayNames(gateway),
    register: null,
  });
  function detectorOpened(
    gateway: { id: number; uuid: string; orgId: number; serial: string; name: string },
    at: number,
  ): Promise<unknown> {
    const message = offlineMessage(gateway.name);
    const trigger = {
      ruleId: detector.id,
      gatewayId: gateway.id,
      orgId: gateway.orgId,
      severity: detector.severity,
      message,
      value: null,
      at,
      newUuid: randomUuid(),
    };
    return alerts.trigger(trigger, triggeredEvents(detectorSubject(gateway), gateway.orgId, at, message, null));
  }
  function detectorReturned(
    gateway: { id: number; uuid: string; orgId: number; serial: string; name: string },
    at: number,
  ): Promise<unknown> {
    return alerts.markReturned({ ruleId: detector.id, gatewayId: gateway.id, at, value: null }, (alertId) => [
      { orgId: gateway.orgId, occurredAt: at, ...alertReturned(alertId, detectorSubject(gateway), null) },
    ]);
  }

  return {
    /** Settles once the readings are evaluated and any alert change written (a refused write is logged). */
    evaluate: (readings: readonly PolledValue[]): Promise<void> => inTurn(() => evaluateNow(readings)),
    /**
     * The offline detector: a gateway went offline (docs/api.md section 3: alert source `detector`).
     * Rejects when the store refused the alert.
     */
    async gatewayOffline(gatewayUuid: string, at: number): Promise<void> {
      const gateway = gatewayInfo.get(gatewayUuid);
      if (!detector.enabled || gateway === undefined) return;
      await inTurnOrThrow(() => detectorOpened(gateway, at));
      options.onEvent?.();
    },
    /** The gateway reports again: its offline alert returns. Rejects when the store refused the change. */
    async gatewayOnline(gatewayUuid: string, at: number): Promise<void> {
      const gateway = gatewayInfo.get(gatewayUuid);
      if (!detector.enabled || gateway === undefined) return;
      await inTurnOrThrow(() => detectorReturned(gateway, at));
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
