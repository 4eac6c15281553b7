CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"site_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"change_set_id" text NOT NULL,
	"status" text NOT NULL,
	"selection" jsonb NOT NULL,
	"spec" jsonb NOT NULL,
	"progress" jsonb NOT NULL,
	"limits" jsonb NOT NULL,
	"cursor" integer NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"error" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_change_set_id_change_sets_id_fk" FOREIGN KEY ("change_set_id") REFERENCES "public"."change_sets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "jobs_site_created_idx" ON "jobs" USING btree ("site_id","created_at");--> statement-breakpoint
CREATE INDEX "jobs_status_idx" ON "jobs" USING btree ("status");