CREATE TABLE "change_run_entries" (
	"run_id" text NOT NULL,
	"seq" integer NOT NULL,
	"batch" integer NOT NULL,
	"item_id" text NOT NULL,
	"title" text NOT NULL,
	"change" jsonb NOT NULL,
	"data" jsonb NOT NULL,
	"state" text NOT NULL,
	"result" jsonb,
	"reason" text,
	CONSTRAINT "change_run_entries_run_id_seq_pk" PRIMARY KEY("run_id","seq")
);
--> statement-breakpoint
CREATE TABLE "change_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"change_set_id" text NOT NULL,
	"job_id" text,
	"user_id" text NOT NULL,
	"site_id" text NOT NULL,
	"kind" text NOT NULL,
	"mode" text NOT NULL,
	"state" text NOT NULL,
	"context" jsonb NOT NULL,
	"outcome" jsonb,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"resumed_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "change_sets" ADD COLUMN "resumed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "resumed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "change_run_entries" ADD CONSTRAINT "change_run_entries_run_id_change_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."change_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "change_runs" ADD CONSTRAINT "change_runs_change_set_id_change_sets_id_fk" FOREIGN KEY ("change_set_id") REFERENCES "public"."change_sets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "change_run_entries_batch_idx" ON "change_run_entries" USING btree ("run_id","batch");--> statement-breakpoint
CREATE INDEX "change_runs_state_idx" ON "change_runs" USING btree ("state","lease_until");--> statement-breakpoint
CREATE INDEX "change_runs_set_idx" ON "change_runs" USING btree ("change_set_id");