// A bad-key flood for bench/run.mjs, in its own process (so it does not share the event loop of the
// load generator it is measured against): wrong secrets for one key at a fixed rate over 64
// connections. Prints one line `FLOODJSON {sent, s401, s503, other}`.
//   node bench/flood.mjs <url> <path> <key> <rate per second> <seconds>
import autocannon from 'autocannon';

const [url, path, key, rate, seconds] = process.argv.slice(2);
let n = 0;
const counts = { sent: 0, s401: 0, s503: 0, other: 0 };
const inst = autocannon({
  url: url + path,
  method: 'POST',
  connections: 64,
  overallRate: Number(rate),
  duration: Number(seconds),
  headers: { 'content-type': 'application/json' },
  requests: [
    {
      setupRequest: (req) => {
        n++;
        const secret = `${n.toString(36)}${Math.random().toString(36).slice(2)}`.padEnd(32, 'q').slice(0, 32);
        req.body = JSON.stringify({ email: `flood-${n}@bench.example` });
        req.headers = { ...req.headers, authorization: `Bearer ${key.slice(0, 15)}${secret}` };
        return req;
      },
    },
  ],
});
inst.on('response', (_client, status) => {
  counts.sent++;
  if (status === 401) counts.s401++;
  else if (status === 503) counts.s503++;
  else counts.other++;
});
await inst;
console.log(`FLOODJSON ${JSON.stringify(counts)}`);
