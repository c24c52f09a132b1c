/**
 * Migrations embedded in the executable: drizzle's own migrator reads a folder at
 * run time, which a compiled executable does not have. Each new migration from
 * `npx drizzle-kit generate` is added to `migrationSql` below; a test checks that
 * every journal entry has its SQL here.
 */

import initial from "./0000_initial.sql" with { type: "text" };
import eventsOutbox from "./0001_events_outbox.sql" with { type: "text" };
import webhooks from "./0002_webhooks.sql" with { type: "text" };
import readingsNumeric from "./0003_readings_numeric.sql" with { type: "text" };
import admin from "./0004_admin.sql" with { type: "text" };
import apiKeyLastUsed from "./0005_api_key_last_used.sql" with { type: "text" };
import readingsSeconds from "./0006_readings_seconds.sql" with { type: "text" };
import historyBlocks from "./0007_history_blocks.sql" with { type: "text" };
import registerLatestText from "./0008_register_latest_text.sql" with { type: "text" };
import registerWrites from "./0009_register_writes.sql" with { type: "text" };
import organizationRemoval from "./0010_organization_removal.sql" with { type: "text" };
import historyUpgrade from "./0011_history_upgrade.sql" with { type: "text" };
import deviceStorageInterval from "./0012_device_storage_interval.sql" with { type: "text" };
import historyGeneration from "./0013_history_generation.sql" with { type: "text" };
import edgeTokens from "./0014_edge_tokens.sql" with { type: "text" };
import gatewayEdgeSite from "./0015_gateway_edge_site.sql" with { type: "text" };
import alertForwarding from "./0016_alert_forwarding.sql" with { type: "text" };
import edgeTokenLastUsed from "./0017_edge_token_last_used.sql" with { type: "text" };
import modbusDeviceAnnounced from "./0018_modbus_device_announced.sql" with { type: "text" };
import alertRegister from "./0019_alert_register.sql" with { type: "text" };
import historyAggregates from "./0020_history_aggregates.sql" with { type: "text" };
import endpointRateLimit from "./0021_endpoint_rate_limit.sql" with { type: "text" };
import registerPollInterval from "./0022_register_poll_interval.sql" with { type: "text" };
import webhookDeliveriesDueDropped from "./0023_webhook_deliveries_due_dropped.sql" with { type: "text" };
import registerWritesDevice from "./0024_register_writes_device.sql" with { type: "text" };
import journal from "./meta/_journal.json" with { type: "json" };

export const migrationSql: Record<string, string> = {
  "0000_initial": initial,
  "0001_events_outbox": eventsOutbox,
  "0002_webhooks": webhooks,
  "0003_readings_numeric": readingsNumeric,
  "0004_admin": admin,
  "0005_api_key_last_used": apiKeyLastUsed,
  "0006_readings_seconds": readingsSeconds,
  "0007_history_blocks": historyBlocks,
  "0008_register_latest_text": registerLatestText,
  "0009_register_writes": registerWrites,
  "0010_organization_removal": organizationRemoval,
  "0011_history_upgrade": historyUpgrade,
  "0012_device_storage_interval": deviceStorageInterval,
  "0013_history_generation": historyGeneration,
  "0014_edge_tokens": edgeTokens,
  "0015_gateway_edge_site": gatewayEdgeSite,
  "0016_alert_forwarding": alertForwarding,
  "0017_edge_token_last_used": edgeTokenLastUsed,
  "0018_modbus_device_announced": modbusDeviceAnnounced,
  "0019_alert_register": alertRegister,
  "0020_history_aggregates": historyAggregates,
  "0021_endpoint_rate_limit": endpointRateLimit,
  "0022_register_poll_interval": registerPollInterval,
  "0023_webhook_deliveries_due_dropped": webhookDeliveriesDueDropped,
  "0024_register_writes_device": registerWritesDevice,
};

export const migrationJournal: { entries: { tag: string; when: number; breakpoints: boolean }[] } = journal;
