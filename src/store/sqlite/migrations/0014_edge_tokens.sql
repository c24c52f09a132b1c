CREATE TABLE `edge_tokens` (
	`id` integer PRIMARY KEY NOT NULL,
	`uuid` text NOT NULL,
	`org_id` integer NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `edge_tokens_uuid_unique` ON `edge_tokens` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `edge_tokens_hash_unique` ON `edge_tokens` (`hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `edge_tokens_live_name` ON `edge_tokens` (`org_id`,`name`) WHERE "edge_tokens"."revoked_at" IS NULL;