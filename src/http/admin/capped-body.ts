/**
 * The JSON body of an unauthenticated admin request (login, setup), read with a
 * cap: anyone on the LAN may send these, so no more than a few KB is ever read
 * into memory, and a larger body is refused at once.
 */
import { CodedError } from "../../lib/errors.ts";

/** What login and setup need (a username, a password up to 1024 bytes, a token) with room to spare. */
export const credentialsBodyLimit = 8 * 1024;

function tooLarge(): CodedError {
  return new CodedError("payload_too_large", `The body may be at most ${credentialsBodyLimit} bytes.`);
}

/** For Elysia's `parse` hook: the body as JSON, `payload_too_large` past the cap, `bad_request` when it is not JSON. */
export async function parseCappedJson({ request }: { request: Request }): Promise<unknown> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > credentialsBodyLimit) throw tooLarge();
  const reader = request.body?.getReader();
  if (reader === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > credentialsBodyLimit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new CodedError("bad_request", "The body is not JSON.");
  }
}
