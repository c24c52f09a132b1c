/**
 * `PUT /edge/v1/status` (docs/fleet.md, "Forwarding", step 4): each gateway's
 * status and last-seen time as the site's own tracker stored them.
 */
import { Type } from "@sinclair/typebox";
import { maxForwardedGateways } from "./limits.ts";
import { count, nullable, oneOf, unixMs } from "./wire.ts";

/** The statuses a gateway has on the wire (the store's gateway statuses; each side's compiler holds them equal). */
export const ForwardedStatus = Type.Object({
  gateways: Type.Array(
    Type.Object({
      id: Type.String({ minLength: 1, maxLength: 64 }),
      status: oneOf(["online", "offline", "pending", "error"]),
      last_seen: nullable(unixMs),
    }),
    { maxItems: maxForwardedGateways },
  ),
});

/** Gateways sent, and those whose status or last-seen time changed on the central. */
export const StatusReceipt = Type.Object({ gateways: count, changed: count });
