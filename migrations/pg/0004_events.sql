-- Events layer (issue 12): webhooks, the transactional outbox (events) and its deliveries (webhook
-- attempts and queued emails), per-project email templates. Hand-written (partial indexes).
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"url" text NOT NULL,
	"events" text NOT NULL,
	"secret" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "webhooks_project_idx" ON "webhooks" ("project_id","id");
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" text NOT NULL,
	"created_at" bigint NOT NULL,
	"fanned_out" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX "events_unfanned_idx" ON "events" ("id") WHERE "fanned_out" = false;
--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" ("created_at");
--> statement-breakpoint
CREATE TABLE "deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"kind" text NOT NULL,
	"webhook_id" text,
	"event_id" text,
	"type" text NOT NULL,
	"recipient" text,
	"data" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_status_code" integer,
	"last_error" text,
	"next_attempt_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "deliveries_due_idx" ON "deliveries" ("next_attempt_at") WHERE "status" = 'pending';
--> statement-breakpoint
CREATE INDEX "deliveries_webhook_idx" ON "deliveries" ("webhook_id","id");
--> statement-breakpoint
CREATE INDEX "deliveries_project_kind_idx" ON "deliveries" ("project_id","kind","id");
--> statement-breakpoint
CREATE INDEX "deliveries_updated_idx" ON "deliveries" ("updated_at");
--> statement-breakpoint
CREATE INDEX "deliveries_event_idx" ON "deliveries" ("event_id");
--> statement-breakpoint
CREATE TABLE "email_templates" (
	"project_id" text NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"name" text NOT NULL,
	"subject" text,
	"text" text,
	"html" text,
	"updated_at" bigint NOT NULL,
	PRIMARY KEY ("project_id", "name")
);
