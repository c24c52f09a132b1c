/**
 * Admin accounts and sessions (docs/admin.md): first-start setup with the
 * one-time token, login (rate-limited per client address), logout, and who is
 * signed in.
 */
import { Elysia, t } from "elysia";
import { isoOrNull } from "../../lib/clock.ts";
import { hashPassword, minPasswordLength } from "../../lib/crypto.ts";
import { CodedError } from "../../lib/errors.ts";
import { sessionLifetimeMs } from "../../store/contract/admin.ts";
import { memoryRateLimitStore } from "../../store/index.ts";
import { StoreRateLimiter } from "../rate-limit.ts";
import { parseCappedJson } from "./capped-body.ts";
import { type AdminContext, adminPrefix } from "./context.ts";
import { clearedCookieHeader, sessionCookieHeader } from "./session.ts";

const Username = t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9._@-]+$" });

export function adminAuthRoutes(context: AdminContext) {
  const { store, now, sessionOf } = context;
  const admins = store.admin;
  // This process's own counters (a guard against guessing, not the API's contract): in memory on a central too.
  const loginLimiter = new StoreRateLimiter(memoryRateLimitStore(), context.clock);
  const loginLimit = context.loginLimitPerMinute ?? 10;
  // Failed logins of unknown users verify against this, so they take as long as wrong passwords.
  let dummyHash: Promise<string> | null = null;
  const dummy = () => {
    dummyHash ??= Bun.password.hash("fieldhub-dummy-password", { algorithm: "argon2id" });
    return dummyHash;
  };

  return new Elysia({ name: "admin-auth" })
    .get(`${adminPrefix}/setup`, async () => ({ needed: (await admins.countUsers()) === 0 }))
    .post(
      `${adminPrefix}/setup`,
      async ({ request, body, server }) => {
        // Throttled and the token checked (one SHA-256) before the password hash,
        // so guessing costs the box nothing.
        const address = server?.requestIP(request)?.address ?? "unknown";
        const decision = await loginLimiter.take(`setup:${address}`, loginLimit);
        if (!decision.allowed) {
          return context.problem(
            request,
            "rate_limited",
            `More than ${loginLimit} setup attempts in the current minute; retry in ${decision.resetSeconds} s.`,
            { "retry-after": String(decision.resetSeconds) },
          );
        }
        if ((await admins.countUsers()) > 0)
          throw new CodedError("conflict", "Setup is done: an admin account exists.");
        if (!(await admins.setupTokenMatches(body.token, now())))
          throw new CodedError("forbidden", "The setup token is wrong, expired or was already used.");
        const passwordHash = await hashPassword(body.password);
        const user = await admins.completeSetup(body.token, body.username, passwordHash, now());
        if (user === null) {
          if ((await admins.countUsers()) > 0)
            throw new CodedError("conflict", "Setup is done: an admin account exists.");
          throw new CodedError("forbidden", "The setup token is wrong or was already used.");
        }
        return { user: { username: user.username, role: user.role } };
      },
      {
        parse: parseCappedJson,
        body: t.Object({
          token: t.String({ minLength: 1, maxLength: 200 }),
          username: Username,
          password: t.String({ minLength: minPasswordLength, maxLength: 1024 }),
        }),
      },
    )
    .post(
      `${adminPrefix}/login`,
      async ({ request, body, server, set }) => {
        const address = server?.requestIP(request)?.address ?? "unknown";
        const decision = await loginLimiter.take(`login:${address}`, loginLimit);
        if (!decision.allowed) {
          return context.problem(
            request,
            "rate_limited",
            `More than ${loginLimit} login attempts in the current minute; retry in ${decision.resetSeconds} s.`,
            { "retry-after": String(decision.resetSeconds) },
          );
        }
        const user = await admins.findUser(body.username);
        const ok = await Bun.password.verify(body.password, user?.passwordHash ?? (await dummy()));
        if (user === null || !ok) throw new CodedError("unauthorized", "Wrong username or password.");
        const opened = await admins.createSession(user.id, now());
        set.headers["set-cookie"] = sessionCookieHeader(request, opened.token, Math.floor(sessionLifetimeMs / 1000));
        set.headers["cache-control"] = "no-store";
        return {
          user: { username: user.username, role: user.role },
          csrf_token: opened.csrfToken,
          expires_at: isoOrNull(opened.expiresAt),
        };
      },
      {
        parse: parseCappedJson,
        body: t.Object({
          username: t.String({ minLength: 1, maxLength: 200 }),
          password: t.String({ minLength: 1, maxLength: 1024 }),
        }),
      },
    )
    .post(`${adminPrefix}/logout`, async ({ request, set }) => {
      await admins.revokeSession(sessionOf(request).id, now());
      set.headers["set-cookie"] = clearedCookieHeader(request);
      return { signed_out: true };
    })
    .get(`${adminPrefix}/me`, ({ request, set }) => {
      const session = sessionOf(request);
      set.headers["cache-control"] = "no-store";
      return {
        user: { username: session.user.username, role: session.user.role },
        csrf_token: session.csrfToken,
        expires_at: isoOrNull(session.expiresAt),
      };
    });
}
