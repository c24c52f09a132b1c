/**
 * The /v1 API (docs/api.md section 4): one controller per resource, with the stores and
 * helpers they share (deps.ts).
 *
 * Handlers return finished responses that already carry the request's headers:
 * Elysia would otherwise validate each body against its response schema and
 * re-wrap the response to merge headers, both costing more than the query on a
 * 1000-row page. The tests check every response against the OpenAPI description.
 */
import { Elysia } from "elysia";
import type { Clock } from "../../lib/clock.ts";
import type { DeviceHealthReader } from "../../lib/device-health.ts";
import type { ModbusServerViewReader } from "../../lib/modbus-server-view.ts";
import type { RegisterWriter } from "../../lib/register-write.ts";
import type { Store } from "../../store/index.ts";
import type { RequestState } from "../api-gate.ts";
import { alertRoutes } from "./alerts.ts";
import type { V1Deps } from "./deps.ts";
import { gatewayRoutes } from "./gateways.ts";
import { introspectRoutes } from "./introspect.ts";
import { readingRoutes } from "./readings.ts";
import { registerWriteRoutes } from "./register-writes.ts";
import { registerRoutes } from "./registers.ts";

export async function v1Routes(options: {
  store: Store;
  clock: Clock;
  deviceHealth: DeviceHealthReader;
  modbusServerView: ModbusServerViewReader;
  writeRegister?: RegisterWriter;
  stateOf(request: Request): RequestState;
}) {
  const { store, stateOf } = options;
  const deps: V1Deps = {
    json: (request, body) => deps.jsonText(request, JSON.stringify(body)),
    jsonText: (request, text) =>
      new Response(text, { headers: { ...stateOf(request).headers, "content-type": "application/json" } }),
    store,
    clock: options.clock,
    gateways: store.gateways,
    alerts: store.alerts,
    registers: store.registers,
    readings: store.readings,
    deviceHealth: options.deviceHealth,
    modbusServerView: options.modbusServerView,
    cursorSecret: await store.secrets.getOrCreate("readings-cursor"),
    stateOf,
    writeRegister: options.writeRegister,
  };
  return new Elysia()
    .use(introspectRoutes(deps))
    .use(gatewayRoutes(deps))
    .use(registerRoutes(deps))
    .use(registerWriteRoutes(deps))
    .use(readingRoutes(deps))
    .use(alertRoutes(deps));
}
