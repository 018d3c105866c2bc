// Which email addresses the service accepts, and when two of them are the same address.
//
// The rule (documented in docs/api.md, "Email addresses"):
// - Internationalised domains (IDN) are accepted, in Unicode (`user@müller.de`) or in their ASCII
//   punycode form (`user@xn--mller-kva.de`); both are one address.
// - UTF-8 local parts (RFC 6531, `zoë@example.de`) are accepted: letters, marks and digits of any script
//   plus `_ ' + -` and single inner dots, like the ASCII rule; no quoted strings, no spaces.
// - An address is stored as sent (trimmed, Unicode NFC); it is compared by its normal form (normEmail in
//   core/users.ts): NFC, local part lower-cased, domain in its Unicode form (punycode decoded, UTS 46
//   mapped). PostgreSQL's search reads that normal form, SQLite's the address as stored: they differ
//   only for a domain joined in punycode (docs/api.md).
// This file works unchanged in Node and in the browser bundle (URL only).

const LOCAL_CHAR = String.raw`[\p{L}\p{M}\p{N}_'+\-]`;
const DOMAIN_LABEL = String.raw`[\p{L}\p{M}\p{N}][\p{L}\p{M}\p{N}\-]*`;
const TLD = String.raw`(?:[\p{L}\p{M}]{2,}|xn--[a-z0-9\-]+)`;

/** The accepted shape: zod's ASCII rule of before, widened to Unicode letters, marks and digits. */
export const EMAIL_RE = new RegExp(String.raw`^${LOCAL_CHAR}+(?:\.${LOCAL_CHAR}+)*@(?:${DOMAIN_LABEL}\.)+${TLD}$`, 'iu');

/** A domain's lower-case ASCII (punycode) form, or undefined when it is not a valid hostname. */
export function asciiDomain(domain: string): string | undefined {
  try {
    const host = new URL(`http://${domain}/`).hostname;
    return host ? host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an address (already trimmed) is one the service accepts. */
export function isValidEmail(email: string): boolean {
  // Every address the earlier ASCII-only rule (zod's z.email()) accepted is still accepted.
  return EMAIL_RE.test(email) && asciiDomain(email.slice(email.lastIndexOf('@') + 1)) !== undefined;
}
