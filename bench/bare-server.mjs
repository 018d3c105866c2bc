// The baseline: a bare node:http server that reads the body and answers 201 with a small JSON
// envelope, i.e. the ceiling any join endpoint on this machine can reach. Prints its URL.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.stringify({ status: 'success', message: 'ok', data: { bytes: Buffer.concat(chunks).length }, timestamp: Date.now() });
    res.writeHead(201, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`listening on http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}\n`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
