/**
 * Admin page accounts and sessions. Passwords are kept only as Bun.password
 * hashes (argon2id); a session cookie carries 256 random bits of which the store
 * keeps only the SHA-256, so a copy of the database opens no session. The setup
 * token (first start, no admin yet) is likewise kept only as a hash.
 */
import { and, count, eq, gt, isNull } from "drizzle-orm";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import {
  type AdminRole,
  type AdminSession,
  type AdminStore,
  type AdminUser,
  sessionLifetimeMs,
  setupTokenKey,
  setupTokenLifetimeMs,
  storedSetupTokenMatches,
} from "../contract/admin.ts";
import type { SqliteConnection } from "./connection.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { adminSessions, adminUsers, storeMeta } from "./schema.ts";

export function sqliteAdminStore({ sqlite, db }: SqliteConnection): AdminStore {
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
  return resolvedOperations<AdminStore>({
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
  });
}
