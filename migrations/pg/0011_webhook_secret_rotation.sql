-- Webhook secret rotation (docs/events.md, "Rotating a webhook's secret"): the secret a rotation
-- replaced keeps signing beside the new one until previous_secret_expires_at (epoch ms), so a receiver
-- can switch to the new secret without missing a delivery.
ALTER TABLE "webhooks" ADD COLUMN "previous_secret" text;
--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_secret_expires_at" bigint;
