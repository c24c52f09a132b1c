/**
 * The sparkplug domain of the store contract: what a Sparkplug B edge node keeps
 * across restarts (docs/mqtt.md, "Sparkplug B"), so a restart, `kill -9` included,
 * births with the next bdSeq and sends the history it missed once.
 */

export interface SparkplugState {
  /** The bdSeq of the last MQTT CONNECT (0..255): the next connect uses the one after. */
  bdSeq: number;
  /** Every stored reading up to this time (Unix ms, inclusive) has been sent, live or as history. */
  historyThrough: number;
}

export interface SparkplugStore {
  /** The edge node's state, or null before its first save. */
  stateOf(edgeNode: string): Promise<SparkplugState | null>;
  saveState(edgeNode: string, state: SparkplugState): Promise<void>;
}

/** Where an edge node's state is kept in store_meta (both engines). */
export const sparkplugStateKey = (edgeNode: string) => `sparkplug:${edgeNode}`;

/** The stored text back as a state; anything else (an older or broken value) as none. */
export function parseSparkplugState(text: string | undefined): SparkplugState | null {
  if (text === undefined) return null;
  try {
    const value = JSON.parse(text) as Partial<SparkplugState>;
    return Number.isInteger(value.bdSeq) && Number.isFinite(value.historyThrough)
      ? { bdSeq: value.bdSeq as number, historyThrough: value.historyThrough as number }
      : null;
  } catch {
    return null;
  }
}
