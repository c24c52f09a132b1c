/**
 * The admin API's session rules: a `fieldhub_session` cookie names the session;
 * every change also needs the session's CSRF token in `X-CSRF-Token`, and a
 * role other than viewer.
 */

import { sameSecret } from "../../lib/crypto.ts";
import { CodedError } from "../../lib/errors.ts";
import type { AdminSession, AdminStore } from "../../store/contract/admin.ts";

export const sessionCookie = "fieldhub_session";
export const csrfHeader = "x-csrf-token";
const readMethods = new Set(["GET", "HEAD", "OPTIONS"]);

export function isChange(method: string): boolean {
  return !readMethods.has(method);
}

/** True when the client reached fieldhub over https (directly or through a proxy). */
export function isHttps(request: Request): boolean {
  if (request.url.startsWith("https:")) return true;
  const forwarded = request.headers.get("x-forwarded-proto");
  return forwarded !== null && forwarded.split(",")[0]?.trim().toLowerCase() === "https";
}

export function sessionCookieHeader(request: Request, token: string, maxAgeSeconds: number): string {
  const secure = isHttps(request) ? "; Secure" : "";
  return `${sessionCookie}=${token}; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export function clearedCookieHeader(request: Request): string {
  return sessionCookieHeader(request, "", 0);
}

/** The live session the `fieldhub_session` cookie names, or `unauthorized`. */
export async function requireSession(queries: AdminStore, token: string | null, now: number): Promise<AdminSession> {
  if (token === null || token === "") throw new CodedError("unauthorized", "Sign in first: no admin session.");
  const session = await queries.findSession(token, now);
  if (session === null) {
    throw new CodedError("unauthorized", "The admin session ended (signed out, revoked or expired). Sign in again.");
  }
  return session;
}

/** A change needs the session's CSRF token and a role that may change things. */
export function checkChange(session: AdminSession, request: Request, viewerMay = false): void {
  const sent = request.headers.get(csrfHeader);
  if (sent === null || !sameSecret(sent, session.csrfToken)) {
    throw new CodedError("forbidden", "Send the session's CSRF token in the X-CSRF-Token header.");
  }
  if (session.user.role === "viewer" && !viewerMay) throw new CodedError("forbidden", "The viewer role may only read.");
}
