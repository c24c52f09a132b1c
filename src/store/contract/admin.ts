/**
 * The admin domain of the store contract: admin page accounts and sessions, their
 * roles, and the setup token's stored form (docs/architecture.md, "Store").
 */
import { sameSecret, sha256Hex } from "../../lib/crypto.ts";

export const adminRoles = ["owner", "admin", "viewer"] as const;
export type AdminRole = (typeof adminRoles)[number];

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
