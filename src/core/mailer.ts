// Email over the operator's own SMTP server (nodemailer). Created only when --smtp-url is set.
import nodemailer, { type Transporter } from 'nodemailer';
import { htmlDocument, type TemplateParts } from './templates.js';

export interface MailerOptions {
  /** smtp://user:pass@host:port or smtps://… */
  smtpUrl: string;
  /** "Name <addr>" or addr. */
  from: string;
  /**
   * The longest one send may take, connection to reply, before it is aborted (connection closed): under
   * the dispatcher's claim lease, so that a slow SMTP server is never sent the same email by a second
   * claim while the first is still open (default SEND_DEADLINE_MS).
   */
  deadlineMs?: number;
}

/** Default deadline of one send: 40 s (the outbox lease is 60 s by default). */
export const SEND_DEADLINE_MS = 40_000;

export interface MailResult {
  ok: boolean;
  /** SMTP reply code of the failure (e.g. 535 for refused auth), when there was one. */
  code: number | null;
  error: string | null;
  /**
   * The SMTP server answered and refused only this recipient (its reply to `RCPT TO`: no such mailbox,
   * mailbox full, greylisted): the server itself works, so the project's email is not failing.
   */
  recipientRefused?: boolean;
}

export class Mailer {
  private readonly transport: Transporter;
  constructor(private readonly opts: MailerOptions) {
    // Short timeouts: a stuck SMTP server holds a dispatcher slot, never a join. They are transport
    // options, beside the URL: a second argument to createTransport would be message defaults, and
    // nodemailer's own limits (2 min to connect, 10 min of silence) would apply.
    this.transport = nodemailer.createTransport({
      url: opts.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  /** Sends one email (plain-text and HTML parts); `leaveUrl` adds one-click List-Unsubscribe (RFC 8058). Never throws. */
  async send(to: string, parts: TemplateParts, leaveUrl?: string | null): Promise<MailResult> {
    const headers: Record<string, string> = {};
    if (leaveUrl) {
      headers['List-Unsubscribe'] = `<${leaveUrl}>`;
      headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    }
    try {
      await this.transport.sendMail({
        from: this.opts.from,
        to,
        subject: parts.subject,
        text: parts.text,
        html: htmlDocument(parts.html),
        headers,
        signal: AbortSignal.timeout(this.opts.deadlineMs ?? SEND_DEADLINE_MS),
      });
      return { ok: true, code: null, error: null };
    } catch (err) {
      const e = err as { responseCode?: number; code?: string; message?: string; command?: string };
      // The message of an SMTP error can echo what the server said; never the password (nodemailer redacts the URL).
      return {
        ok: false,
        code: e.responseCode ?? null,
        error: `${e.code ?? 'error'}: ${(e.message ?? '').slice(0, 300)}`,
        recipientRefused: e.code === 'EENVELOPE' && e.command === 'RCPT TO' && e.responseCode !== undefined,
      };
    }
  }

  close() {
    this.transport.close();
  }
}
