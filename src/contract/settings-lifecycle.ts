// Project settings owned by the lifecycle (double opt-in, referrals, leaderboard, invites).
// Each field of the shape is optional (PUT changes only the fields given); the defaults are what GET shows
// for a project that never set them. Stored in the project's `settings` JSON column.
import type { z } from 'zod';

export const lifecycleSettingsShape = {} satisfies z.ZodRawShape;

export interface LifecycleSettings {}
export const lifecycleSettingsDefaults: LifecycleSettings = {};
