/** The secrets domain of the store contract: small values the store keeps for itself (the readings cursor's key, for example). */

export interface SecretStore {
  /** Returns the named secret, creating a random one on first use (kept across restarts). */
  getOrCreate(name: string): Promise<Buffer>;
}
