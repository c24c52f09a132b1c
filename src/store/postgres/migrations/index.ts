/**
 * PostgreSQL migrations embedded in the executable, as the SQLite ones are
 * (../../migrations/index.ts): each new migration from
 * `npx drizzle-kit generate --config drizzle.pg.config.ts` is added to
 * `postgresMigrationSql`; a test checks every journal entry has its SQL here.
 */

import readings from "./0000_readings.sql" with { type: "text" };
import webhooksRateLimits from "./0001_webhooks_rate_limits.sql" with { type: "text" };
import inventoryAlertsKeysAdmin from "./0002_inventory_alerts_keys_admin.sql" with { type: "text" };
import gatewayEdgeSite from "./0003_gateway_edge_site.sql" with { type: "text" };
import edgeTokens from "./0004_edge_tokens.sql" with { type: "text" };
import alertForwarding from "./0005_alert_forwarding.sql" with { type: "text" };
import edgeTokenLastUsed from "./0006_edge_token_last_used.sql" with { type: "text" };
import modbusDeviceAnnounced from "./0007_modbus_device_announced.sql" with { type: "text" };
import alertRegister from "./0008_alert_register.sql" with { type: "text" };
import historyAggregates from "./0009_history_aggregates.sql" with { type: "text" };
import endpointRateLimit from "./0010_endpoint_rate_limit.sql" with { type: "text" };
import registerPollInterval from "./0011_register_poll_interval.sql" with { type: "text" };
import registerWritesDevice from "./0012_register_writes_device.sql" with { type: "text" };
import journal from "./meta/_journal.json" with { type: "json" };

export const postgresMigrationSql: Record<string, string> = {
  "0000_readings": readings,
  "0001_webhooks_rate_limits": webhooksRateLimits,
  "0002_inventory_alerts_keys_admin": inventoryAlertsKeysAdmin,
  "0003_gateway_edge_site": gatewayEdgeSite,
  "0004_edge_tokens": edgeTokens,
  "0005_alert_forwarding": alertForwarding,
  "0006_edge_token_last_used": edgeTokenLastUsed,
  "0007_modbus_device_announced": modbusDeviceAnnounced,
  "0008_alert_register": alertRegister,
  "0009_history_aggregates": historyAggregates,
  "0010_endpoint_rate_limit": endpointRateLimit,
  "0011_register_poll_interval": registerPollInterval,
  "0012_register_writes_device": registerWritesDevice,
};

export const postgresMigrationJournal: { entries: { tag: string; when: number }[] } = journal;
