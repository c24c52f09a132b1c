/** Puts the HTTP app on a socket. */
import type { HttpApp } from "../http/app.ts";

/**
 * The largest body the server reads (Bun's default is 128 MB). /v1 takes no
 * bodies; the largest admin request (an endpoint: a 2,000-character URL, a
 * description, 50 event types) is under 16 KB; the largest is a site's batch of
 * forwarded readings (`maxForwardedReadings` rows of at most about 82 bytes:
 * 0.82 MB, docs/fleet.md). Larger bodies get 413 before they are buffered
 * (docs/admin.md); admin login and setup cap theirs at 8 KB.
 */
const maxRequestBodySize = 1024 * 1024;

/** The address is taken (or not ours to bind): nothing was left listening. */
export class ListenError extends Error {}

export interface Listening {
  /** The URL to show people: `localhost` when bound on every interface. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export function listen(app: HttpApp, host: string, port: number): Listening {
  try {
    // reusePort off: a second fieldhub on the same port must fail, not share it.
    app.listen({ hostname: host, port, reusePort: false, maxRequestBodySize });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ListenError(`cannot listen on ${host}:${port}: ${reason}`);
  }
  const server = app.server;
  if (server === null) throw new ListenError(`cannot listen on ${host}:${port}`);
  const bound = server.port ?? port;
  const shownHost = host === "0.0.0.0" || host === "::" ? "localhost" : host;
  return {
    url: `http://${shownHost}:${bound}`,
    port: bound,
    stop: async () => {
      await app.stop();
    },
  };
}
