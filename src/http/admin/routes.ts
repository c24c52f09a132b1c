/**
 * The admin page's API under /admin/api (docs/admin.md): JSON in and out, a
 * cookie session, CSRF tokens on every change, and the same services as the CLI.
 * It is separate from /v1, which stays read-only.
 */
import { Elysia, t } from "elysia";
import { type Clock, isoOrNull } from "../../lib/clock.ts";
import { CodedError, type ErrorCode } from "../../lib/errors.ts";
import { apiKeyStatus, apiScopes } from "../../lib/api-keys.ts";
import { hashPassword, minPasswordLength } from "../../lib/crypto.ts";
import { parseRfc3339 } from "../../lib/timestamps.ts";
import { alertService } from "../../rules/alerts-service.ts";
import { type AdminSession, sessionLifetimeMs } from "../../store/admin.ts";
import type { Store } from "../../store/index.ts";
import { UnknownOrganizationError } from "../../store/keys.ts";
import { alertSeverities, alertStatuses } from "../../store/schema.ts";
import { endpointService } from "../../webhooks/endpoints.ts";
import { presentApiKey, presentCreatedApiKey } from "../presenters/api-keys.ts";
import { FixedWindowRateLimiter } from "../rate-limit.ts";
import { presentAlert } from "../v1/present.ts";
import { optionalEnum } from "../v1/query.ts";
import { adminInventoryRoutes } from "./inventory.ts";
import { checkChange, clearedCookieHeader, isChange, requireSession, sessionCookieHeader } from "./session.ts";

export interface AdminDeps {
  store: Store;
  clock: Clock;
  /** A problem+json response carrying the request's id and headers (plus `headers`). */
  problem(request: Request, code: ErrorCode, detail?: string, headers?: Record<string, string>): Response;
  /** Called after a change that recorded an event (wakes webhook delivery). */
  onEvent?: () => void;
  /** Login attempts per client address per minute (default 10). */
  loginLimitPerMinute?: number;
}

const prefix = "/admin/api";
/** Routes that need no session: they open one. */
const publicRoutes = new Set([`${prefix}/login`, `${prefix}/setup`]);

const Username = t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9._@-]+$" });
const Note = t.Optional(t.Object({ note: t.Optional(t.Nullable(t.String({ maxLength: 2000 }))) }));

export function adminRoutes(deps: AdminDeps) {
  const { store, clock } = deps;
  const now = () => clock.now();
  const { admin: admins, alerts: alertsRead, gateways } = store;
  const alerts = alertService(store, now, deps.onEvent);
  const endpoints = endpointService(store, now);
  const loginLimiter = new FixedWindowRateLimiter(clock);
  const loginLimit = deps.loginLimitPerMinute ?? 10;
  const sessions = new WeakMap<Request, AdminSession>();
  // Failed logins of unknown users verify against this, so they take as long as wrong passwords.
  let dummyHash: Promise<string> | null = null;
  const dummy = () => {
    dummyHash ??= Bun.password.hash("fieldhub-dummy-password", { algorithm: "argon2id" });
    return dummyHash;
  };
  const sessionOf = (request: Request): AdminSession => {
    const session = sessions.get(request);
    if (session === undefined) throw new CodedError("unauthorized", "Sign in first: no admin session.");
    return session;
  };
  const userView = (session: AdminSession) => ({ username: session.user.username, role: session.user.role });

  return (
    new Elysia({ name: "admin-api" })
      // Before body validation, so a change without a session or CSRF token is refused whatever it carries.
      .onTransform(({ request, path }) => {
        if (!path.startsWith(`${prefix}/`) || publicRoutes.has(path)) return;
        const session = requireSession(admins, request, now());
        // Signing out changes nothing but the session: a viewer may.
        if (isChange(request.method)) checkChange(session, request, path === `${prefix}/logout`);
        sessions.set(request, session);
      })
      .use(adminInventoryRoutes(store, clock))
      .get(`${prefix}/setup`, () => ({ needed: admins.countUsers() === 0 }))
      .post(
        `${prefix}/setup`,
        async ({ body }) => {
          if (admins.countUsers() > 0) throw new CodedError("conflict", "Setup is done: an admin account exists.");
          const passwordHash = await hashPassword(body.password);
          const user = admins.completeSetup(body.token, body.username, passwordHash, now());
          if (user === null) {
            if (admins.countUsers() > 0) throw new CodedError("conflict", "Setup is done: an admin account exists.");
            throw new CodedError("forbidden", "The setup token is wrong or was already used.");
          }
          return { user: { username: user.username, role: user.role } };
        },
        {
          body: t.Object({
            token: t.String({ minLength: 1, maxLength: 200 }),
            username: Username,
            password: t.String({ minLength: minPasswordLength, maxLength: 1024 }),
          }),
        },
      )
      .post(
        `${prefix}/login`,
        async ({ request, body, server, set }) => {
          const address = server?.requestIP(request)?.address ?? "unknown";
          const decision = loginLimiter.take(`login:${address}`, loginLimit);
          if (!decision.allowed) {
            return deps.problem(
              request,
              "rate_limited",
              `More than ${loginLimit} login attempts in the current minute; retry in ${decision.resetSeconds} s.`,
              { "retry-after": String(decision.resetSeconds) },
            );
          }
          const user = admins.findUser(body.username);
          const ok = await Bun.password.verify(body.password, user?.passwordHash ?? (await dummy()));
          if (user === null || !ok) throw new CodedError("unauthorized", "Wrong username or password.");
          const opened = admins.createSession(user.id, now());
          set.headers["set-cookie"] = sessionCookieHeader(request, opened.token, Math.floor(sessionLifetimeMs / 1000));
          set.headers["cache-control"] = "no-store";
          return {
            user: { username: user.username, role: user.role },
            csrf_token: opened.csrfToken,
            expires_at: isoOrNull(opened.expiresAt),
          };
        },
        {
          body: t.Object({
            username: t.String({ minLength: 1, maxLength: 200 }),
            password: t.String({ minLength: 1, maxLength: 1024 }),
          }),
        },
      )
      .post(`${prefix}/logout`, ({ request, set }) => {
        admins.revokeSession(sessionOf(request).id, now());
        set.headers["set-cookie"] = clearedCookieHeader(request);
        return { signed_out: true };
      })
      .get(`${prefix}/me`, ({ request, set }) => {
        const session = sessionOf(request);
        set.headers["cache-control"] = "no-store";
        return { user: userView(session), csrf_token: session.csrfToken, expires_at: isoOrNull(session.expiresAt) };
      })

      // API keys (spec section 5): the key itself is shown once, on creation.
      .get(
        `${prefix}/keys`,
        ({ query }) => ({
          data: store.keys.list(query.organization).map((key) => ({
            ...presentApiKey(key),
            status: apiKeyStatus(key, now()),
          })),
        }),
        { query: t.Object({ organization: t.Optional(t.String({ maxLength: 200 })) }) },
      )
      .post(
        `${prefix}/keys`,
        ({ body, set }) => {
          let expiresAt: number | null = null;
          if (body.expires_at !== undefined && body.expires_at !== null) {
            expiresAt = parseRfc3339(body.expires_at);
            if (expiresAt === null) throw new CodedError("invalid_parameter", "expires_at: not an RFC 3339 date-time.");
            if (expiresAt <= now()) throw new CodedError("invalid_parameter", "expires_at: lies in the past.");
          }
          try {
            const created = store.keys.create(
              { orgKey: body.organization, name: body.name, scopes: [...new Set(body.scopes)], expiresAt },
              now(),
            );
            set.status = 201;
            set.headers["cache-control"] = "no-store";
            return { ...presentCreatedApiKey(created), status: "active" };
          } catch (error) {
            if (error instanceof UnknownOrganizationError) {
              throw new CodedError("invalid_parameter", `organization: no organisation "${error.orgKey}".`);
            }
            throw error;
          }
        },
        {
          body: t.Object({
            organization: t.String({ minLength: 1, maxLength: 200 }),
            name: t.String({ minLength: 1, maxLength: 200 }),
            scopes: t.Array(t.UnionEnum(apiScopes), { maxItems: apiScopes.length * 2 }),
            expires_at: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
          }),
        },
      )
      .post(
        `${prefix}/keys/:id/revoke`,
        ({ params }) => {
          const revoked = store.keys.revoke(params.id, now());
          if (revoked === 0) throw new CodedError("not_found", `No unrevoked key ${params.id}.`);
          return { revoked };
        },
        { params: t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) }) },
      )

      // Alerts (spec section 3), through the same service as `fieldhub alerts`.
      .get(
        `${prefix}/alerts`,
        ({ query }) => {
          const limit = query.limit ?? 100;
          const organizations =
            query.organization === undefined
              ? store.organizations.list()
              : [store.organizations.findByKey(query.organization)].filter((org) => org !== null);
          if (organizations.length === 0) {
            throw new CodedError("not_found", `No organisation "${query.organization}".`);
          }
          const rows = [];
          let total = 0;
          for (const org of organizations) {
            let gatewayId: number | undefined;
            if (query.device_id !== undefined) {
              const found = gateways.locate(org.id, query.device_id);
              if (found === null) continue;
              gatewayId = found;
            }
            const page = alertsRead.list(org.id, {
              status: query.status,
              severity: query.severity,
              gatewayId,
              limit,
              offset: 0,
            });
            total += page.total;
            for (const row of page.rows) rows.push({ organization: org.key, ...presentAlert(row) });
          }
          rows.sort((a, b) => (b.last_triggered_at ?? "").localeCompare(a.last_triggered_at ?? ""));
          return { data: rows.slice(0, limit), meta: { total } };
        },
        {
          query: t.Object({
            organization: t.Optional(t.String({ maxLength: 200 })),
            status: optionalEnum("status", alertStatuses),
            severity: optionalEnum("severity", alertSeverities),
            device_id: t.Optional(t.String({ format: "uuid" })),
            limit: t.Optional(t.Numeric({ minimum: 1, maximum: 1000, multipleOf: 1 })),
          }),
        },
      )
      .post(
        `${prefix}/alerts/:id/acknowledge`,
        ({ params, body }) => presentRecord(alerts.acknowledge(checkUuid(params.id), body?.note ?? null)),
        { params: t.Object({ id: t.String() }), body: Note },
      )
      .post(
        `${prefix}/alerts/:id/resolve`,
        ({ params, body }) => presentRecord(alerts.resolve(checkUuid(params.id), body?.note ?? null)),
        { params: t.Object({ id: t.String() }), body: Note },
      )

      // Webhook endpoints (spec section 6), through the same service as `fieldhub endpoints`.
      .get(`${prefix}/endpoints`, ({ query }) => ({ data: endpoints.list(query.organization) }), {
        query: t.Object({ organization: t.Optional(t.String({ maxLength: 200 })) }),
      })
      .post(
        `${prefix}/endpoints`,
        ({ body, set }) => {
          const created = endpoints.create({
            orgKey: body.organization,
            url: body.url,
            description: body.description ?? null,
            events: body.events,
          });
          set.status = 201;
          return created;
        },
        {
          body: t.Object({
            organization: t.String({ minLength: 1, maxLength: 200 }),
            url: t.String({ minLength: 1, maxLength: 2000 }),
            description: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
            events: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 50 })),
          }),
        },
      )
      .get(`${prefix}/endpoints/:id`, ({ params }) => endpoints.get(params.id))
      .get(`${prefix}/endpoints/:id/secret`, ({ params, request, set }) => {
        // Signing secrets are shown to owners and admins only; a viewer reads everything else.
        if (sessionOf(request).user.role === "viewer") {
          throw new CodedError("forbidden", "Signing secrets are shown to owners and admins only.");
        }
        set.headers["cache-control"] = "no-store";
        const secret = endpoints.secret(params.id);
        return { secret: secret.secret, previous_secret: secret.previous, previous_valid_until: secret.previousUntil };
      })
      .post(
        `${prefix}/endpoints/:id/rotate-secret`,
        ({ params, body, set }) => {
          set.headers["cache-control"] = "no-store";
          const rotated = endpoints.rotateSecret(params.id, (body?.grace_hours ?? 24) * 3_600_000);
          return { secret: rotated.secret, previous_valid_until: rotated.previousValidUntil };
        },
        { body: t.Optional(t.Object({ grace_hours: t.Optional(t.Integer({ minimum: 0, maximum: 24 * 30 })) })) },
      )
      .post(
        `${prefix}/endpoints/:id/enable`,
        ({ params, body }) => {
          const enabled = endpoints.enable(params.id, { discardHeld: body?.discard_held ?? false });
          deps.onEvent?.();
          return enabled;
        },
        { body: t.Optional(t.Object({ discard_held: t.Optional(t.Boolean()) })) },
      )
      .post(
        `${prefix}/endpoints/:id/resend`,
        ({ params, body }) => {
          endpoints.resend(params.id, body.message_id);
          deps.onEvent?.();
          return { message_id: body.message_id };
        },
        { body: t.Object({ message_id: t.String({ minLength: 1, maxLength: 100 }) }) },
      )
      .post(`${prefix}/endpoints/:id/test`, ({ params }) => {
        const messageId = endpoints.sendTest(params.id);
        deps.onEvent?.();
        return { message_id: messageId };
      })
      .get(
        `${prefix}/endpoints/:id/deliveries`,
        ({ params, query }) => ({ data: endpoints.deliveries(params.id, query.limit ?? 50) }),
        { query: t.Object({ limit: t.Optional(t.Numeric({ minimum: 1, maximum: 500, multipleOf: 1 })) }) },
      )
  );
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkUuid(id: string): string {
  if (!uuidPattern.test(id)) throw new CodedError("not_found", `No alert ${id}.`);
  return id;
}

function presentRecord(alert: {
  uuid: string;
  gatewayUuid: string | null;
  ruleId: string | null;
  severity: string;
  message: string;
  status: string;
  value: number | null;
  ackAt: number | null;
  resolvedAt: number | null;
}) {
  return {
    id: alert.uuid,
    device_id: alert.gatewayUuid,
    rule_id: alert.ruleId,
    severity: alert.severity,
    message: alert.message,
    status: alert.status,
    value: alert.value,
    ack_at: isoOrNull(alert.ackAt),
    resolved_at: isoOrNull(alert.resolvedAt),
  };
}
