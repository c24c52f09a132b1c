/**
 * Admin accounts and sessions on PostgreSQL, as ../sqlite/admin.ts: passwords kept only
 * as Bun.password hashes, session and setup tokens only as SHA-256, so a copy of
 * the database opens no session. The setup token lives in `store_meta`, shared by
 * every central process: the one that printed it need not be the one that takes it.
 */
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
import type { Sql } from "./connection.ts";
import { firstOf, rowsOf } from "./rows.ts";

export function postgresAdminStore(sql: Sql): AdminStore {
  async function countUsers(): Promise<number> {
    return (await firstOf<{ total: number }>(sql`SELECT count(*)::int AS total FROM admin_users`))?.total ?? 0;
  }

  function listUsers(): Promise<(AdminUser & { createdAt: number })[]> {
    return rowsOf(sql`
      SELECT id, username, role, created_at::float8 AS "createdAt" FROM admin_users ORDER BY username`);
  }

  function findUser(username: string): Promise<(AdminUser & { passwordHash: string }) | null> {
    return firstOf(sql`
      SELECT id, username, role, password_hash AS "passwordHash" FROM admin_users WHERE username = ${username}`);
  }

  function setPassword(
    username: string,
    passwordHash: string,
    role: AdminRole | undefined,
    now: number,
  ): Promise<"created" | "updated"> {
    return sql.begin((tx) => setPasswordIn(tx, username, passwordHash, role, now));
  }

  async function createSession(
    userId: number,
    now: number,
  ): Promise<{ token: string; csrfToken: string; expiresAt: number }> {
    const token = randomToken();
    const csrfToken = randomToken();
    const expiresAt = now + sessionLifetimeMs;
    await sql`
      INSERT INTO admin_sessions (token_hash, user_id, csrf_token, created_at, expires_at)
      VALUES (${sha256Hex(token)}, ${userId}, ${csrfToken}, ${now}, ${expiresAt})`;
    return { token, csrfToken, expiresAt };
  }

  async function findSession(token: string, now: number): Promise<AdminSession | null> {
    const row = await firstOf<{
      id: number;
      csrfToken: string;
      expiresAt: number;
      userId: number;
      username: string;
      role: AdminRole;
    }>(sql`
      SELECT s.id, s.csrf_token AS "csrfToken", s.expires_at::float8 AS "expiresAt",
             u.id AS "userId", u.username, u.role
        FROM admin_sessions s JOIN admin_users u ON u.id = s.user_id
       WHERE s.token_hash = ${sha256Hex(token)} AND s.revoked_at IS NULL AND s.expires_at > ${now}`);
    if (row === null) return null;
    return {
      id: row.id,
      csrfToken: row.csrfToken,
      expiresAt: row.expiresAt,
      user: { id: row.userId, username: row.username, role: row.role },
    };
  }

  async function revokeSession(id: number, now: number): Promise<void> {
    await sql`UPDATE admin_sessions SET revoked_at = ${now} WHERE id = ${id} AND revoked_at IS NULL`;
  }

  /** One statement: the sessions counted are the ones this call closed. */
  async function revokeUserSessions(username: string, now: number): Promise<number> {
    const closed = await rowsOf(sql`
      UPDATE admin_sessions SET revoked_at = ${now}
       WHERE revoked_at IS NULL AND user_id = (SELECT id FROM admin_users WHERE username = ${username})
      RETURNING id`);
    return closed.length;
  }

  /** One statement: the token is stored only while no admin exists. */
  async function issueSetupToken(now = Date.now()): Promise<string | null> {
    const token = randomToken();
    const value = `${sha256Hex(token)}.${now + setupTokenLifetimeMs}`;
    const stored = await rowsOf(sql`
      INSERT INTO store_meta (key, value)
      SELECT ${setupTokenKey}, ${value} WHERE NOT EXISTS (SELECT 1 FROM admin_users)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value
      RETURNING key`);
    return stored.length === 0 ? null : token;
  }

  async function setupTokenMatches(token: string, now: number): Promise<boolean> {
    const stored = await firstOf<{ value: string }>(sql`SELECT value FROM store_meta WHERE key = ${setupTokenKey}`);
    return storedSetupTokenMatches(stored?.value, token, now);
  }

  /**
   * The token's row is taken `FOR UPDATE`: of two processes completing setup at
   * once, the second waits, then finds the token spent (its row deleted) and an
   * owner present, and creates nobody.
   */
  function completeSetup(
    token: string,
    username: string,
    passwordHash: string,
    now: number,
  ): Promise<AdminUser | null> {
    return sql.begin(async (tx) => {
      const stored = await firstOf<{ value: string }>(
        tx`SELECT value FROM store_meta WHERE key = ${setupTokenKey} FOR UPDATE`,
      );
      const users = await firstOf<{ total: number }>(tx`SELECT count(*)::int AS total FROM admin_users`);
      if ((users?.total ?? 0) > 0) return null;
      if (!storedSetupTokenMatches(stored?.value, token, now)) return null;
      await tx`DELETE FROM store_meta WHERE key = ${setupTokenKey}`;
      await setPasswordIn(tx, username, passwordHash, "owner", now);
      return firstOf<AdminUser>(tx`SELECT id, username, role FROM admin_users WHERE username = ${username}`);
    });
  }

  return {
    countUsers,
    listUsers,
    findUser,
    setPassword,
    createSession,
    findSession,
    revokeSession,
    revokeUserSessions,
    issueSetupToken,
    setupTokenMatches,
    completeSetup,
  };
}

/**
 * Creates the user, or sets the password (and role, when given) of an existing one
 * and ends its sessions: a new password ends every session the old one opened. One
 * upsert, so two processes setting the same new user both land on one row.
 */
async function setPasswordIn(
  tx: Sql,
  username: string,
  passwordHash: string,
  role: AdminRole | undefined,
  now: number,
): Promise<"created" | "updated"> {
  const [row] = await rowsOf<{ id: number; created: boolean }>(tx`
    INSERT INTO admin_users (username, password_hash, role, created_at)
    VALUES (${username}, ${passwordHash}, ${role ?? "admin"}, ${now})
    ON CONFLICT (username) DO UPDATE
      SET password_hash = excluded.password_hash, role = coalesce(${role ?? null}::text, admin_users.role)
    RETURNING id, (xmax = 0) AS created`);
  const { id, created } = row as { id: number; created: boolean };
  if (created) return "created";
  await tx`UPDATE admin_sessions SET revoked_at = ${now} WHERE user_id = ${id} AND revoked_at IS NULL`;
  return "updated";
}
