/** An admin session on a running server, as the admin page holds one: an account made with the CLI, then a login. */
import { repoRoot } from "../../harness/cli.ts";

export async function adminSession(
  baseUrl: string,
  dataDir: string,
  account: { user: string; role: "owner" | "admin" | "viewer" } = { user: "owner", role: "owner" },
) {
  const password = "fault-suite-password-1";
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
      env: { ...process.env, CI: "true" },
      stdin: new Blob([`${password}\n`]),
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  if ((await setPassword.exited) !== 0)
    throw new Error(`admin set-password failed: ${await new Response(setPassword.stderr).text()}`);
  const login = await fetch(`${baseUrl}/admin/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: account.user, password }),
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const { csrf_token: csrf } = (await login.json()) as { csrf_token: string };
  return {
    /** A read through the admin API, with the session cookie. */
    get(path: string): Promise<Response> {
      return fetch(`${baseUrl}${path}`, { headers: { cookie } });
    },
    /** A change through the admin API, with the session cookie and CSRF token. */
    post(path: string, body?: unknown): Promise<Response> {
      return fetch(`${baseUrl}${path}`, {
        method: "POST",
        headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
  };
}
