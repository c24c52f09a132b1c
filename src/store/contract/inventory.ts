/**
 * The inventory domain of the store contract: the config (a box's) or a site's
 * list (a central's) is the source of truth of organisations, gateways, devices
 * and registers; rows that leave it are retired, not deleted.
 */
import type { Inventory, InventoryGateway } from "../../lib/inventory.ts";

export interface InventoryStore {
  /** Makes the store's inventory match `inventory`, in one transaction; rows that left it are retired. */
  sync(inventory: Inventory, now: number): Promise<void>;
  /**
   * On a central: makes the gateways a site forwards (docs/fleet.md) match its
   * list, in the site's organisation, in one transaction; the site's gateways that
   * left the list are retired. Throws GatewayOwnedElsewhereError, changing nothing,
   * when a gateway (by id or serial) belongs to another site or to this box's config.
   */
  syncSite(site: { orgId: number; name: string }, gateways: readonly InventoryGateway[], now: number): Promise<void>;
}

/** A site may not take over a gateway of another site or of the central's own config. */
export class GatewayOwnedElsewhereError extends Error {
  constructor(readonly serial: string) {
    super(`gateway ${serial} belongs to another site or to this central's own config`);
  }
}
