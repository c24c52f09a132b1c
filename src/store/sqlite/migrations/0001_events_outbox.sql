CREATE TABLE `events` (
	`id` integer PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`org_id` integer NOT NULL,
	`type` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_message_id_unique` ON `events` (`message_id`);--> statement-breakpoint
CREATE INDEX `events_org_occurred` ON `events` (`org_id`,`occurred_at`);