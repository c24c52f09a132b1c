/**
 * prom-client's metric classes, each required from its own file. prom-client's
 * index evaluates every part at start: the Pushgateway (node:http, node:https,
 * node:zlib), the cluster aggregator and the default metrics (@opentelemetry/api,
 * node:v8, node:perf_hooks), none of which fieldhub uses; requiring the four files
 * it uses keeps them unloaded (docs/benchmarks.md, "Footprint"). Types come from
 * the package's own declarations.
 */
import type * as PromClient from "prom-client";

export const Counter = require("prom-client/lib/counter") as typeof PromClient.Counter;
export const Gauge = require("prom-client/lib/gauge") as typeof PromClient.Gauge;
export const Histogram = require("prom-client/lib/histogram") as typeof PromClient.Histogram;
export const Registry = require("prom-client/lib/registry") as typeof PromClient.Registry;
export type Registry = PromClient.Registry;
