/**
 * What the server answers to one request (docs/polling.md, "The Modbus TCP server"):
 * a unit id no device has: exception 10; a write while writes are off, or a function
 * code it does not serve: exception 1; a quarantined device: exception 11 at once; a
 * read the words last read cover within max_age_ms: those words, no bus traffic; any
 * other read or write: one request on the bus through the poller's queue (reads taking
 * turns, bus-turns.ts), its answer
 * or the device's exception passed back as it came, exception 11 when it does not answer.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { RegisterWriteResult } from "../lib/register-write.ts";
import type { PollingDevice, PollingGateway } from "../modbus/polling-config.ts";
import { createBusTurns } from "./bus-turns.ts";
import type { RequestFrame } from "./frames.ts";
import { exception, exceptionAnswer, parseRequest, readAnswer, type ServerRequest, writeAnswer } from "./requests.ts";
import type { ServedBus } from "./served-bus.ts";
import type { ModbusServerConfig, ServedUnit } from "./server-config.ts";
import type { ServerStats } from "./stats.ts";
import { type WriteAuditor, writesBeyondRegisters, writtenRegisters, writtenValues } from "./write-audit.ts";

export interface AnswererOptions {
  config: ModbusServerConfig;
  /** The gateway as polled: its devices and its bus. */
  gateway: PollingGateway;
  bus: ServedBus;
  audit: WriteAuditor;
  clock: Clock;
  logger: Logger;
  stats: ServerStats;
}

/** An answer PDU, or `malformed` when the connection must be closed. */
export type Answerer = (frame: RequestFrame, client: string) => Promise<Uint8Array | "malformed">;

export function createAnswerer(options: AnswererOptions): Answerer {
  const { config, gateway, bus, audit, clock, logger, stats } = options;
  const devices = new Map(gateway.devices.map((device) => [device.id, device]));
  const units = new Map<number, ServedUnit>(config.units.map((unit) => [unit.unitId, unit]));
  const turns = createBusTurns(gateway);

  return async (frame, client) => {
    const began = performance.now();
    const request = parseRequest(frame.pdu);
    if (request.kind === "malformed") return "malformed";
    const { pdu, result } = await answer(request, frame.unitId, client);
    stats.answered(result, (performance.now() - began) / 1000);
    return pdu;
  };

  async function answer(
    request: Exclude<ServerRequest, { kind: "malformed" }>,
    unitId: number,
    client: string,
  ): Promise<{ pdu: Uint8Array; result: "cache" | "bus" | "exception" }> {
    const refuse = (code: number) => ({
      pdu: exceptionAnswer(request.functionCode, code),
      result: "exception" as const,
    });
    if (request.kind === "refused") return refuse(request.exception);
    const unit = units.get(unitId);
    const device = unit === undefined ? undefined : devices.get(unit.deviceId);
    if (unit === undefined || device === undefined) return refuse(exception.gatewayPathUnavailable);
    if (request.kind === "write" && !config.writes) return refuse(exception.illegalFunction);
    if (bus.quarantined(device.id)) return refuse(exception.gatewayTargetFailedToRespond);

    if (request.kind === "read") {
      const { functionCode, start, count } = request;
      const cached = bus.cached(device.id, functionCode, start, count, unit.maxAgeMs);
      if (cached !== null) return { pdu: readAnswer(functionCode, cached), result: "cache" };
      const turn = turns.take(device.id, () => bus.read(device.id, functionCode, start, count));
      if (turn === null) return refuse(exception.serverDeviceBusy);
      const outcome = await turn;
      if (outcome.ok) return { pdu: readAnswer(functionCode, outcome), result: "bus" };
      if (outcome.kind === "exception") return { pdu: exceptionAnswer(functionCode, outcome.code), result: "bus" };
      return refuse(exception.gatewayTargetFailedToRespond);
    }

    return answerWrite(request, device, client);
  }

  /** A write on the bus, ahead of everything; its answer passed back, it in the audit. */
  async function answerWrite(
    request: Extract<ServerRequest, { kind: "write" }>,
    device: PollingDevice,
    client: string,
  ): Promise<{ pdu: Uint8Array; result: "bus" | "exception" }> {
    const requestedAt = clock.now();
    const table = request.functionCode === 5 || request.functionCode === 15 ? 1 : 3;
    const before = bus.cached(device.id, table, request.start, request.count, Number.POSITIVE_INFINITY);
    const outcome = await bus.write(device.id, request.functionCode, request.start, request.payload);
    const finishedAt = clock.now();
    const { result, detail, reply } = writeVerdict(request, outcome);
    const actor = `modbus:${client}`;
    const registers = writtenRegisters(device, request, before);
    logger.info(
      {
        device_id: device.id,
        actor,
        function_code: request.functionCode,
        start: request.start,
        count: request.count,
        result,
        registers: registers.length,
      },
      "register write through the Modbus TCP server",
    );
    const write = {
      deviceId: device.id,
      actor,
      registers,
      beyondRegisters: writesBeyondRegisters(registers, request.count),
      request: { functionCode: request.functionCode, address: request.start, values: writtenValues(request.payload) },
      result,
      detail,
      requestedAt,
      finishedAt,
    };
    // The answer does not wait for the audit: a store that refuses writes must not hold the client.
    void audit(write).catch((error: unknown) =>
      logger.error(
        { err: error, device_id: device.id },
        "write through the Modbus TCP server not recorded in the audit",
      ),
    );
    return reply;
  }
}

/** A write's outcome as the audit records it (lib/register-write.ts) and as the client is answered. */
function writeVerdict(
  request: Extract<ServerRequest, { kind: "write" }>,
  outcome: Awaited<ReturnType<ServedBus["write"]>>,
): { result: RegisterWriteResult; detail: string; reply: { pdu: Uint8Array; result: "bus" | "exception" } } {
  const where = `through the Modbus TCP server: function code ${request.functionCode} at ${request.start} (${request.count})`;
  const noAnswer = {
    pdu: exceptionAnswer(request.functionCode, exception.gatewayTargetFailedToRespond),
    result: "exception" as const,
  };
  if (outcome.ok) return { result: "written", detail: where, reply: { pdu: writeAnswer(request), result: "bus" } };
  switch (outcome.kind) {
    case "exception":
      return {
        result: "refused",
        detail: `${where}; the device answered exception ${outcome.code}`,
        reply: { pdu: exceptionAnswer(request.functionCode, outcome.code), result: "bus" },
      };
    case "not_sent":
      return { result: "not_sent", detail: `${where}; it did not reach the device`, reply: noAnswer };
    default:
      return {
        result: "timeout",
        detail: `${where}; no answer (${outcome.kind}), the outcome is unknown and the write was not retried`,
        reply: noAnswer,
      };
  }
}
