CREATE TABLE "sandbox_leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_manifests" (
	"sandbox_id" text PRIMARY KEY NOT NULL,
	"source_site_id" text,
	"source_url" text,
	"image_tag" text NOT NULL,
	"items" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandboxes" (
	"id" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"user_id" text,
	"site_id" text,
	"image_tag" text NOT NULL,
	"container_id" text,
	"host_port" integer,
	"credentials" text,
	"from_pool" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"acquired_at" timestamp with time zone,
	"last_used_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sandbox_manifests" ADD CONSTRAINT "sandbox_manifests_sandbox_id_sandboxes_id_fk" FOREIGN KEY ("sandbox_id") REFERENCES "public"."sandboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD CONSTRAINT "sandboxes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sandboxes_status_idx" ON "sandboxes" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "sandboxes_user_id_idx" ON "sandboxes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sandboxes_expires_at_idx" ON "sandboxes" USING btree ("expires_at");