-- A `string` register's text (latest_text), written when it changes. Its readings
-- rows were only ever nulls (history is numeric): they go.
ALTER TABLE `registers` ADD `latest_text` text;
--> statement-breakpoint
DELETE FROM `readings` WHERE `register_id` IN (SELECT `id` FROM `registers` WHERE `data_type` = 'string');
