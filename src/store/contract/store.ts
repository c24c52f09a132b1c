/**
 * The store contract: one typed interface per domain (this folder), which each
 * engine implements in its own folder (../sqlite/ on a box, ../postgres/ on a
 * central; docs/architecture.md "Store"). Nothing here imports either engine.
 */
import type { AdminStore } from "./admin.ts";
import type { AlertStore } from "./alerts.ts";
import type { EdgeStore } from "./edges.ts";
import type { EventStore } from "./events.ts";
import type { GatewayStore } from "./gateways.ts";
import type { InventoryStore } from "./inventory.ts";
import type { KeyStore } from "./keys.ts";
import type { OrganizationStore } from "./organizations.ts";
import type { RateLimitStore } from "./rate-limits.ts";
import type { ReadingStore } from "./readings.ts";
import type { RegisterStore } from "./registers.ts";
import type { SecretStore } from "./secrets.ts";
import type { SparkplugStore } from "./sparkplug.ts";
import type { WebhookStore } from "./webhooks.ts";
import type { WriteStore } from "./writes.ts";

/** An open store; each domain's statements are prepared once, when it opens. */
export interface Store {
  readonly readings: ReadingStore;
  readonly registers: RegisterStore;
  readonly gateways: GatewayStore;
  readonly alerts: AlertStore;
  /** The webhook outbox. */
  readonly events: EventStore;
  readonly webhooks: WebhookStore;
  readonly keys: KeyStore;
  /** Sites' edge tokens (docs/fleet.md). */
  readonly edges: EdgeStore;
  /** Requests per key and minute (in memory on a box: ../memory-rate-limits.ts). */
  readonly rateLimits: RateLimitStore;
  readonly admin: AdminStore;
  readonly organizations: OrganizationStore;
  readonly inventory: InventoryStore;
  readonly secrets: SecretStore;
  /** A Sparkplug B edge node's bdSeq and history position (docs/mqtt.md). */
  readonly sparkplug: SparkplugStore;
  /** Register writes and their audit. */
  readonly writes: WriteStore;
  /** Where the store lives (a file path, `:memory:`, or a PostgreSQL URL without its password). */
  readonly path: string;
  /** Makes one small real write; throws when the store takes none (full disk, read-only mount, broken file). */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}
