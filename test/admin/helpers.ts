/** Talking to the admin API as the admin page does: JSON, a session cookie, a CSRF header. */
import { hashPassword } from "../../src/lib/crypto.ts";
import type { AdminRole } from "../../src/store/contract/admin.ts";
import type { TestSite } from "../harness/site.ts";

export interface AdminResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface AdminClient {
  cookie: string | null;
  csrf: string | null;
}

export async function adminCall(
  site: TestSite,
  method: string,
  path: string,
  options: { body?: unknown; client?: AdminClient; csrf?: string | null; headers?: Record<string, string> } = {},
): Promise<AdminResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.client?.cookie) headers.cookie = options.client.cookie;
  const csrf = options.csrf === undefined ? options.client?.csrf : options.csrf;
  if (csrf !== null && csrf !== undefined) headers["x-csrf-token"] = csrf;
  const response = await fetch(`${site.baseUrl}/admin/api${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body };
}

export async function addAdmin(site: TestSite, username: string, password: string, role: AdminRole): Promise<void> {
  await site.store.admin.setPassword(username, await hashPassword(password), role, site.clock.now());
}

/** Signs in; the login limit is per minute, so the clock moves on a minute first. */
export async function login(site: TestSite, username: string, password: string): Promise<AdminClient> {
  site.clock.advance(60_000);
  const response = await adminCall(site, "POST", "/login", { body: { username, password } });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${JSON.stringify(response.body)}`);
  const setCookie = response.headers.get("set-cookie") ?? "";
  return { cookie: setCookie.split(";")[0] ?? null, csrf: response.body.csrf_token };
}
