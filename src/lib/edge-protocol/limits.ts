/** The batch limits of the /edge door (docs/fleet.md, "Forwarding"): the site sends within them, the central refuses past them. */

/**
 * Readings per `POST /edge/v1/readings` at most: one store transaction on the
 * central, 0.6 to 0.82 MB of JSON (a row is a UUID, a time in ms and a number),
 * under the server's 1 MiB body cap (app/http-server.ts).
 */
export const maxForwardedReadings = 10_000;

/**
 * Alert events per `POST /edge/v1/alerts` at most, with the whole state of each
 * alert they name: an event's JSON is under 1 KB, so a batch stays far under the
 * body cap.
 */
export const maxForwardedAlertEvents = 500;

/** Gateways per `PUT /edge/v1/inventory` and `PUT /edge/v1/status` at most. */
export const maxForwardedGateways = 10_000;
