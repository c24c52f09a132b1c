/**
 * A URL as the log may show it: scheme, host, port and path, without user
 * name, password, query string or fragment. Webhook URLs often carry a token
 * in one of those, and the log is read by more people than the store.
 */
export function urlForLog(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) return "(unreadable URL)";
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
