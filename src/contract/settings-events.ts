// Project settings owned by the events layer (webhooks and email: welcome email, sign-up notices).
// Each field of the shape is optional (PUT changes only the fields given); the defaults are what GET shows
// for a project that never set them. Stored in the project's `settings` JSON column.
import type { z } from 'zod';

export const eventSettingsShape = {} satisfies z.ZodRawShape;

export interface EventSettings {}
export const eventSettingsDefaults: EventSettings = {};
