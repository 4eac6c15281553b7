DROP INDEX "sites_one_pending_per_url";--> statement-breakpoint
CREATE UNIQUE INDEX "sites_one_pending_per_user_url" ON "sites" USING btree ("user_id","url") WHERE status = 'pending';