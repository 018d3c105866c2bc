ALTER TABLE "projects" ADD COLUMN "settings" text DEFAULT '{}' NOT NULL;
