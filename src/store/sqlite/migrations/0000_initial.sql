CREATE TABLE `alerts` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`org_id` integer NOT NULL,
	`gateway_id` integer,
	`rule_id` text,
	`severity` text NOT NULL,
	`message` text NOT NULL,
	`status` text NOT NULL,
	`value` real,
	`created_at` integer NOT NULL,
	`last_triggered_at` integer,
	`returned_at` integer,
	`ack_at` integer,
	`ack_note` text,
	`resolved_at` integer,
	`resolve_note` text,
	`entry_count` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`gateway_id`) REFERENCES `gateways`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_uuid_unique` ON `alerts` (`uuid`);--> statement-breakpoint
CREATE INDEX `alerts_org_triggered` ON `alerts` (`org_id`,`last_triggered_at`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`org_id` integer NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`hash` text NOT NULL,
	`scopes` text NOT NULL,
	`kind` text DEFAULT 'standard' NOT NULL,
	`rate_limit_per_minute` integer,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_uuid_unique` ON `api_keys` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_unique` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`org_id` integer NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`city` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_uuid_unique` ON `customers` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_org_key` ON `customers` (`org_id`,`key`);--> statement-breakpoint
CREATE TABLE `device_templates` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`brand` text NOT NULL,
	`model` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `device_templates_uuid_unique` ON `device_templates` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `device_templates_brand_model` ON `device_templates` (`brand`,`model`);--> statement-breakpoint
CREATE TABLE `gateways` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`org_id` integer NOT NULL,
	`customer_id` integer,
	`serial` text NOT NULL,
	`name` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`firmware_ver` text,
	`ip_eth` text,
	`ip_wifi` text,
	`ip_4g` text,
	`signal_4g` integer,
	`last_seen` integer,
	`heartbeat_ms` integer NOT NULL,
	`created_at` integer NOT NULL,
	`claimed_at` integer,
	`retired_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `gateways_uuid_unique` ON `gateways` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `gateways_serial_unique` ON `gateways` (`serial`);--> statement-breakpoint
CREATE INDEX `gateways_org_last_seen` ON `gateways` (`org_id`,`last_seen`);--> statement-breakpoint
CREATE TABLE `modbus_devices` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`gateway_id` integer NOT NULL,
	`name` text,
	`slave_id` integer NOT NULL,
	`protocol` text NOT NULL,
	`ip_address` text,
	`port` integer,
	`poll_interval_ms` integer,
	`template_id` integer,
	`position` integer NOT NULL,
	`retired_at` integer,
	FOREIGN KEY (`gateway_id`) REFERENCES `gateways`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`template_id`) REFERENCES `device_templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `modbus_devices_uuid_unique` ON `modbus_devices` (`uuid`);--> statement-breakpoint
CREATE INDEX `modbus_devices_gateway` ON `modbus_devices` (`gateway_id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_uuid_unique` ON `organizations` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_key_unique` ON `organizations` (`key`);--> statement-breakpoint
CREATE TABLE `readings` (
	`register_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`raw_value` real,
	PRIMARY KEY(`register_id`, `ts`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `registers` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`gateway_id` integer NOT NULL,
	`modbus_device_id` integer NOT NULL,
	`name` text NOT NULL,
	`address` integer NOT NULL,
	`function_code` integer,
	`data_type` text NOT NULL,
	`unit` text,
	`scale_factor` real,
	`is_writable` integer DEFAULT false NOT NULL,
	`description` text,
	`latest_raw_value` real,
	`latest_ts` integer,
	`position` integer NOT NULL,
	`retired_at` integer,
	FOREIGN KEY (`gateway_id`) REFERENCES `gateways`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`modbus_device_id`) REFERENCES `modbus_devices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `registers_uuid_unique` ON `registers` (`uuid`);--> statement-breakpoint
CREATE INDEX `registers_gateway` ON `registers` (`gateway_id`);--> statement-breakpoint
CREATE TABLE `store_meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
