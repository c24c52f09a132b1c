/** The minute a token's last use was written in, per token: the session check costs no write within it. */
export function minuteThrottle() {
  const writtenMinute = new Map<string, number>();
  return {
    /** Whether this use needs a write; call `forget` if the write failed, so the next use tries again. */
    due(tokenId: string, now: number): boolean {
      const minute = Math.floor(now / 60_000);
      if (writtenMinute.get(tokenId) === minute) return false;
      writtenMinute.set(tokenId, minute);
      return true;
    },
    forget(tokenId: string): void {
      writtenMinute.delete(tokenId);
    },
  };
}
