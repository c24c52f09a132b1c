/**
 * CORS for the /v1 API (config `api.cors_origins`, docs/api.md section 4.11): a
 * dashboard on another origin may call the read API with its key. A preflight from an allowed origin is answered here, before the API
 * gate, since browsers send it without the Authorization header (app.ts adds the
 * request id and the address's rate-limit headers, uncounted); every other
 * answer to an allowed origin (errors included) carries the headers a browser
 * needs to hand the body and the rate-limit headers to the page.
 */

export interface CorsPolicy {
  /**
   * Adds the CORS headers for the request's origin to `headers` (nothing for no or
   * a disallowed origin); returns the whole answer for a preflight from an allowed
   * origin, else null.
   */
  apply(request: Request, headers: Record<string, string>): Response | null;
}

/** The headers a page may read: the request id and the rate-limit headers (docs/api.md sections 7 and 8). */
const exposedHeaders = "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After";
const allowedRequestHeaders = "Authorization, Content-Type";
/** The read methods only (docs/api.md section 4.11): a page is not offered the register write. */
const allowedMethods = "GET, HEAD, OPTIONS";
/** How long a browser may reuse a preflight answer (browsers cap it at 2 h or less). */
const preflightMaxAgeSeconds = "600";

/** `origins`: exact origins (`https://dash.example.com`, compared case-insensitively) or `*` for any. */
export function corsPolicy(origins: readonly string[]): CorsPolicy {
  const anyOrigin = origins.includes("*");
  const allowed = new Set(origins.map((origin) => origin.toLowerCase()));
  const allows = (origin: string) => anyOrigin || allowed.has(origin.toLowerCase());
  return {
    apply(request, headers) {
      if (origins.length === 0) return null;
      // With a list, the answer depends on the Origin (headers or none): caches must know.
      if (!anyOrigin) headers.vary = "Origin";
      const origin = request.headers.get("origin");
      if (origin === null || !allows(origin)) return null;
      headers["access-control-allow-origin"] = anyOrigin ? "*" : origin;
      headers["access-control-expose-headers"] = exposedHeaders;
      const preflight = request.method === "OPTIONS" && request.headers.get("access-control-request-method") !== null;
      if (!preflight) return null;
      return new Response(null, {
        status: 204,
        headers: {
          ...headers,
          "access-control-allow-methods": allowedMethods,
          "access-control-allow-headers": allowedRequestHeaders,
          "access-control-max-age": preflightMaxAgeSeconds,
        },
      });
    },
  };
}
