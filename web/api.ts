// The admin API (docs/admin.md) as the page calls it: JSON, the session cookie,
// and the CSRF token on every change. Failures become readable messages.
const base = "/admin/api";
let csrfToken = "";
let onSessionEnded: () => void = () => {};

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** What to do when fieldhub answers 401 to a signed-in page (session expired or revoked). */
export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      credentials: "same-origin",
      headers: { "content-type": "application/json", ...(csrfToken === "" ? {} : { "x-csrf-token": csrfToken }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError("fieldhub did not answer: check that it is running and that this device reaches it.", 0);
  }
  const payload = response.headers.get("content-type")?.includes("json")
    ? await response.json().catch(() => null)
    : null;
  if (!response.ok) {
    if (response.status === 401 && csrfToken !== "") {
      csrfToken = "";
      onSessionEnded();
    }
    const reason = payload?.detail ?? payload?.title ?? `fieldhub answered HTTP ${response.status}.`;
    throw new ApiError(String(reason), response.status);
  }
  return payload as T;
}
