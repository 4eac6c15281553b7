CREATE TABLE "sites" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"url" text NOT NULL,
	"status" text NOT NULL,
	"code_hmac" text NOT NULL,
	"code_expires_at" timestamp with time zone NOT NULL,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"rest_url" text,
	"credentials" text,
	"plugin_version" text,
	"name" text,
	"page_builder" text,
	"capabilities" jsonb,
	"site_info" jsonb,
	"preflight" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"paired_at" timestamp with time zone,
	"confirmed_at" timestamp with time zone,
	"last_seen_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sites_user_id_idx" ON "sites" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sites_url_created_idx" ON "sites" USING btree ("url","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sites_one_pending_per_url" ON "sites" USING btree ("url") WHERE status = 'pending';