/**
 * `GET /edge/v1/session` (docs/fleet.md, "Sites"): whether the central accepts the
 * site's edge token, and for which organisation and site name.
 */
import { Type } from "@sinclair/typebox";

export const SessionReply = Type.Object({
  organization: Type.String(),
  site: Type.String(),
  token_id: Type.String(),
});
