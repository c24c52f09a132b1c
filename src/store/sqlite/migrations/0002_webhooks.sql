CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY NOT NULL,
	`delivery_id` integer NOT NULL,
	`attempted_at` integer NOT NULL,
	`status_code` integer,
	`duration_ms` integer NOT NULL,
	`error` text,
	`response_excerpt` text,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery` ON `webhook_attempts` (`delivery_id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY NOT NULL,
	`endpoint_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint` ON `webhook_deliveries` (`endpoint_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`org_id` integer NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`event_types` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'enabled' NOT NULL,
	`paused_at` integer,
	`pause_reason` text,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_until` integer,
	`failed_messages_in_row` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_endpoints_uuid_unique` ON `webhook_endpoints` (`uuid`);--> statement-breakpoint
CREATE INDEX `webhook_endpoints_org` ON `webhook_endpoints` (`org_id`);