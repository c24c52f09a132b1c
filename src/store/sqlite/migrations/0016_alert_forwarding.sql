ALTER TABLE `alerts` ADD `edge_event_seq` integer;--> statement-breakpoint
ALTER TABLE `alerts` ADD `requested_action` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `requested_note` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `requested_at` integer;