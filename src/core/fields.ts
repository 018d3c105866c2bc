// Custom fields: a join's `fields` answers checked against the project's definitions (settings
// `fields`). Answers from JSON keep their types; answers from a plain form post arrive as strings and
// are converted (numbers parsed, checkbox "on"/"true"/"1" → true). What is stored is the converted
// object, so changing the definitions later never touches existing entries.
import { SURFACE_LIMITS, type FieldDefinition } from '../contract/settings-surface.js';
import type { Issue } from '../contract/types.js';
import { AppError } from './errors.js';

export type FieldValue = string | number | boolean;

const TRUE = new Set(['on', 'true', '1', 'yes']);
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;
const FALSE = new Set(['off', 'false', '0', 'no', '']);

function convert(def: FieldDefinition, v: unknown): { value?: FieldValue; error?: string } {
  switch (def.type) {
    case 'text':
      if (typeof v !== 'string') return { error: 'Must be text' };
      if (v.includes('\0')) return { error: 'Must not contain NUL characters' };
      if (v.length > SURFACE_LIMITS.fieldTextChars) return { error: `Must be at most ${SURFACE_LIMITS.fieldTextChars} characters` };
      return { value: v.trim() };
    case 'number': {
      // Text in decimal notation only, as an HTML number input sends it (`1.5`, `-2`, `1e3`): Number()
      // alone would also read `0x10` as 16 and `0b11` as 3.
      const n = typeof v === 'number' ? v : typeof v === 'string' && DECIMAL.test(v.trim()) ? Number(v.trim()) : NaN;
      return Number.isFinite(n) ? { value: n } : { error: 'Must be a number' };
    }
    case 'select':
      if (typeof v !== 'string' || !def.options?.includes(v)) return { error: `Must be one of: ${(def.options ?? []).join(', ')}` };
      return { value: v };
    case 'checkbox':
      if (typeof v === 'boolean') return { value: v };
      if (typeof v === 'string' && TRUE.has(v.toLowerCase())) return { value: true };
      if (typeof v === 'string' && FALSE.has(v.toLowerCase())) return { value: false };
      return { error: 'Must be true or false' };
  }
}

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Issues of a `fields` answer object against the definitions, and the converted values. */
export function checkFields(defs: readonly FieldDefinition[], given: unknown): { values: Record<string, FieldValue>; issues: Issue[] } {
  const issues: Issue[] = [];
  const values: Record<string, FieldValue> = {};
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
    return { values, issues: [{ path: 'fields', message: 'fields must be an object of answers' }] };
  }
  const answers = (given ?? {}) as Record<string, unknown>;
  const byKey = new Map(defs.map((d) => [d.key, d]));
  for (const key of Object.keys(answers)) {
    if (!byKey.has(key)) issues.push({ path: `fields.${key}`, message: `Unknown field "${key}"` });
  }
  for (const def of defs) {
    const v = Object.hasOwn(answers, def.key) ? answers[def.key] : undefined;
    if (blank(v) && !(def.type === 'checkbox' && typeof v === 'string')) {
      if (def.required) issues.push({ path: `fields.${def.key}`, message: `${def.label} is required` });
      continue;
    }
    const r = convert(def, v);
    if (r.error) issues.push({ path: `fields.${def.key}`, message: r.error });
    else if (def.type === 'checkbox' && def.required && r.value !== true)
      issues.push({ path: `fields.${def.key}`, message: `${def.label} must be checked` });
    else values[def.key] = r.value!;
  }
  return { values, issues };
}

/** The stored JSON of a join's answers; 400 validation_failed naming each bad `fields.<key>`. */
export function fieldsJson(defs: readonly FieldDefinition[], given: unknown): string {
  const { values, issues } = checkFields(defs, given);
  if (issues.length) throw new AppError('validation_failed', 'Validation failed', issues);
  return JSON.stringify(values);
}
