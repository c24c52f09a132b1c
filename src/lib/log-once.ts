/**
 * A failure logged when it begins and when it ends, not at every repetition: a
 * reconnect, a poll or a store write retried every second would otherwise fill
 * the log (and wear the SD card it is written to).
 *
 * The caller names the failure. Naming it by its message logs each distinct
 * message once (a new message is a new failure); naming it by what failed ("no
 * answer") logs it once however its words change while it lasts.
 */
export class LoggedFailure {
  private current: string | null = null;

  /** A failure happened; true when it is to be logged: none was going on, or it is another one. */
  occurred(failure: string): boolean {
    if (this.current === failure) return false;
    this.current = failure;
    return true;
  }

  /** It worked; true when a logged failure ends here (the recovery is to be logged). */
  ended(): boolean {
    const wasFailing = this.current !== null;
    this.current = null;
    return wasFailing;
  }
}
