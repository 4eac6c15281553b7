CREATE TABLE "deployment_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_network_checks" (
	"namespace" text NOT NULL,
	"driver" text NOT NULL,
	"node" text NOT NULL,
	"isolated" boolean NOT NULL,
	"outcome" text NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sandbox_network_checks_namespace_driver_node_pk" PRIMARY KEY("namespace","driver","node")
);
--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "endpoint" text;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "node" text;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "driver" text;--> statement-breakpoint
-- Rows from before the driver interface ran on the docker driver, reached at their loopback port.
UPDATE "sandboxes" SET "endpoint" = 'http://127.0.0.1:' || "host_port", "driver" = 'docker' WHERE "host_port" IS NOT NULL;--> statement-breakpoint
UPDATE "sandboxes" SET "driver" = 'docker' WHERE "driver" IS NULL AND "container_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "sandboxes" DROP COLUMN "host_port";