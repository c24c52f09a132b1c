/**
 * Admin page accounts and sessions. Passwords are kept only as Bun.password
 * hashes (argon2id); a session cookie carries 256 random bits of which the store
 * keeps only the SHA-256, so a copy of the database opens no session. The setup
 * token (first start, no admin yet) is likewise kept only as a hash.
 */
import { and, count, eq, gt, isNull } from "drizzle-orm";
import { randomToken, sameSecret, sha256Hex } from "../lib/crypto.ts";
import type { SqliteConnection } from "./connection.ts";
import type { Synchronous } from "./resolved-operations.ts";
import { type AdminRole, adminRoles, adminSessions, adminUsers, storeMeta } from "./schema.ts";

export { type AdminRole, adminRoles };

/** Sessions last twelve hours from sign-in. */
export const sessionLifetimeMs = 12 * 3_600_000;
export const setupTokenKey = "admin:setup-token-sha256";
/** A setup token is a credential on the console: it lives a day, and a restart replaces it. */
export const setupTokenLifetimeMs = 24 * 3_600_000;

/** The stored value is `<sha256 hex>.<expiry ms>`; a bare hash (stored by an older version) never matches. */
export function storedSetupTokenMatches(stored: string | undefined, token: string, now: number): boolean {
  if (stored === undefined) return false;
  const [hash, expires] = stored.split(".");
  const expiresAt = Number(expires);
  return hash !== undefined && Number.isFinite(expiresAt) && now < expiresAt && sameSecret(hash, sha256Hex(token));
}

export interface AdminUser {
  id: number;
  username: string;
  role: AdminRole;
}

export interface AdminSession {
  id: number;
  csrfToken: string;
  expiresAt: number;
  user: AdminUser;
}

export interface AdminStore {
  countUsers(): Promise<number>;
  listUsers(): Promise<(AdminUser & { createdAt: number })[]>;
  findUser(username: string): Promise<(AdminUser & { passwordHash: string }) | null>;
  /** Creates the user, or sets the password (and role, when given) of an existing one, ending its sessions. */
  setPassword(
    username: string,
    passwordHash: string,
    role: AdminRole | undefined,
    now: number,
  ): Promise<"created" | "updated">;
  /** Opens a session; the token goes into the cookie, only its hash into the store. */
  createSession(userId: number, now: number): Promise<{ token: string; csrfToken: string; expiresAt: number }>;
  /** The live session of a cookie token: null when unknown, revoked or expired. */
  findSession(token: string, now: number): Promise<AdminSession | null>;
  revokeSession(id: number, now: number): Promise<void>;
  /** Signs a user out everywhere; returns how many sessions were open. */
  revokeUserSessions(username: string, now: number): Promise<number>;
  /**
   * First start: while no admin user exists, returns a fresh one-time setup token
   * (its hash replaces any earlier one in the store) for the console banner; null
   * once an admin exists. It expires after `setupTokenLifetimeMs` or at the next
   * start, whichever comes first. `POST /admin/api/setup` spends it.
   */
  issueSetupToken(now?: number): Promise<string | null>;
  /** Whether `token` is the outstanding, unexpired setup token: one SHA-256, no password hash. */
  setupTokenMatches(token: string, now: number): Promise<boolean>;
  /**
   * Creates the first owner if `token` is the outstanding setup token and no admin
   * exists yet; the token is spent either way it succeeds. Returns the owner, or
   * null when the token is wrong or setup is already done.
   */
  completeSetup(token: string, username: string, passwordHash: string, now: number): Promise<AdminUser | null>;
}

export function sqliteAdminStore({ sqlite, db }: SqliteConnection): Synchronous<AdminStore> {
  const userColumns = { id: adminUsers.id, username: adminUsers.username, role: adminUsers.role };

  const users = {
    countUsers(): number {
      return db.select({ total: count() }).from(adminUsers).get()?.total ?? 0;
    },
    listUsers(): (AdminUser & { createdAt: number })[] {
      return db
        .select({ ...userColumns, createdAt: adminUsers.createdAt })
        .from(adminUsers)
        .orderBy(adminUsers.username)
        .all();
    },
    findUser(username: string): (AdminUser & { passwordHash: string }) | null {
      return (
        db
          .select({ ...userColumns, passwordHash: adminUsers.passwordHash })
          .from(adminUsers)
          .where(eq(adminUsers.username, username))
          .get() ?? null
      );
    },
    /** Creates the user, or sets the password (and role, when given) of an existing one. */
    setPassword(
      username: string,
      passwordHash: string,
      role: AdminRole | undefined,
      now: number,
    ): "created" | "updated" {
      const existing = db.select({ id: adminUsers.id }).from(adminUsers).where(eq(adminUsers.username, username)).get();
      if (existing === undefined) {
        db.insert(adminUsers)
          .values({ username, passwordHash, role: role ?? "admin", createdAt: now })
          .run();
        return "created";
      }
      db.update(adminUsers)
        .set(role === undefined ? { passwordHash } : { passwordHash, role })
        .where(eq(adminUsers.id, existing.id))
        .run();
      // A new password ends every session the old one opened.
      db.update(adminSessions)
        .set({ revokedAt: now })
        .where(and(eq(adminSessions.userId, existing.id), isNull(adminSessions.revokedAt)))
        .run();
      return "updated";
    },
    /** Opens a session; the token goes into the cookie, only its hash into the store. */
    createSession(userId: number, now: number): { token: string; csrfToken: string; expiresAt: number } {
      const token = randomToken();
      const csrfToken = randomToken();
      const expiresAt = now + sessionLifetimeMs;
      db.insert(adminSessions)
        .values({ tokenHash: sha256Hex(token), userId, csrfToken, createdAt: now, expiresAt })
        .run();
      return { token, csrfToken, expiresAt };
    },
    /** The live session of a cookie token: null when unknown, revoked or expired. */
    findSession(token: string, now: number): AdminSession | null {
      const row = db
        .select({
          id: adminSessions.id,
          csrfToken: adminSessions.csrfToken,
          expiresAt: adminSessions.expiresAt,
          user: userColumns,
        })
        .from(adminSessions)
        .innerJoin(adminUsers, eq(adminUsers.id, adminSessions.userId))
        .where(
          and(
            eq(adminSessions.tokenHash, sha256Hex(token)),
            isNull(adminSessions.revokedAt),
            gt(adminSessions.expiresAt, now),
          ),
        )
        .get();
      return row ?? null;
    },
    revokeSession(id: number, now: number): void {
      db.update(adminSessions)
        .set({ revokedAt: now })
        .where(and(eq(adminSessions.id, id), isNull(adminSessions.revokedAt)))
        .run();
    },
    /** Signs a user out everywhere; returns how many sessions were open. */
    revokeUserSessions(username: string, now: number): number {
      const user = db.select({ id: adminUsers.id }).from(adminUsers).where(eq(adminUsers.username, username)).get();
      if (user === undefined) return 0;
      const open = and(eq(adminSessions.userId, user.id), isNull(adminSessions.revokedAt));
      const total = db.select({ total: count() }).from(adminSessions).where(open).get()?.total ?? 0;
      db.update(adminSessions).set({ revokedAt: now }).where(open).run();
      return total;
    },
  };
  return {
    ...users,
    issueSetupToken(now = Date.now()) {
      if (users.countUsers() > 0) return null;
      const token = randomToken();
      const value = `${sha256Hex(token)}.${now + setupTokenLifetimeMs}`;
      db.insert(storeMeta)
        .values({ key: setupTokenKey, value })
        .onConflictDoUpdate({ target: storeMeta.key, set: { value } })
        .run();
      return token;
    },
    setupTokenMatches(token, now) {
      const stored = db
        .select({ value: storeMeta.value })
        .from(storeMeta)
        .where(eq(storeMeta.key, setupTokenKey))
        .get();
      return storedSetupTokenMatches(stored?.value, token, now);
    },
    completeSetup: sqlite.transaction((token: string, username: string, passwordHash: string, now: number) => {
      if (users.countUsers() > 0) return null;
      const stored = db
        .select({ value: storeMeta.value })
        .from(storeMeta)
        .where(eq(storeMeta.key, setupTokenKey))
        .get();
      if (!storedSetupTokenMatches(stored?.value, token, now)) return null;
      db.delete(storeMeta).where(eq(storeMeta.key, setupTokenKey)).run();
      users.setPassword(username, passwordHash, "owner", now);
      const user = users.findUser(username);
      return user === null ? null : { id: user.id, username: user.username, role: user.role };
    }),
  };
}
