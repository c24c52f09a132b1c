/**
 * Each request's state (request id, headers every answer carries, status) from
 * its arrival to its answer, and its accounting once answered: counted and timed
 * by route on the metrics registry, and logged as loudly as request-log.ts says.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { MetricsRegistry } from "../lib/metrics.ts";
import { Counter, Histogram } from "../lib/prometheus.ts";
import { newRequestState, type RequestState } from "./api-gate.ts";
import { requestLogLevel } from "./request-log.ts";

export function requestAccounting(options: {
  metrics: MetricsRegistry;
  clock: Clock;
  logger: Logger;
  /** Log every answered request at info (config `api.log_requests`). */
  logRequests: boolean;
}) {
  const { clock, logger } = options;
  const requestsByRoute = new Counter({
    name: "fieldhub_api_requests_total",
    help: "HTTP requests answered, by route pattern, method and status",
    labelNames: ["route", "method", "status"],
    registers: [options.metrics],
  });
  const requestSeconds = new Histogram({
    name: "fieldhub_api_request_duration_seconds",
    help: "Time to answer an HTTP request",
    labelNames: ["route"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [options.metrics],
  });
  const states = new WeakMap<Request, RequestState>();

  /** The request's state, made at its first use. */
  const stateOf = (request: Request): RequestState => {
    let state = states.get(request);
    if (state === undefined) {
      state = newRequestState(clock.monotonic());
      states.set(request, state);
    }
    return state;
  };

  /** Counts and logs an answered request (once, whichever way it was answered). */
  const finish = (request: Request, route: string): void => {
    const state = stateOf(request);
    const ms = clock.monotonic() - state.startedAt;
    requestsByRoute.inc({ route, method: request.method, status: String(state.status) });
    requestSeconds.observe({ route }, ms / 1000);
    const answer = { route, method: request.method, path: pathOf(request.url), status: state.status };
    const level = requestLogLevel(answer, options.logRequests);
    logger[level](
      { request_id: state.requestId, method: answer.method, path: answer.path, status: state.status, ms },
      "request",
    );
  };

  return { stateOf, finish };
}

/**
 * The path of `url`. Without a usable Host header (HTTP/1.0, or a Host that is no
 * host name) Bun hands over the bare request target ("/v1/devices"), not an
 * absolute URL: both forms are read here, without `new URL`, which throws on the
 * second.
 */
export function pathOf(url: string): string {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}
