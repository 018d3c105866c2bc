// Per-project email templates (management API): read with defaults, change parts, preview.
import { EMAIL_TEMPLATES, type PreviewTemplateBody, type PutTemplatesBody, type Templates } from '../contract/events.js';
import { givenParts, type TemplatePatch } from '../db/outbox.js';
import type { Store } from '../db/store.js';
import { invalidField } from './errors.js';
import { DEFAULT_TEMPLATES, effectiveTemplates, renderEmail, SAMPLE_VARS, templateProblem } from './templates.js';

export async function getTemplates(store: Store, projectId: string): Promise<Templates> {
  return effectiveTemplates(await store.events.templates(projectId));
}

/** Applies the parts given; a part (or a whole template) set to null goes back to the default. */
export async function putTemplates(store: Store, projectId: string, body: PutTemplatesBody): Promise<Templates> {
  // Only the parts given change: none given (`{}`) changes nothing.
  if (!EMAIL_TEMPLATES.some((n) => body[n] !== undefined)) return getTemplates(store, projectId);
  const patches: TemplatePatch[] = [];
  const reset: string[] = [];
  const now = Date.now();
  for (const name of EMAIL_TEMPLATES) {
    const b = body[name];
    if (b === undefined) continue;
    if (b === null) {
      reset.push(name);
      continue;
    }
    for (const part of ['subject', 'text', 'html'] as const) {
      const v = b[part];
      if (typeof v === 'string') {
        const problem = templateProblem(v);
        if (problem) throw invalidField(`${name}.${part}`, problem);
        if (part === 'subject' && !v.trim()) throw invalidField(`${name}.subject`, 'subject must not be empty (null restores the default)');
      }
    }
    // Only the parts given: the store sets those and keeps the others as they are when it writes (not
    // as read here before: a concurrent PUT of another part would be written over).
    patches.push({ projectId, name, updatedAt: now, ...givenParts(b) });
  }
  await store.events.deleteTemplates(projectId, reset);
  await store.events.putTemplates(patches);
  return getTemplates(store, projectId);
}

/** Renders a template (the project's, or the parts given) with sample variables and the project's name. */
export async function previewTemplate(store: Store, projectId: string, projectName: string, body: PreviewTemplateBody) {
  const saved = (await getTemplates(store, projectId))[body.template];
  const t = {
    subject: body.subject ?? saved.subject ?? DEFAULT_TEMPLATES[body.template].subject,
    text: body.text ?? saved.text,
    html: body.html ?? saved.html,
  };
  for (const part of ['subject', 'text', 'html'] as const) {
    const problem = templateProblem(t[part]);
    if (problem) throw invalidField(part, problem);
  }
  return renderEmail(t, { ...SAMPLE_VARS, projectName });
}
