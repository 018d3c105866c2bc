// Project settings owned by the sign-up surface (hosted page, redirect, custom fields, captcha).
// Each field of the shape is optional (PUT changes only the fields given); the defaults are what GET shows
// for a project that never set them. Stored in the project's `settings` JSON column.
import type { z } from 'zod';

export const surfaceSettingsShape = {} satisfies z.ZodRawShape;

export interface SurfaceSettings {}
export const surfaceSettingsDefaults: SurfaceSettings = {};
