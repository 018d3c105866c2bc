// Wire constants both ends must agree on (server, CLI client, dashboard): defined once, here.

/** The session cookie: `waitlist_session=<token>; HttpOnly; SameSite=Lax; Path=/` (+ Secure over HTTPS). */
export const SESSION_COOKIE = 'waitlist_session';
