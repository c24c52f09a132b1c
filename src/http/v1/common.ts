/** Pieces the /v1 controllers share: paging parameters and documented error responses. */
import { t } from "elysia";
import { Problem } from "./models.ts";

/** Offsets beyond this are refused rather than handed to SQLite as a float. */
const maxOffset = 2_147_483_647;

export const offsetPaging = {
  limit: t.Optional(t.Integer({ title: "limit", minimum: 1, maximum: 100, default: 50, description: "1 to 100" })),
  offset: t.Optional(
    t.Integer({ title: "offset", minimum: 0, maximum: maxOffset, default: 0, description: "rows to skip" }),
  ),
};

export const gatewayIdParams = t.Object({
  id: t.String({ title: "id", format: "uuid", description: "gateway id, from GET /devices" }),
});

/** Every operation can answer these (auth, rate limit, service failure). */
export const commonErrors = { 401: Problem, 403: Problem, 429: Problem, 500: Problem };
export const queryErrors = { ...commonErrors, 400: Problem };
export const lookupErrors = { ...queryErrors, 404: Problem };

export function offsetMeta(total: number, limit: number, offset: number) {
  return { total, limit, offset };
}
