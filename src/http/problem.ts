/** RFC 9457 problem details, the error body of docs/api.md sections 2 (Problem) and 7. */
import { type ErrorCode, errorCatalog } from "../lib/errors.ts";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: ErrorCode;
  request_id: string;
}

export function problemBody(
  code: ErrorCode,
  requestId: string,
  docsUrl: string,
  detail?: string,
  status?: number,
): Problem {
  const entry = errorCatalog[code];
  const problem: Problem = {
    type: `${docsUrl}/errors#${code}`,
    title: entry.title,
    status: status ?? entry.status,
    code,
    request_id: requestId,
  };
  if (detail !== undefined) problem.detail = detail;
  return problem;
}

export function problemResponse(
  code: ErrorCode,
  requestId: string,
  docsUrl: string,
  headers: Record<string, string>,
  detail?: string,
  status?: number,
): Response {
  const body = problemBody(code, requestId, docsUrl, detail, status);
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { ...headers, "content-type": "application/problem+json" },
  });
}
