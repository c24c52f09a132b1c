/**
 * Strict RFC 3339 date-times for query parameters: a date, a time and a zone
 * (`Z` or an offset). Anything else is not guessed at.
 */
const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export function parseRfc3339(text: string): number | null {
  const match = rfc3339.exec(text);
  if (match === null) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return null;
  const zone = match[8] ?? "Z";
  if (zone !== "Z" && zone !== "z") {
    const [zoneHours, zoneMinutes] = zone.slice(1).split(":").map(Number) as [number, number];
    if (zoneHours > 23 || zoneMinutes > 59) return null;
  }
  const ms = Date.parse(text.replace(" ", "T").replace(/\.(\d{3})\d+/, ".$1"));
  return Number.isFinite(ms) ? ms : null;
}
