/**
 * Register writes from the API and the admin page: through the gateway's
 * own poller, with every attempt stored in the audit together with its
 * `register.written` event. After a timeout (outcome unknown) the write is not sent
 * again: the register is read once more between polls and the audit records what
 * the device holds.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { RegisterWriteOutcome, RegisterWriter } from "../lib/register-write.ts";
import type { GatewayPoller } from "../modbus/poller.ts";
import { settledByReadBack } from "../modbus/write-protocol.ts";
import { registerWritten } from "../store/contract/event-types.ts";
import type { Store } from "../store/index.ts";

export interface RegisterWritesOptions {
  store: Pick<Store, "gateways" | "writes">;
  clock: Clock;
  logger: Logger;
  /** The running pollers (a list app/parts.ts keeps current across reloads). */
  pollers: readonly GatewayPoller[];
  onEvent: () => void;
}

export function createRegisterWriter(options: RegisterWritesOptions): RegisterWriter {
  const { store, clock, logger, onEvent } = options;

  return async (request) => {
    const requestedAt = clock.now();
    const gatewayId = await store.gateways.locate(request.orgId, request.gatewayId);
    const target = gatewayId === null ? null : await store.writes.target(gatewayId, request.registerId);
    if (gatewayId === null || target === null) throw new Error("write asked for a register the caller did not find");
    const gatewayUuid = request.gatewayId.toLowerCase();
    const poller = options.pollers.find((candidate) => candidate.gatewayId === gatewayUuid);
    const outcome: RegisterWriteOutcome =
      poller === undefined
        ? {
            result: "not_sent",
            valueBefore: null,
            readBack: null,
            readBackRaw: null,
            detail: "the gateway has no poller",
          }
        : await poller.writeRegister(target.uuid, request.value);
    const finishedAt = clock.now();
    const auditId = await recordWriteAttempt(store, target, request.gatewayId, {
      orgId: request.orgId,
      registerId: target.id,
      actor: request.actor,
      valueBefore: outcome.valueBefore,
      valueAsked: request.value,
      result: outcome.result,
      readBack: outcome.readBack,
      detail: outcome.detail,
      requestedAt,
      finishedAt,
    });
    onEvent();
    logger.info(
      { register: target.uuid, actor: request.actor, value: request.value, result: outcome.result },
      "register write",
    );
    if (outcome.result === "timeout" && poller !== undefined) {
      // Not sent again: read what the device holds now, between polls, and note it.
      void poller
        .readRegisterNow(target.uuid)
        .then((read) =>
          store.writes.settleReadBack(
            auditId,
            read?.value ?? null,
            settledByReadBack(outcome.detail, read?.value ?? null),
          ),
        )
        .catch((error: unknown) => {
          logger.error({ err: error, register: target.uuid }, "read back after a timed-out write not recorded");
        });
    }
    return { ...outcome, auditId };
  };
}

type WriteAttempt = Parameters<Store["writes"]["record"]>[0];
type WriteTarget = NonNullable<Awaited<ReturnType<Store["writes"]["target"]>>>;

/**
 * Stores one write attempt with its `register.written` event (docs/webhooks.md), one
 * transaction: the API's and the admin page's writes and those through a gateway's
 * Modbus TCP server (app/modbus-servers.ts) alike.
 */
export function recordWriteAttempt(
  store: Pick<Store, "writes">,
  target: WriteTarget,
  gatewayUuid: string,
  attempt: WriteAttempt,
): Promise<string> {
  return store.writes.record(attempt, (id) => ({
    orgId: attempt.orgId,
    occurredAt: attempt.finishedAt,
    ...registerWritten({
      auditId: id,
      gateway: { id: gatewayUuid.toLowerCase(), serial: target.gatewaySerial, name: target.gatewayName },
      register: {
        modbusDeviceId: target.modbusDeviceUuid,
        modbusDeviceName: target.modbusDeviceName,
        id: target.uuid,
        name: target.name,
        unit: target.unit,
      },
      actor: attempt.actor,
      valueBefore: attempt.valueBefore,
      valueAsked: attempt.valueAsked,
      result: attempt.result,
      readBack: attempt.readBack,
      detail: attempt.detail,
      requestedAt: attempt.requestedAt,
      finishedAt: attempt.finishedAt,
    }),
  }));
}
