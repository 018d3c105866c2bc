// The lifecycle's email step (confirmation and invite emails), as a seam the events layer fills.
// The events branch builds the transactional outbox and SMTP delivery; when it lands, `LifecycleMail`
// is implemented on it (queueing the email in the outbox) and passed to createApp as `deps.mail`.
// Until then no email is sent: `configured` is false unless the server was given an SMTP URL, and
// turning doubleOptIn on without SMTP answers 409 smtp_not_configured (LIFECYCLE.md).
import type { ProjectRow } from '../db/store.js';

/** Links put in a subscriber's emails (absolute URLs on the server's public origin). */
export interface SubscriberLinks {
  statusUrl: string;
  leaveUrl: string;
}

export interface LifecycleMail {
  /** True when the server can send email (an SMTP URL is configured). */
  readonly configured: boolean;
  /** A pending entry's confirmation email: `confirmUrl` is /w/:slug/confirm?token=…. */
  confirmation(project: ProjectRow, to: { entryId: string; email: string; name: string | null }, links: SubscriberLinks & { confirmUrl: string }): Promise<void>;
  /** An invite email: `inviteUrl` is the project's template filled with the code (or null). */
  invite(
    project: ProjectRow,
    to: { entryId: string; email: string; name: string | null },
    links: SubscriberLinks & { code: string; inviteUrl: string | null; expiresAt: string },
  ): Promise<void>;
}

/** No SMTP: nothing is sent and nothing piles up. */
export const NO_MAIL: LifecycleMail = {
  configured: false,
  async confirmation() {},
  async invite() {},
};

/** Until the events layer's mailer is wired in: SMTP counts as configured when its URL is given. */
export function mailFromEnv(smtpUrl: string | undefined = process.env.WAITLIST_SMTP_URL): LifecycleMail {
  return smtpUrl ? { ...NO_MAIL, configured: true } : NO_MAIL;
}
