/**
 * The /edge/v1 protocol between a site and its central (docs/fleet.md, "The edge
 * protocol"): every request and reply, declared once. The central validates each
 * request against its schema (http/edge/) and answers a reply of its type; the site
 * sends requests of their types and checks every reply (uplink/central-client.ts,
 * with `readReply`), so a central of another version that answers something this
 * site cannot read is named, never trusted.
 *
 * Replies may carry fields a site does not know (a newer central adds some): a
 * schema names only what the site reads, and extra fields pass.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { AlertsPosition, AlertsReceipt, ForwardedAlerts } from "./alerts.ts";
import { InventoryReceipt, SiteInventory } from "./inventory.ts";
import { ForwardedReadings, Positions, ReadingsReceipt } from "./readings.ts";
import { SessionReply } from "./session.ts";
import { ForwardedStatus, StatusReceipt } from "./status.ts";

export interface EdgeMessage {
  method: "GET" | "PUT" | "POST";
  path: `/edge/v1/${string}`;
  /** The body the site sends; absent for a GET. */
  request?: TSchema;
  /** The body of the central's 2xx answer. */
  reply: TSchema;
}

export const edgeMessages = {
  session: { method: "GET", path: "/edge/v1/session", reply: SessionReply },
  inventory: { method: "PUT", path: "/edge/v1/inventory", request: SiteInventory, reply: InventoryReceipt },
  positions: { method: "GET", path: "/edge/v1/positions", reply: Positions },
  readings: { method: "POST", path: "/edge/v1/readings", request: ForwardedReadings, reply: ReadingsReceipt },
  status: { method: "PUT", path: "/edge/v1/status", request: ForwardedStatus, reply: StatusReceipt },
  alertPosition: { method: "GET", path: "/edge/v1/alerts", reply: AlertsPosition },
  alerts: { method: "POST", path: "/edge/v1/alerts", request: ForwardedAlerts, reply: AlertsReceipt },
} as const satisfies Record<string, EdgeMessage>;

export type RequestOf<M extends EdgeMessage> = M extends { request: infer S extends TSchema } ? Static<S> : never;
export type ReplyOf<M extends EdgeMessage> = Static<M["reply"]>;

/** The header with which the central says its fieldhub version on each /edge reply. */
export const centralVersionHeader = "fieldhub-version";

/** What a site reads of a refusal (problem+json, docs/api.md): its code and detail. */
export const CentralProblem = Type.Object({ code: Type.String(), detail: Type.Optional(Type.String()) });
