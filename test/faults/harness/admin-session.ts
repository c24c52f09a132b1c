/** An admin session on a running server, as the admin page holds one: an account made with the CLI, then a login. */
import { repoRoot } from "../../harness/cli.ts";

type AdminAccount = { user: string; role: "owner" | "admin" | "viewer" };

/**
 * `fieldhub admin set-password` as an operator runs it: the password on stdin.
 * `env`: for the CLI (FIELDHUB_DATABASE_URL of a central on PostgreSQL).
 */
export async function setAdminPassword(
  dataDir: string,
  account: AdminAccount,
  password: string,
  env: Record<string, string> = {},
): Promise<void> {
  const setPassword = Bun.spawn(
    [
      process.execPath,
      "src/main.ts",
      "admin",
      "set-password",
      "--data",
      dataDir,
      "--user",
      account.user,
      "--role",
      account.role,
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, CI: "true", ...env },
      stdin: new Blob([`${password}\n`]),
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  if ((await setPassword.exited) !== 0)
    throw new Error(`admin set-password failed: ${await new Response(setPassword.stderr).text()}`);
}

export async function adminSession(
  baseUrl: string,
  dataDir: string,
  account: AdminAccount = { user: "owner", role: "owner" },
  env: Record<string, string> = {},
) {
  const password = "fault-suite-password-1";
  await setAdminPassword(dataDir, account, password, env);
  const login = await fetch(`${baseUrl}/admin/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: account.user, password }),
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const { csrf_token: csrf } = (await login.json()) as { csrf_token: string };
  return {
    /** A read through the admin API, with the session cookie; `at`: another server sharing the store. */
    get(path: string, at = baseUrl): Promise<Response> {
      return fetch(`${at}${path}`, { headers: { cookie } });
    },
    /** A change through the admin API, with the session cookie and CSRF token. */
    post(path: string, body?: unknown, at = baseUrl): Promise<Response> {
      return this.change("POST", path, body, at);
    },
    change(method: string, path: string, body?: unknown, at = baseUrl): Promise<Response> {
      return fetch(`${at}${path}`, {
        method,
        headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
  };
}
