/**
 * The contract between a site and its central's /edge door (docs/fleet.md): both
 * halves read their limits from here.
 */

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
