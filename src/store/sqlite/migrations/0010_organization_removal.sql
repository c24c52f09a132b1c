ALTER TABLE `organizations` ADD `removed_at` integer;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_due` ON `webhook_deliveries` (`endpoint_id`,`status`,`next_attempt_at`);