// The benches' HTTP client for the management API: JSON in and out, and the session cookie carried.

/** The account every bench signs up on its fresh server, and logs in with. */
export const OWNER = { email: 'bench@example.com', password: 'bench password 1' };

/**
 * `method path` on the server at `base`, with `body` as JSON and `cookie` as the session; answers the
 * status, the parsed body and the cookie to use next (a new one when the server set it).
 */
export async function api(base, method, path, body, cookie) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (cookie) headers.cookie = cookie;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  const setCookie = r.headers.get('set-cookie');
  return { status: r.status, json: text ? JSON.parse(text) : undefined, cookie: setCookie ? setCookie.split(';')[0] : cookie };
}
