// Join load from autocannon, in this process, for the benches that build each body themselves
// (a `ref`, a captcha solution). 64 connections; `body(i)` gives the JSON body of the i-th join (0, 1, …).
// Answers joins/s (autocannon's average), 2xx, non-2xx, socket errors and requests sent.
export async function autocannonJoins(url, slug, key, seconds, body) {
  const { default: autocannon } = await import('autocannon');
  let n = 0;
  const r = await autocannon({
    url: `${url}/v1/waitlist/${slug}/join`,
    method: 'POST',
    connections: 64,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    requests: [
      {
        setupRequest: (req) => {
          req.body = JSON.stringify(body(n++));
          return req;
        },
      },
    ],
  });
  return { rps: r.requests.average, ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, total: r.requests.total };
}
