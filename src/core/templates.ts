// Email templates: a default per kind, overridable per project (GET/PUT /api/project/:id/templates).
// Mustache syntax: {{var}} (HTML-escaped in the HTML part), {{#var}}…{{/var}} shown only when var is
// set. Variables: projectName, email, name, confirmUrl, statusUrl, leaveUrl, inviteUrl, inviteCode,
// expiresAt, expiresOn, position, referralUrl, dashboardUrl, count, people, newSignups, signups (digest: one "email (name)" per line).
import Mustache from 'mustache';
import type { TemplateRow } from '../db/outbox.js';
import type { EmailTemplate, EmailVars } from './outbox.js';
import { EMAIL_TEMPLATES } from './outbox.js';

export interface TemplateParts {
  subject: string;
  text: string;
  html: string;
}

const statusText = '{{#statusUrl}}\n\nYour sign-up: {{{statusUrl}}}{{/statusUrl}}';
const statusHtml = '{{#statusUrl}}<p><small><a href="{{statusUrl}}">Your sign-up</a></small></p>{{/statusUrl}}';
const leaveText = '{{#leaveUrl}}\n\nTo leave the waitlist: {{{leaveUrl}}}{{/leaveUrl}}';
const leaveHtml = '{{#leaveUrl}}<p><small><a href="{{leaveUrl}}">Leave the waitlist</a></small></p>{{/leaveUrl}}';

export const DEFAULT_TEMPLATES: Record<EmailTemplate, TemplateParts> = {
  confirmation: {
    subject: 'Confirm your place on the {{projectName}} waitlist',
    text:
      'Hi{{#name}} {{name}}{{/name}},\n\nPlease confirm your email to join the {{projectName}} waitlist:\n{{{confirmUrl}}}\n\nIf you did not sign up, ignore this email.' +
      statusText +
      leaveText,
    html:
      '<p>Hi{{#name}} {{name}}{{/name}},</p><p>Please confirm your email to join the {{projectName}} waitlist:</p><p><a href="{{confirmUrl}}">Confirm my email</a></p><p>If you did not sign up, ignore this email.</p>' +
      statusHtml +
      leaveHtml,
  },
  welcome: {
    subject: "You're on the {{projectName}} waitlist",
    text:
      'Hi{{#name}} {{name}}{{/name}},\n\nThanks for joining the {{projectName}} waitlist.{{#position}} You are number {{position}}.{{/position}}{{#statusUrl}}\n\nSee your place: {{{statusUrl}}}{{/statusUrl}}{{#referralUrl}}\nMove up by sharing: {{{referralUrl}}}{{/referralUrl}}' +
      leaveText,
    html:
      '<p>Hi{{#name}} {{name}}{{/name}},</p><p>Thanks for joining the {{projectName}} waitlist.{{#position}} You are number {{position}}.{{/position}}</p>{{#statusUrl}}<p><a href="{{statusUrl}}">See your place</a></p>{{/statusUrl}}{{#referralUrl}}<p>Move up by sharing: <a href="{{referralUrl}}">{{referralUrl}}</a></p>{{/referralUrl}}' +
      leaveHtml,
  },
  invite: {
    subject: "You're invited to {{projectName}}",
    text:
      "Hi{{#name}} {{name}}{{/name}},\n\nYour wait is over: you're invited to {{projectName}}.\n{{#inviteUrl}}Accept: {{{inviteUrl}}}\n{{/inviteUrl}}{{^inviteUrl}}Your invite code: {{inviteCode}}\n{{/inviteUrl}}{{#expiresOn}}The invite expires on {{expiresOn}}.{{/expiresOn}}" +
      statusText +
      leaveText,
    html:
      '<p>Hi{{#name}} {{name}}{{/name}},</p><p>Your wait is over: you\'re invited to {{projectName}}.</p>{{#inviteUrl}}<p><a href="{{inviteUrl}}">Accept the invite</a></p>{{/inviteUrl}}{{^inviteUrl}}<p>Your invite code: <code>{{inviteCode}}</code></p>{{/inviteUrl}}{{#expiresOn}}<p>The invite expires on {{expiresOn}}.</p>{{/expiresOn}}' +
      statusHtml +
      leaveHtml,
  },
  notice: {
    subject: 'New sign-up on {{projectName}}: {{email}}',
    text: '{{email}}{{#name}} ({{name}}){{/name}} joined the {{projectName}} waitlist.{{#dashboardUrl}}\n\nDashboard: {{{dashboardUrl}}}{{/dashboardUrl}}',
    html: '<p><b>{{email}}</b>{{#name}} ({{name}}){{/name}} joined the {{projectName}} waitlist.</p>{{#dashboardUrl}}<p><a href="{{dashboardUrl}}">Open the dashboard</a></p>{{/dashboardUrl}}',
  },
  digest: {
    subject: '{{newSignups}} on {{projectName}}',
    text: '{{people}} joined the {{projectName}} waitlist in the last hour:\n\n{{{signups}}}{{#dashboardUrl}}\n\nDashboard: {{{dashboardUrl}}}{{/dashboardUrl}}',
    html: '<p>{{people}} joined the {{projectName}} waitlist in the last hour:</p><pre>{{signups}}</pre>{{#dashboardUrl}}<p><a href="{{dashboardUrl}}">Open the dashboard</a></p>{{/dashboardUrl}}',
  },
};

/** Sample variables for previews. */
export const SAMPLE_VARS: EmailVars = {
  projectName: 'My app',
  email: 'ada@example.com',
  name: 'Ada',
  confirmUrl: 'https://waitlist.example.com/w/my-app/confirm?token=sample',
  statusUrl: 'https://waitlist.example.com/w/my-app/status?token=sample',
  leaveUrl: 'https://waitlist.example.com/w/my-app/leave?token=sample',
  inviteUrl: 'https://app.example.com/signup?invite=sample',
  inviteCode: 'sample-invite-code',
  expiresAt: '2030-01-01T12:00:00.000Z',
  expiresOn: '1 January 2030, 12:00 UTC',
  position: 42,
  referralUrl: 'https://waitlist.example.com/w/my-app?ref=sample',
  dashboardUrl: 'https://waitlist.example.com/',
  count: 2,
  people: '2 people',
  newSignups: '2 new sign-ups',
  signups: 'ada@example.com (Ada)\ngrace@example.com',
};

/** The templates of a project: its stored overrides over the defaults, per part. */
export function effectiveTemplates(rows: TemplateRow[]): Record<EmailTemplate, TemplateParts & { custom: boolean }> {
  const out = {} as Record<EmailTemplate, TemplateParts & { custom: boolean }>;
  for (const name of EMAIL_TEMPLATES) {
    const row = rows.find((r) => r.name === name);
    const d = DEFAULT_TEMPLATES[name];
    out[name] = {
      subject: row?.subject ?? d.subject,
      text: row?.text ?? d.text,
      html: row?.html ?? d.html,
      custom: Boolean(row && (row.subject !== null || row.text !== null || row.html !== null)),
    };
  }
  return out;
}

const plain = { escape: (v: unknown) => String(v) };
// The HTML part escapes what can end text or a quoted attribute (& < > " ' and `), not Mustache's
// default `/` and `=` as well: links stay as written (`https://…/confirm?token=…`), which mail clients
// and whatever scans the HTML for a link read as they are. A variable inside an attribute must be
// quoted (the default templates do).
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };
const html = { escape: (v: unknown) => String(v).replace(/[&<>"'`]/g, (c) => HTML_ESCAPES[c]!) };

/** Renders one email; the subject has its line breaks removed (header injection). */
export function renderEmail(t: TemplateParts, vars: EmailVars): TemplateParts {
  return {
    subject: Mustache.render(t.subject, vars, {}, plain)
      .replace(/[\r\n]+/g, ' ')
      .trim()
      .slice(0, 300),
    text: Mustache.render(t.text, vars, {}, plain),
    html: Mustache.render(t.html, vars, {}, html),
  };
}

/**
 * An email's HTML part as a whole document: templates are fragments (`<p>…</p>`), and an HTML part
 * without `<html>` and `<body>` is scored as spam (SpamAssassin HTML_MIME_NO_HTML_TAG). A template that
 * is already a document is left as it is.
 */
export function htmlDocument(html: string): string {
  if (/<html[\s>]/i.test(html)) return html;
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head><body>${html}</body></html>`;
}

/** The reason a template text does not parse, or null. */
export function templateProblem(source: string): string | null {
  let tokens: unknown[];
  try {
    tokens = Mustache.parse(source);
  } catch (err) {
    return `Template syntax error: ${(err as Error).message.split('\n')[0]}`;
  }
  // Rendering recurses once per level of sections: thousands of nested {{#x}} (a 48 KB template) ran
  // out of stack, a 500 at preview and an email that could never be sent.
  if (sectionDepth(tokens, MAX_SECTION_DEPTH) > MAX_SECTION_DEPTH) {
    return `Template sections ({{#…}}, {{^…}}) may nest at most ${MAX_SECTION_DEPTH} levels`;
  }
  return null;
}

/** How deep sections may nest in a template: far more than an email needs, far less than the stack allows. */
export const MAX_SECTION_DEPTH = 20;

/** The deepest nesting of sections in Mustache's token tree (a section token holds its children at [4]), counted up to `cap` + 1. */
function sectionDepth(tokens: unknown[], cap: number): number {
  let deepest = 0;
  const stack: [unknown[], number][] = [[tokens, 0]];
  while (stack.length) {
    const [list, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (deepest > cap) break;
    for (const t of list as unknown[][])
      if ((t[0] === '#' || t[0] === '^') && Array.isArray(t[4])) stack.push([t[4] as unknown[], depth + 1]);
  }
  return deepest;
}
