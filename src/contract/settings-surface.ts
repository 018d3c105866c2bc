// Project settings owned by the sign-up surface (hosted page, redirect, custom fields, captcha).
// Each field of the shape is optional (PUT changes only the fields given); the defaults are what GET shows
// for a project that never set them. Stored in the project's `settings` JSON column.
import { z } from 'zod';

export const SURFACE_LIMITS = {
  fields: 20,
  fieldKeyChars: 40,
  fieldLabelChars: 100,
  fieldOptions: 100,
  fieldOptionChars: 100,
  /** A text answer's length; a number answer is any finite number. */
  fieldTextChars: 500,
  pageTitleChars: 120,
  pageDescriptionChars: 1000,
  redirectUrlChars: 2000,
  captchaDifficultyMin: 1_000,
  captchaDifficultyMax: 1_000_000,
} as const;

export const FIELD_TYPES = ['text', 'number', 'select', 'checkbox'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
/** A custom field's key: used as `fields.<key>` in forms and CSV columns, so letters, digits, `_` only. */
export const FIELD_KEY_RE = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export interface FieldDefinition {
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  /** The choices of a `select` (absent for other types). */
  options?: string[];
}

const fieldDefinition = z
  .strictObject({
    key: z
      .string()
      .regex(FIELD_KEY_RE, 'A field key is 1-40 letters, digits or "_", starting with a letter')
      .refine((k) => !RESERVED_KEYS.has(k), 'This field key is reserved'),
    label: z
      .string()
      .trim()
      .min(1, 'A field needs a label')
      .max(SURFACE_LIMITS.fieldLabelChars, `A label is at most ${SURFACE_LIMITS.fieldLabelChars} characters`),
    type: z.enum(FIELD_TYPES, `type must be one of ${FIELD_TYPES.join(', ')}`),
    required: z.boolean('required must be true or false').default(false),
    options: z
      .array(
        z
          .string()
          .trim()
          .min(1, 'An option must not be empty')
          .max(SURFACE_LIMITS.fieldOptionChars, `An option is at most ${SURFACE_LIMITS.fieldOptionChars} characters`),
        'options must be an array of strings',
      )
      .max(SURFACE_LIMITS.fieldOptions, `A select has at most ${SURFACE_LIMITS.fieldOptions} options`)
      .optional(),
  })
  .superRefine((f, ctx) => {
    if (f.type === 'select') {
      if (!f.options?.length) ctx.addIssue({ code: 'custom', path: ['options'], message: 'A select field needs options' });
      else if (new Set(f.options).size !== f.options.length)
        ctx.addIssue({ code: 'custom', path: ['options'], message: 'Options must be unique' });
    } else if (f.options !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'Only a select field has options' });
    }
  });

const nullableText = (name: string, max: number) =>
  z
    .string(`${name} must be a string or null`)
    .trim()
    .max(max, `${name} must be at most ${max} characters`)
    .transform((v) => (v === '' ? null : v))
    .nullable()
    .optional();

export const surfaceSettingsShape = {
  hostedPage: z.boolean('hostedPage must be true or false').optional(),
  pageTitle: nullableText('pageTitle', SURFACE_LIMITS.pageTitleChars),
  pageDescription: nullableText('pageDescription', SURFACE_LIMITS.pageDescriptionChars),
  redirectUrl: z
    .string('redirectUrl must be an http(s) URL or null')
    .trim()
    .max(SURFACE_LIMITS.redirectUrlChars, `redirectUrl must be at most ${SURFACE_LIMITS.redirectUrlChars} characters`)
    .refine((v) => v === '' || (/^https?:\/\/[^\s/?#]+[^\s]*$/i.test(v) && URL.canParse(v)), 'redirectUrl must be an absolute http(s) URL')
    .transform((v) => (v === '' ? null : v))
    .nullable()
    .optional(),
  fields: z
    .array(fieldDefinition, 'fields must be an array of field definitions')
    .max(SURFACE_LIMITS.fields, `At most ${SURFACE_LIMITS.fields} custom fields`)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((f, i) => {
        if (seen.has(f.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `Duplicate field key "${f.key}"` });
        seen.add(f.key);
      });
    })
    .optional(),
  captcha: z.enum(['off', 'pow'], 'captcha must be "off" or "pow"').optional(),
  captchaDifficulty: z
    .number('captchaDifficulty must be an integer')
    .int('captchaDifficulty must be an integer')
    .min(SURFACE_LIMITS.captchaDifficultyMin, `captchaDifficulty must be at least ${SURFACE_LIMITS.captchaDifficultyMin}`)
    .max(SURFACE_LIMITS.captchaDifficultyMax, `captchaDifficulty must be at most ${SURFACE_LIMITS.captchaDifficultyMax}`)
    .optional(),
} satisfies z.ZodRawShape;

export interface SurfaceSettings {
  /** Serve the hosted sign-up page at /w/:slug. */
  hostedPage: boolean;
  /** The hosted page's heading (null: the project's name). */
  pageTitle: string | null;
  /** A paragraph under the heading (null: none). */
  pageDescription: string | null;
  /** Where plain form posts are sent after a join (null: the hosted page). */
  redirectUrl: string | null;
  /** Custom questions asked at join. */
  fields: FieldDefinition[];
  /** Proof-of-work challenge required at join. */
  captcha: 'off' | 'pow';
  /** The largest number a challenge may hide: a solver tries half of it on average. */
  captchaDifficulty: number;
}
export const surfaceSettingsDefaults: SurfaceSettings = {
  hostedPage: true,
  pageTitle: null,
  pageDescription: null,
  redirectUrl: null,
  fields: [],
  captcha: 'off',
  captchaDifficulty: 50_000,
};
