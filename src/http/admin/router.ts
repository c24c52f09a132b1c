/**
 * The admin page's API under /admin/api (docs/admin.md): JSON in and out, a
 * cookie session, CSRF tokens on every change, and the same services as the CLI.
 * It is separate from /v1, which stays read-only. This router checks the session
 * once, before body validation, and mounts one plugin per resource.
 */
import { Elysia } from "elysia";
import { CodedError } from "../../lib/errors.ts";
import type { AdminSession } from "../../store/admin.ts";
import { adminAlertRoutes } from "./alerts.ts";
import { adminAuthRoutes } from "./auth.ts";
import { type AdminContext, type AdminDeps, adminPrefix } from "./context.ts";
import { adminEndpointRoutes } from "./endpoints.ts";
import { adminInventoryRoutes } from "./inventory.ts";
import { adminKeyRoutes } from "./keys.ts";
import { adminWriteRoutes } from "./writes.ts";
import { checkChange, isChange, requireSession, sessionCookie } from "./session.ts";

export type { AdminDeps } from "./context.ts";

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
      // Before body validation, so a change without a session or CSRF token is refused whatever it carries.
      .onTransform(({ request, path, cookie }) => {
        if (!path.startsWith(`${adminPrefix}/`) || publicRoutes.has(path)) return;
        // Elysia reads the Cookie header; a token is never JSON or a number, so anything else is no session of ours.
        const token = cookie[sessionCookie]?.value;
        const session = requireSession(
          admins,
          token === undefined || token === null ? null : String(token),
          context.now(),
        );
        // Signing out changes nothing but the session: a viewer may.
        if (isChange(request.method)) checkChange(session, request, path === `${adminPrefix}/logout`);
        sessions.set(request, session);
      })
      .use(adminInventoryRoutes(deps.store, deps.clock, deps.deviceHealth))
      .use(adminAuthRoutes(context))
      .use(adminKeyRoutes(context))
      .use(adminAlertRoutes(context))
      .use(adminEndpointRoutes(context))
      .use(adminWriteRoutes(context))
  );
}
