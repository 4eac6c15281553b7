CREATE TABLE "change_audit" (
	"id" text PRIMARY KEY NOT NULL,
	"change_set_id" text NOT NULL,
	"site_id" text NOT NULL,
	"user_id" text NOT NULL,
	"action" text NOT NULL,
	"item_ids" jsonb NOT NULL,
	"outcome" text NOT NULL,
	"detail" text,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "change_items" (
	"id" text PRIMARY KEY NOT NULL,
	"change_set_id" text NOT NULL,
	"seq" integer NOT NULL,
	"tool_call_id" text,
	"kind" text NOT NULL,
	"ref" text NOT NULL,
	"action" text NOT NULL,
	"title" text NOT NULL,
	"summary" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"visible" boolean NOT NULL,
	"change" jsonb NOT NULL,
	"before_state" jsonb,
	"after_state" jsonb,
	"version_read" text,
	"version_after" text,
	"revision_id" integer,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"applied_at" timestamp with time zone,
	"undone_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "change_sets" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"site_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"turn_id" text NOT NULL,
	"target" text NOT NULL,
	"sandbox_id" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"applied_at" timestamp with time zone,
	"undone_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "change_items" ADD CONSTRAINT "change_items_change_set_id_change_sets_id_fk" FOREIGN KEY ("change_set_id") REFERENCES "public"."change_sets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "change_sets" ADD CONSTRAINT "change_sets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "change_audit_set_idx" ON "change_audit" USING btree ("change_set_id","at");--> statement-breakpoint
CREATE INDEX "change_items_set_idx" ON "change_items" USING btree ("change_set_id","seq");--> statement-breakpoint
CREATE INDEX "change_items_tool_call_idx" ON "change_items" USING btree ("change_set_id","tool_call_id");--> statement-breakpoint
CREATE UNIQUE INDEX "change_sets_turn_key" ON "change_sets" USING btree ("conversation_id","turn_id","target");--> statement-breakpoint
CREATE INDEX "change_sets_site_created_idx" ON "change_sets" USING btree ("site_id","created_at");