CREATE TABLE "audit_entries" (
	"site_id" text NOT NULL,
	"seq" integer NOT NULL,
	"at" text NOT NULL,
	"actor" jsonb,
	"action" text NOT NULL,
	"subject" jsonb NOT NULL,
	"details" jsonb NOT NULL,
	"prev" text NOT NULL,
	"hash" text NOT NULL,
	"signature" text,
	CONSTRAINT "audit_entries_site_id_seq_pk" PRIMARY KEY("site_id","seq")
);
--> statement-breakpoint
CREATE TABLE "site_invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"site_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"invited_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"used_by" text
);
--> statement-breakpoint
CREATE TABLE "site_members" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"invited_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "change_audit" ADD COLUMN "actor" jsonb;--> statement-breakpoint
ALTER TABLE "change_items" ADD COLUMN "actor" jsonb;--> statement-breakpoint
ALTER TABLE "change_sets" ADD COLUMN "requested_by" jsonb;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "require_second_person" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "audit_retention_days" integer;--> statement-breakpoint
ALTER TABLE "site_invitations" ADD CONSTRAINT "site_invitations_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "site_members" ADD CONSTRAINT "site_members_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "site_members" ADD CONSTRAINT "site_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "site_invitations_token_key" ON "site_invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "site_invitations_site_idx" ON "site_invitations" USING btree ("site_id");--> statement-breakpoint
CREATE UNIQUE INDEX "site_members_site_user_key" ON "site_members" USING btree ("site_id","user_id");--> statement-breakpoint
CREATE INDEX "site_members_user_idx" ON "site_members" USING btree ("user_id");