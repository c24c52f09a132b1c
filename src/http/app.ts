/**
 * The HTTP door: the /v1 API (docs/api.md section 4) and its docs, the admin API,
 * the edge API for sites, /healthz and /metrics. Every request gets a request id;
 * /v1 requests pass the gate (key, rate limit, read-only rule) before routing;
 * every error leaves as problem+json.
 */
import { Elysia, ValidationError } from "elysia";
import type { Clock } from "../lib/clock.ts";
import { type DeviceHealthReader, noDeviceHealth } from "../lib/device-health.ts";
import { CodedError, type ErrorCode } from "../lib/errors.ts";
import type { Logger } from "../lib/logger.ts";
import { createMetricsRegistry, type MetricsRegistry } from "../lib/metrics.ts";
import type { ModbusServerViewReader } from "../lib/modbus-server-view.ts";
import type { MqttView } from "../lib/mqtt-report.ts";
import type { RegisterWriter } from "../lib/register-write.ts";
import type { UplinkView } from "../lib/uplink-report.ts";
import { isStoreUnavailable } from "../store/contract/store-unavailable.ts";
import type { Store } from "../store/index.ts";
import { adminRoutes } from "./admin/router.ts";
import { anonymousRateHeaders, passApiGate } from "./api-gate.ts";
import { corsPolicy } from "./cors.ts";
import { docsRoutes } from "./docs/pages.ts";
import { edgeAlertRoutes } from "./edge/alerts.ts";
import { edgeInventoryRoutes } from "./edge/inventory.ts";
import { edgeReadingRoutes } from "./edge/readings.ts";
import { edgeSessionRoutes } from "./edge/session.ts";
import { edgeStatusRoutes } from "./edge/status.ts";
import { type HealthCheck, opsRoutes } from "./ops.ts";
import { problemResponse } from "./problem.ts";
import { StoreRateLimiter } from "./rate-limit.ts";
import { pathOf, requestAccounting } from "./request-accounting.ts";
import { v1Routes } from "./v1/router.ts";
import { describeValidation } from "./validation-message.ts";

export interface HttpAppDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Absolute base URL clients use (for `{docs_url}`); null: taken from each request. */
  publicUrl: string | null;
  /** Requests per minute of keys without a limit of their own, and of requests without a valid key per client address. */
  defaultLimitPerMinute: number;
  /** Where /metrics reads from; the API counts its requests there too. */
  metrics?: MetricsRegistry;
  /** Parts /healthz asks besides the store (ingest writing, for example). */
  healthChecks?: readonly HealthCheck[];
  /** More for /healthz's body, by name (the uplink's state on a site, for example). */
  healthDetails?: () => Record<string, unknown>;
  /** The site's link to its central for the admin page; absent: `{ "configured": false }`. */
  uplinkView?: () => UplinkView;
  /** The link to the MQTT broker for the admin page; absent: `{ "configured": false }`. */
  mqttView?: () => Promise<MqttView>;
  /** Called after an admin change or a site's forwarded change that recorded an event: wakes webhook delivery at once. */
  onEvent?: () => void;
  /** Origins a browser may call /v1 from (config `api.cors_origins`); `*` for any. Default: none. */
  corsOrigins?: readonly string[];
  /** Log every answered request at info; otherwise only refusals and server errors (src/http/request-log.ts). */
  logRequests?: boolean;
  /** Each Modbus device's health from the pollers of this process; every device `unknown` when absent. */
  deviceHealth?: DeviceHealthReader;
  /** Register writes through the pollers; absent: every write answers 409, nothing sent. */
  writeRegister?: RegisterWriter;
  /** Each gateway's Modbus TCP server (docs/api.md section 2.5); absent: none runs. */
  modbusServerView?: ModbusServerViewReader;
}

/**
 * The settings of the config's `api` and `server.public_url`, read from the deps at
 * each request, so that a config reload (app/appliance.ts) changes them in place.
 */
export type HttpSettings = Pick<HttpAppDeps, "publicUrl" | "defaultLimitPerMinute" | "corsOrigins" | "logRequests">;

export async function createHttpApp(deps: HttpAppDeps) {
  const { store, clock, logger } = deps;
  const metrics = deps.metrics ?? createMetricsRegistry();
  // The settings of HttpSettings are read from `deps` at each request: a reload changes them there.
  const { stateOf, finish } = requestAccounting({
    metrics,
    clock,
    logger,
    get logRequests() {
      return deps.logRequests === true;
    },
  });
  let cors = { origins: deps.corsOrigins, policy: corsPolicy(deps.corsOrigins ?? []) };
  const corsNow = () => {
    if (cors.origins !== deps.corsOrigins)
      cors = { origins: deps.corsOrigins, policy: corsPolicy(deps.corsOrigins ?? []) };
    return cors.policy;
  };
  const gateDeps = {
    lookupKey: store.keys.lookup,
    recordKeyUse: store.keys.recordUse,
    limiter: new StoreRateLimiter(store.rateLimits, clock),
    now: () => clock.now(),
    get defaultLimitPerMinute() {
      return deps.defaultLimitPerMinute;
    },
  };
  const v1 = await v1Routes({
    store,
    clock,
    deviceHealth: deps.deviceHealth ?? noDeviceHealth,
    modbusServerView: deps.modbusServerView ?? (() => null),
    writeRegister: deps.writeRegister,
    stateOf,
  });

  const docsUrlOf = (request: Request) => `${deps.publicUrl ?? originOf(request.url)}/docs`;
  // Built on the first request for it, and again when a reload changed the public
  // URL; the document and @elysiajs/openapi are loaded only then (docs/benchmarks.md,
  // "Footprint").
  let openApiJson: { publicUrl: string | null; json: Promise<string> } | null = null;
  const openApi = () => {
    if (openApiJson?.publicUrl !== deps.publicUrl) {
      const publicUrl = deps.publicUrl;
      const json = import("./docs/openapi.ts").then(({ buildOpenApiDocument }) =>
        JSON.stringify(buildOpenApiDocument(v1, publicUrl ?? "/")),
      );
      const entry = { publicUrl, json };
      openApiJson = entry;
      // A failed build is tried again on the next request, not remembered.
      json.catch(() => {
        if (openApiJson === entry) openApiJson = null;
      });
    }
    return openApiJson.json;
  };

  const fail = (request: Request, code: ErrorCode, detail?: string, status?: number) => {
    const state = stateOf(request);
    const response = problemResponse(code, state.requestId, docsUrlOf(request), state.headers, detail, status);
    state.status = response.status;
    return response;
  };

  // Imported apart: with code splitting, the HTML import's chunk must import no other
  // chunk, or a compiled executable looks for that chunk outside its embedded files
  // (Bun 1.4.5; docs/benchmarks.md, "Footprint").
  const { adminPageRoutes } = await import("./admin/page.ts");
  // development: false, also when run from source: Bun would otherwise serve the
  // admin page through its hot-reload dev server (unminified, with a reload socket).
  return new Elysia({ normalize: false, serve: { routes: adminPageRoutes, development: false } })
    .onRequest(async ({ request, server, set }) => {
      const state = stateOf(request);
      const api = isApiPath(request.url);
      if (api) {
        const preflight = corsNow().apply(request, state.headers);
        if (preflight !== null) {
          // A preflight carries no key: the client address's window, shown but not
          // counted, since the browser sends it on the page's behalf (docs/api.md section 4.10).
          const rateHeaders = await anonymousRateHeaders(gateDeps, clientAddressOf(server, request));
          for (const [name, value] of Object.entries(rateHeaders)) preflight.headers.set(name, value);
          state.status = preflight.status;
          finish(request, "(CORS preflight)");
          return preflight;
        }
        try {
          await passApiGate(gateDeps, state, request, clientAddressOf(server, request));
        } catch (error) {
          if (!(error instanceof CodedError)) throw error;
          // Elysia runs no later hook for a response from onRequest: count and log it here.
          const response = fail(request, error.code, error.detail);
          finish(request, "(refused before routing)");
          return response;
        }
      }
      // /v1 handlers put the headers on their own responses (see jsonText).
      if (!api) Object.assign(set.headers, state.headers);
    })
    .onError(async ({ code, error, request, server }) => {
      if (error instanceof CodedError) return fail(request, error.code, error.detail, error.statusOverride);
      if (code === "VALIDATION" && error instanceof ValidationError) {
        return fail(request, "invalid_parameter", describeValidation(error));
      }
      if (code === "NOT_FOUND") {
        // Bun resolves dot segments before fieldhub sees the path (/v1/%2e%2e/x
        // arrives as /x), so an unrouted path may have begun as /v1: it carries
        // the rate-limit headers too (docs/api.md section 4.10).
        if (!isApiPath(request.url))
          Object.assign(
            stateOf(request).headers,
            await anonymousRateHeaders(gateDeps, clientAddressOf(server, request)),
          );
        return fail(request, "not_found", "No such path.");
      }
      if (code === "PARSE") {
        // A parser of fieldhub's own (admin login and setup cap their bodies) says why.
        const cause = (error as { cause?: unknown }).cause;
        if (cause instanceof CodedError) return fail(request, cause.code, cause.detail);
        return fail(request, "bad_request", "The request could not be read.");
      }
      if (isStoreUnavailable(error)) {
        // A full disk, another process's lock, PostgreSQL away or read-only: nothing
        // was changed, and the client is told to come back, not given a 500.
        logger.warn(
          { request_id: stateOf(request).requestId, reason: error.reason, engine_code: error.engineCode },
          "store unavailable",
        );
        // /v1 has no code of its own for it (docs/api.md section 7): `internal_error`
        // with 503; the admin and edge APIs have `store_unavailable`.
        return isApiPath(request.url)
          ? fail(request, "internal_error", "The store is unavailable just now; try again later.", 503)
          : fail(
              request,
              "store_unavailable",
              `The store is unavailable just now (${error.reason}); nothing was changed.`,
            );
      }
      logger.error({ err: error, request_id: stateOf(request).requestId }, "request failed");
      return fail(request, "internal_error");
    })
    .onAfterResponse(({ request, route }) =>
      finish(request, route === "" || route === undefined ? "(no route)" : route),
    )
    .use(opsRoutes(store, metrics, deps.healthChecks, deps.healthDetails))
    .use(docsRoutes(openApi))
    .use(edgeSessionRoutes(store, clock))
    .use(edgeInventoryRoutes(store))
    .use(edgeReadingRoutes(store))
    .use(edgeStatusRoutes(store, deps.onEvent))
    .use(edgeAlertRoutes(store, deps.onEvent))
    .use(
      adminRoutes({
        store,
        clock,
        deviceHealth: deps.deviceHealth ?? noDeviceHealth,
        modbusServerView: deps.modbusServerView,
        onEvent: deps.onEvent,
        writeRegister: deps.writeRegister,
        uplinkView: deps.uplinkView,
        mqttView: deps.mqttView,
        problem: (request, code, detail, headers) => {
          const response = fail(request, code, detail);
          for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
          return response;
        },
      }),
    )
    .use(v1);
}

function clientAddressOf(
  server: { requestIP(request: Request): { address: string } | null } | null | undefined,
  request: Request,
): string {
  return server?.requestIP(request)?.address ?? "unknown";
}

/** The request's origin, or "" (a relative `{docs_url}`) when its Host header gave none. */
function originOf(url: string): string {
  return URL.parse(url)?.origin ?? "";
}

/**
 * Paths under /v1 pass the API gate. The prefix is matched whatever its case: the
 * API's paths are lower case and /V1/devices is not one of them, but it is
 * answered like any unknown /v1 path (gate, headers, 404), not as a page (docs/api.md section 4.10).
 */
function isApiPath(url: string): boolean {
  const path = pathOf(url);
  return (path.length === 3 || path[3] === "/") && path.slice(0, 3).toLowerCase() === "/v1";
}
export type HttpApp = Awaited<ReturnType<typeof createHttpApp>>;
