CREATE TABLE `register_writes` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`org_id` integer NOT NULL,
	`register_id` integer NOT NULL,
	`actor` text NOT NULL,
	`value_before` real,
	`value_asked` real NOT NULL,
	`result` text NOT NULL,
	`read_back` real,
	`detail` text,
	`requested_at` integer NOT NULL,
	`finished_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`register_id`) REFERENCES `registers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `register_writes_uuid_unique` ON `register_writes` (`uuid`);--> statement-breakpoint
CREATE INDEX `register_writes_org_requested` ON `register_writes` (`org_id`,`requested_at`);--> statement-breakpoint
ALTER TABLE `organizations` ADD `writes_enabled` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `registers` ADD `write_min` real;--> statement-breakpoint
ALTER TABLE `registers` ADD `write_max` real;