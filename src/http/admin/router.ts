/**
 * The admin page's API under /admin/api (docs/admin.md): JSON in and out, a
 * cookie session, CSRF tokens on every change, and the same services as the CLI.
 * It is separate from /v1, which stays read-only. This router checks the session
 * once, when the request arrives (before its body is read), and mounts one
 * plugin per resource.
 */
import { Elysia } from "elysia";
import { CodedError } from "../../lib/errors.ts";
import type { AdminSession } from "../../store/contract/admin.ts";
import { adminAlertRoutes } from "./alerts.ts";
import { adminAuthRoutes } from "./auth.ts";
import { type AdminContext, type AdminDeps, adminPrefix } from "./context.ts";
import { adminEdgeRoutes } from "./edges.ts";
import { adminEndpointRoutes } from "./endpoints.ts";
import { adminInventoryRoutes } from "./inventory.ts";
import { adminKeyRoutes } from "./keys.ts";
import { adminMqttRoutes } from "./mqtt.ts";
import { checkChange, isChange, requireSession, sessionCookie } from "./session.ts";
import { adminUplinkRoutes } from "./uplink.ts";
import { adminWriteRoutes } from "./writes.ts";

export type { AdminDeps } from "./context.ts";

/** The path of a request URL, absolute or (without a Host header) the bare target. */
function pathOf(url: string): string {
  const path = url.startsWith("/") ? url : (URL.parse(url)?.pathname ?? "/");
  const query = path.indexOf("?");
  return query < 0 ? path : path.slice(0, query);
}

/** One cookie from the Cookie header (read here: Elysia's cookie context comes after the body). */
function cookieValue(request: Request, name: string): string | null {
  for (const pair of (request.headers.get("cookie") ?? "").split(";")) {
    const equals = pair.indexOf("=");
    if (equals > 0 && pair.slice(0, equals).trim() === name) return pair.slice(equals + 1).trim();
  }
  return null;
}

/** Routes that need no session: they open one. */
const publicRoutes = new Set([`${adminPrefix}/login`, `${adminPrefix}/setup`]);

export function adminRoutes(deps: AdminDeps) {
  const admins = deps.store.admin;
  const sessions = new WeakMap<Request, AdminSession>();
  const context: AdminContext = {
    ...deps,
    now: () => deps.clock.now(),
    sessionOf(request) {
      const session = sessions.get(request);
      if (session === undefined) throw new CodedError("unauthorized", "Sign in first: no admin session.");
      return session;
    },
  };

  return (
    new Elysia({ name: "admin-api" })
      // On arrival, before any byte of the body is read: a request without a
      // session (or a change without its CSRF token) is refused whatever it
      // carries, so an unauthenticated body costs no memory.
      .onRequest(async ({ request }) => {
        const path = pathOf(request.url);
        if (!path.startsWith(`${adminPrefix}/`) || publicRoutes.has(path)) return;
        const session = await requireSession(admins, cookieValue(request, sessionCookie), context.now());
        // Signing out changes nothing but the session: a viewer may.
        if (isChange(request.method)) checkChange(session, request, path === `${adminPrefix}/logout`);
        sessions.set(request, session);
      })
      .use(adminInventoryRoutes(deps.store, deps.clock, deps.deviceHealth, deps.modbusServerView))
      .use(adminAuthRoutes(context))
      .use(adminKeyRoutes(context))
      .use(adminAlertRoutes(context))
      .use(adminEndpointRoutes(context))
      .use(adminWriteRoutes(context))
      .use(adminUplinkRoutes(context))
      .use(adminMqttRoutes(context))
      .use(adminEdgeRoutes(context))
  );
}
