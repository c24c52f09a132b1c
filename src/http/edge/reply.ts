/** The central's answer to a site's /edge call: the declared reply (lib/edge-protocol/), with the central's version. */
import { centralVersionHeader, type EdgeMessage, type ReplyOf } from "../../lib/edge-protocol/messages.ts";
import { version } from "../../lib/version.ts";

export function edgeReply<M extends EdgeMessage>(_message: M, body: ReplyOf<M>): Response {
  // The version lets a site name a central whose answers it cannot read (docs/fleet.md, "The edge protocol").
  return Response.json(body, { headers: { [centralVersionHeader]: version } });
}
