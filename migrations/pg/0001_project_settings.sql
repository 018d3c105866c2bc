ALTER TABLE "projects" ADD COLUMN "allowed_origins" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "block_disposable" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "honeypot_field" text;