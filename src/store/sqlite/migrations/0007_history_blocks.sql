-- Reading history in compressed blocks (src/store/history/): closed
-- periods as encoded blocks keyed by (period, register, first second), WITHOUT
-- ROWID so the key is the table; the open periods' readings in an append-only
-- rowid table without index. Not yet read or written by the readings operations.
CREATE TABLE `history_blocks` (
	`period` integer NOT NULL,
	`register_id` integer NOT NULL,
	`start_s` integer NOT NULL,
	`last_s` integer NOT NULL,
	`count` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`period`, `register_id`, `start_s`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `history_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`period_s` integer NOT NULL,
	`open_period` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `history_tail` (
	`register_id` integer NOT NULL,
	`ts_s` integer NOT NULL,
	`raw_value` real
);
