PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_register_writes` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`org_id` integer NOT NULL,
	`register_id` integer,
	`actor` text NOT NULL,
	`value_before` real,
	`value_asked` real,
	`result` text NOT NULL,
	`read_back` real,
	`detail` text,
	`requested_at` integer NOT NULL,
	`finished_at` integer NOT NULL,
	`modbus_device_id` integer,
	`function_code` integer,
	`address` integer,
	`values_written` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`register_id`) REFERENCES `registers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`modbus_device_id`) REFERENCES `modbus_devices`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "register_writes_one_target" CHECK((register_id IS NULL) <> (modbus_device_id IS NULL))
);
--> statement-breakpoint
INSERT INTO `__new_register_writes`("id", "uuid", "org_id", "register_id", "actor", "value_before", "value_asked", "result", "read_back", "detail", "requested_at", "finished_at") SELECT "id", "uuid", "org_id", "register_id", "actor", "value_before", "value_asked", "result", "read_back", "detail", "requested_at", "finished_at" FROM `register_writes`;--> statement-breakpoint
DROP TABLE `register_writes`;--> statement-breakpoint
ALTER TABLE `__new_register_writes` RENAME TO `register_writes`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `register_writes_uuid_unique` ON `register_writes` (`uuid`);--> statement-breakpoint
CREATE INDEX `register_writes_org_requested` ON `register_writes` (`org_id`,`requested_at`);