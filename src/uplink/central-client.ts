/**
 * A site's calls to its central's /edge door (docs/fleet.md, "The edge protocol"):
 * each request of its declared type, each 2xx answer checked against its declared
 * reply before anything is taken from it. An answer that does not fit (a central
 * of another version) is an error naming the call, the first mismatch and the
 * central's version when it says one: the caller treats it like a refusal, and
 * counts nothing of that call as done.
 */
import { Value } from "@sinclair/typebox/value";
import {
  CentralProblem,
  centralVersionHeader,
  type EdgeMessage,
  type ReplyOf,
  type RequestOf,
} from "../lib/edge-protocol/messages.ts";
import { readReply } from "../lib/edge-protocol/read-reply.ts";

/** Why a call to the central failed. */
export type CentralFailure =
  /** No answer: a network error or a timeout. */
  | { kind: "network"; reason: string }
  /** A non-2xx answer, with its problem+json when it had one. */
  | { kind: "status"; status: number; problem: { code: string; detail?: string } | null }
  /** A 2xx answer this site cannot read. */
  | { kind: "unreadable"; mismatch: string; centralVersion: string | null };

export class CentralCallError extends Error {
  constructor(
    /** The call, as "METHOD /edge/v1/...". */
    readonly call: string,
    readonly failure: CentralFailure,
  ) {
    super(describeFailure(call, failure));
  }

  /**
   * Whether an operator must act on a forwarding call's failure: the central
   * refused it (4xx) or answered what this site cannot read. Otherwise (no answer,
   * a 5xx) it is an outage the site rides out.
   */
  get refused(): boolean {
    return this.failure.kind === "unreadable" || (this.failure.kind === "status" && this.failure.status < 500);
  }
}

function describeFailure(call: string, failure: CentralFailure): string {
  switch (failure.kind) {
    case "network":
      return `${call}: ${failure.reason}`;
    case "status": {
      const said = failure.problem === null ? "" : ` ${failure.problem.code}: ${failure.problem.detail ?? ""}`;
      return `${call}: HTTP ${failure.status}${said}`.trim();
    }
    case "unreadable": {
      const version = failure.centralVersion === null ? "" : ` (central fieldhub ${failure.centralVersion})`;
      return `the central's answer to ${call} does not fit this site's protocol: ${failure.mismatch}${version}`;
    }
  }
}

/** How long one call to the central may take before it counts as no answer. */
const callTimeoutMs = 10_000;

export interface CentralClientOptions {
  url: string;
  /** The site's edge token (docs/fleet.md, "Edge tokens"); never logged. */
  token: string;
  /** How long one call may take before it counts as no answer; 10 s when absent. */
  timeoutMs?: number;
}

export type CentralClient = ReturnType<typeof createCentralClient>;

export function createCentralClient(options: CentralClientOptions) {
  const acceptedListeners: ((call: string) => void)[] = [];
  return {
    /** `listener` hears of every answer the site accepted (a 2xx that fits its declaration), naming the call. */
    onAccepted(listener: (call: string) => void): void {
      acceptedListeners.push(listener);
    },
    /** Sends `message` (with `body` when it has a request) and gives its checked reply; throws CentralCallError. */
    async call<M extends EdgeMessage>(message: M, body?: RequestOf<M>): Promise<ReplyOf<M>> {
      const call = `${message.method} ${message.path}`;
      let response: Response;
      let text: string;
      try {
        response = await fetch(`${options.url}${message.path}`, {
          method: message.method,
          headers: {
            authorization: `Bearer ${options.token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs ?? callTimeoutMs),
        });
        text = await response.text();
      } catch (error) {
        throw new CentralCallError(call, { kind: "network", reason: describeNetworkError(error) });
      }
      const json = parseJson(text);
      if (!response.ok) {
        const problem = Value.Check(CentralProblem, json) ? json : null;
        throw new CentralCallError(call, { kind: "status", status: response.status, problem });
      }
      const read = readReply(message, json);
      if (!read.ok) {
        const centralVersion = response.headers.get(centralVersionHeader);
        throw new CentralCallError(call, { kind: "unreadable", mismatch: read.mismatch, centralVersion });
      }
      for (const listener of acceptedListeners) listener(call);
      return read.reply;
    },
  };
}

/** The JSON value of `text`, or undefined when it is none. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "no answer in time";
  const code = error instanceof Error && "code" in error ? error.code : undefined;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}
