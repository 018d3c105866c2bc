// Response shapes of the contract: what the server sends and the client reads.

export type ErrorCode =
  | 'invalid_json'
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'signup_closed'
  | 'not_found'
  | 'email_taken'
  | 'slug_taken'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'invite_used'
  | 'invite_expired'
  | 'smtp_not_configured'
  | 'internal'
  | 'service_unavailable';

/** HTTP status of each error code, as the contract fixes it. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_json: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  signup_closed: 403,
  not_found: 404,
  email_taken: 409,
  slug_taken: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  invite_used: 409,
  invite_expired: 409,
  smtp_not_configured: 409,
  internal: 500,
  service_unavailable: 503,
};

export interface Issue {
  path: string;
  message: string;
}

export interface SuccessEnvelope<T> {
  status: 'success';
  message: string;
  data: T;
  timestamp: number;
}

export interface ErrorEnvelope {
  status: 'error';
  message: string;
  error: { code: ErrorCode; issues?: Issue[] };
  timestamp: number;
}

export type Envelope<T> = SuccessEnvelope<T> | ErrorEnvelope;

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export interface User {
  userId: string;
  email: string;
  name: string | null;
  createdAt: string;
}

/** GET /auth/status (public): whether sign-up is open and whether any account exists yet. */
export interface AuthStatus {
  signupOpen: boolean;
  hasUsers: boolean;
  /** The request carried a live session cookie. */
  signedIn: boolean;
}

export interface Project {
  projectId: string;
  name: string;
  slug: string;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKey {
  keyId: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** `publishable` (joins only) or `secret` (also the server-to-server routes). */
  kind: 'publishable' | 'secret';
}

export interface CreatedApiKey extends ApiKey {
  key: string;
}

/** What DELETE answers: the soft-deleted (or revoked) resource with the time it happened. */
export type Deleted<T> = T & { deletedAt: string };

export interface Entry {
  entryId: string;
  email: string;
  name: string | null;
  source: string;
  metadata: Record<string, unknown>;
  ip: string | null;
  country: string | null;
  userAgent: string | null;
  createdAt: string;
  updatedAt: string;
  /** Answers to the project's custom fields. */
  fields: Record<string, unknown>;
  status: 'pending' | 'waiting' | 'invited' | 'accepted';
  /** 1-based rank in the queue while waiting, else null. */
  position: number | null;
  referralCode: string | null;
  referredBy: string | null;
  referrals: number;
  confirmedAt: string | null;
  invitedAt: string | null;
  acceptedAt: string | null;
}

/** POST /v1/waitlist/:slug/join `data` (built in src/server/join-flow.ts). */
export interface JoinResult {
  entryId: string;
  email: string;
  name: string | null;
  source: string;
  createdAt: string;
  /** Answers to the project's custom fields. */
  fields?: Record<string, unknown>;
  status?: 'pending' | 'waiting' | 'invited' | 'accepted';
  position?: number | null;
  referralCode?: string;
  referralUrl?: string;
  /** Lets the subscriber see their status and leave (shown once). */
  statusToken?: string;
}

export interface Stats {
  total: number;
  today: number;
  last7Days: number;
  perDay: { date: string; count: number }[];
  topSources: { source: string; count: number }[];
  topCountries: { country: string; count: number }[];
  byStatus?: { pending: number; waiting: number; invited: number; accepted: number };
  /** Entries that came through a referral. */
  referred?: number;
}
