/**
 * `fieldhub webhooks listen`: a small receiver for people writing their own. It
 * verifies each delivery as a receiver should (docs/api.md section 6), answers 204 to a
 * valid one and 400 otherwise, and prints every delivery with the reason for a
 * rejection: clock skew, a bad signature, or missing headers.
 */
import { isSigningSecret, type Verification, verifyDelivery } from "../webhooks/signing.ts";
import { CommandError, parseCommandArgs, parsePort, requireOption, UsageError } from "./args.ts";
import type { CommandHelp } from "./help.ts";

export const webhooksHelp: readonly CommandHelp[] = [
  {
    command: "webhooks listen",
    arguments: "--port P --secret whsec_... [--host H] [--tolerance SECONDS]",
    summary:
      "Receive webhook deliveries as a receiver should: verify each, answer 204 (or 400), print it with the reason for a rejection.",
    options: [
      { flag: "--port P", text: "port to listen on (0: any free port, printed at start)" },
      {
        flag: "--secret whsec_...",
        text: "the endpoint's signing secret, as `fieldhub endpoints secret --data DIR ID` shows it",
      },
      { flag: "--host H", text: "address to listen on (default 0.0.0.0: every interface)" },
      { flag: "--tolerance SECONDS", text: "largest clock difference accepted in webhook-timestamp (default 300)" },
    ],
  },
];

export function webhooksCommand(argv: string[]): void {
  const [action, ...rest] = argv;
  switch (action) {
    case "listen":
      listen(rest);
      return;
    default:
      throw new UsageError(action === undefined ? "webhooks needs an action" : `unknown webhooks action "${action}"`);
  }
}

const signedHeaders = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

/** Why a delivery was rejected, in words for the person at the terminal (and the 400 body). */
export function rejectionReason(
  verification: Exclude<Verification, { ok: true }>,
  headers: Headers,
  toleranceSeconds: number,
): string {
  switch (verification.reason) {
    case "missing_headers": {
      const missing = signedHeaders.filter((name) => headers.get(name) === null);
      return `missing headers: ${missing.join(", ")}`;
    }
    case "bad_timestamp":
      return `bad header: webhook-timestamp is not a whole number of seconds: ${headers.get("webhook-timestamp")}`;
    case "timestamp_too_old":
    case "timestamp_too_new": {
      const skew = Math.abs(verification.skewSeconds ?? 0);
      const direction = verification.reason === "timestamp_too_old" ? "behind" : "ahead of";
      return (
        `clock skew: webhook-timestamp is ${skew} s ${direction} this machine's clock ` +
        `(tolerance ${toleranceSeconds} s); check the clocks of both machines (NTP)` +
        (verification.reason === "timestamp_too_old" ? ", or this is a replayed delivery" : "")
      );
    }
    case "bad_signature":
      return "bad signature: no v1 signature matches this secret and the raw body (wrong secret, or the body was changed on the way)";
  }
}

function prettyBody(body: string): string {
  if (body === "") return "(empty body)";
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function bodyType(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { type?: unknown };
    return typeof parsed.type === "string" ? parsed.type : null;
  } catch {
    return null;
  }
}

function listen(argv: string[]): void {
  const { values } = parseCommandArgs(argv, {
    port: { type: "string" },
    secret: { type: "string" },
    host: { type: "string" },
    tolerance: { type: "string" },
  });
  const port = parsePort(requireOption(values.port, "--port"), 0);
  const secret = requireOption(values.secret, "--secret");
  if (!isSigningSecret(secret)) {
    throw new UsageError(
      "--secret: not a signing secret (whsec_ followed by base64, as `fieldhub endpoints secret` shows)",
    );
  }
  const host = values.host ?? "0.0.0.0";
  const toleranceSeconds = values.tolerance === undefined ? 300 : Number(values.tolerance);
  if (!Number.isInteger(toleranceSeconds) || toleranceSeconds < 1 || toleranceSeconds > 86_400) {
    throw new UsageError(`--tolerance: a whole number of seconds from 1 to 86400: ${values.tolerance}`);
  }

  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: host,
      port,
      reusePort: false,
      async fetch(request) {
        if (request.method !== "POST") {
          return new Response("fieldhub webhooks listen: POST webhook deliveries here (any path)\n", {
            status: 405,
            headers: { allow: "POST" },
          });
        }
        // Verify the raw body bytes as received (docs/api.md section 6.3, step 5); decode only to print it.
        const raw = new Uint8Array(await request.arrayBuffer());
        const body = Buffer.from(raw).toString("utf8");
        const receivedAt = Date.now();
        const nowSeconds = Math.floor(receivedAt / 1000);
        const headers = request.headers;
        const verification = verifyDelivery(
          secret,
          {
            id: headers.get("webhook-id"),
            timestamp: headers.get("webhook-timestamp"),
            signature: headers.get("webhook-signature"),
          },
          raw,
          nowSeconds,
          toleranceSeconds,
        );
        const type = headers.get("x-service-event") ?? bodyType(body) ?? "(no type)";
        const id = headers.get("webhook-id") ?? "(no webhook-id)";
        const path = new URL(request.url).pathname;
        const verdict = verification.ok
          ? "valid"
          : `REJECTED: ${rejectionReason(verification, headers, toleranceSeconds)}`;
        process.stdout.write(
          `${new Date(receivedAt).toISOString()}  POST ${path}  ${id}  ${type}  ${verdict}\n${prettyBody(body)}\n\n`,
        );
        if (verification.ok) return new Response(null, { status: 204 });
        return new Response(`${verdict}\n`, { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
      },
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CommandError(`cannot listen on ${host}:${port}: ${reason}`);
  }
  const shownHost = host === "0.0.0.0" || host === "::" ? "localhost" : host;
  process.stdout.write(
    `listening on http://${shownHost}:${server.port}/ (any path); verifying webhook signatures, ` +
      `tolerance ${toleranceSeconds} s. Ctrl-C stops.\n`,
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.stop(true).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
