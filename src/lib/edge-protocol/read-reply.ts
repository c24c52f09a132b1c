/**
 * A site's check of every answer from its central (docs/fleet.md, "The edge
 * protocol"): an answer that does not fit the declared reply is named by its first
 * mismatch (JSON pointer and expectation), never used.
 */
import { Value } from "@sinclair/typebox/value";
import type { EdgeMessage, ReplyOf } from "./messages.ts";

export type ReadReply<M extends EdgeMessage> = { ok: true; reply: ReplyOf<M> } | { ok: false; mismatch: string };

/** The body (parsed JSON, or undefined when it was none) as `message`'s reply, or what does not fit. */
export function readReply<M extends EdgeMessage>(message: M, body: unknown): ReadReply<M> {
  if (body === undefined) return { ok: false, mismatch: "not JSON" };
  if (Value.Check(message.reply, body)) return { ok: true, reply: body };
  const first = Value.Errors(message.reply, body).First();
  if (first === undefined) return { ok: false, mismatch: "does not fit" };
  const expected = first.message.charAt(0).toLowerCase() + first.message.slice(1);
  return { ok: false, mismatch: `${first.path === "" ? "/" : first.path}: ${expected}` };
}
