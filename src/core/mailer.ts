// Email over the operator's own SMTP server (nodemailer). Created only when --smtp-url is set.
import nodemailer, { type Transporter } from 'nodemailer';
import type { TemplateParts } from './templates.js';

export interface MailerOptions {
  /** smtp://user:pass@host:port or smtps://… */
  smtpUrl: string;
  /** "Name <addr>" or addr. */
  from: string;
}

export interface MailResult {
  ok: boolean;
  /** SMTP reply code of the failure (e.g. 535 for refused auth), when there was one. */
  code: number | null;
  error: string | null;
}

export class Mailer {
  private readonly transport: Transporter;
  constructor(private readonly opts: MailerOptions) {
    // Short timeouts: a stuck SMTP server holds a dispatcher slot, never a join.
    this.transport = nodemailer.createTransport(opts.smtpUrl, {
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    } as never);
  }

  /** Sends one email (plain-text and HTML parts); `leaveUrl` adds one-click List-Unsubscribe (RFC 8058). Never throws. */
  async send(to: string, parts: TemplateParts, leaveUrl?: string | null): Promise<MailResult> {
    const headers: Record<string, string> = {};
    if (leaveUrl) {
      headers['List-Unsubscribe'] = `<${leaveUrl}>`;
      headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    }
    try {
      await this.transport.sendMail({ from: this.opts.from, to, subject: parts.subject, text: parts.text, html: parts.html, headers });
      return { ok: true, code: null, error: null };
    } catch (err) {
      const e = err as { responseCode?: number; code?: string; message?: string };
      // The message of an SMTP error can echo what the server said; never the password (nodemailer redacts the URL).
      return { ok: false, code: e.responseCode ?? null, error: `${e.code ?? 'error'}: ${(e.message ?? '').slice(0, 300)}` };
    }
  }

  close() {
    this.transport.close();
  }
}
