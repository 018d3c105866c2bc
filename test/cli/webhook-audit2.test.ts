// Webhook commands from the second CLI audit, against a real server and a real receiver
// (notes/audit-cli2.md), checked by running `node bin/waitlist.js` as a process: the exit code, stdout and
// stderr a script sees.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startHookReceiver, type HookReceiver } from '../helpers/receivers.js';
import { cliJson, cliProcess, useCliUser } from './cli.js';

const user = useCliUser({ args: ['--allow-private-webhooks'] }, { name: 'Audit Two', slug: 'audit-two' });
const P = ['--project', 'audit-two'];
const run = (args: string[], env: Record<string, string> = {}) => cliProcess(args, { home: user.home, env });

let rx: HookReceiver;
beforeAll(async () => {
  rx = await startHookReceiver();
});
afterAll(() => rx.close());

describe('webhook test / retry: a delivery that failed exits 1 (finding 1)', () => {
  it('prints the delivery on stdout (TSV and --json) and exits 1 with the reason on stderr; delivered exits 0', async () => {
    const w = await cliJson(['webhook', 'create', ...P, '--url', rx.url], user.as());
    rx.setSecret(w.secret);
    rx.answer = () => 500;
    const failed = await run(['webhook', 'test', w.webhookId, ...P]);
    expect(failed.exitCode, failed.stderr).toBe(1);
    expect(failed.stdout).toMatch(/^deliveryId\tdlv_/m);
    expect(failed.stdout).toMatch(/^status\tpending$/m);
    expect(failed.stdout).toMatch(/^lastStatusCode\t500$/m);
    expect(failed.stderr).toMatch(/^error: ping dlv_\S+ was not delivered \(HTTP 500\); next attempt \d{4}-/);

    const failedJson = await run(['webhook', 'test', w.webhookId, ...P, '--json']);
    expect(failedJson.exitCode).toBe(1);
    const d = JSON.parse(failedJson.stdout);
    expect(d).toMatchObject({ type: 'ping', status: 'pending', lastStatusCode: 500 });
    expect(failedJson.stderr).toContain(`error: ping ${d.deliveryId} was not delivered (HTTP 500)`);

    const retried = await run(['webhook', 'retry', w.webhookId, d.deliveryId, ...P, '--json']);
    expect(retried.exitCode).toBe(1);
    expect(JSON.parse(retried.stdout)).toMatchObject({ deliveryId: d.deliveryId, status: 'pending', lastStatusCode: 500 });

    rx.answer = () => 200;
    const ok = await run(['webhook', 'retry', w.webhookId, d.deliveryId, ...P]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^status\tdelivered$/m);
    expect(ok.stderr).toMatch(/Delivered ping/);
    const okJson = await run(['webhook', 'test', w.webhookId, ...P, '--json']);
    expect(okJson.exitCode).toBe(0);
    expect(JSON.parse(okJson.stdout)).toMatchObject({ status: 'delivered' });
    expect(okJson.stderr).toBe('');
  });
});

describe('webhook create --url is checked locally (finding 4)', () => {
  it('not http(s), or not an absolute URL: exit 2 naming --url, nothing sent', async () => {
    for (const url of ['ftp://x.example', 'not-a-url', '/relative/path']) {
      const r = await run(['webhook', 'create', ...P, '--url', url]);
      expect(r.exitCode, url).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: --url must /);
    }
  });
});

describe('webhook rotate-secret (finding 8)', () => {
  it('prints the new secret once; --keep-previous is checked locally; deliveries verify with the new secret', async () => {
    // A receiver of its own: the earlier test's failed pings are retried later, signed with its secret.
    const own = await startHookReceiver();
    onTestFinished(() => own.close());
    const w = await cliJson(['webhook', 'create', ...P, '--url', own.url], user.as());
    own.setSecret(w.secret);
    own.answer = () => 200;

    const before = Date.now();
    const kept = await run(['webhook', 'rotate-secret', w.webhookId, ...P, '--json']);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stderr).toBe('');
    const r1 = JSON.parse(kept.stdout);
    expect(r1).toMatchObject({ webhookId: w.webhookId, url: own.url, secret: expect.stringMatching(/^whsec_/) });
    expect(r1.secret).not.toBe(w.secret);
    const until = Date.parse(r1.previousSecretExpiresAt) - before;
    expect(until).toBeGreaterThan(86_000_000);
    expect(until).toBeLessThan(87_000_000);

    const short = await cliJson(['webhook', 'rotate-secret', w.webhookId, ...P, '--keep-previous', '60'], user.as());
    expect(Date.parse(short.previousSecretExpiresAt) - Date.now()).toBeLessThanOrEqual(60_000);

    // Piped: create's columns (id, url, secret), then until when the old secret signs; empty once dropped.
    const piped = await run(['webhook', 'rotate-secret', w.webhookId, ...P, '--keep-previous', '0']);
    expect(piped.exitCode, piped.stderr).toBe(0);
    const cells = piped.stdout.split('\n')[0]!.split('\t');
    expect(piped.stdout.split('\n')).toHaveLength(2);
    expect(cells).toEqual([w.webhookId, own.url, expect.stringMatching(/^whsec_/), '']);
    own.setSecret(cells[2]!); // the old secret no longer signs: only the new one verifies
    const ping = await cliJson(['webhook', 'test', w.webhookId, ...P], user.as());
    expect(ping).toMatchObject({ status: 'delivered' });

    const table = await run(['webhook', 'rotate-secret', w.webhookId, ...P], { WAITLIST_FORCE_TTY: '1', NO_COLOR: '1' });
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toContain('OLD SECRET UNTIL');
    expect(table.stderr).toMatch(/This is the only time the new signing secret is shown: whsec_/);
    expect(table.stderr).toMatch(/signed with both the old and the new secret/);
    expect(own.badSignatures).toBe(0);

    for (const bad of ['604801', '-1', 'x', '1.5']) {
      const r = await run(['webhook', 'rotate-secret', w.webhookId, ...P, '--keep-previous', bad]);
      expect(r.exitCode, bad).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('--keep-previous');
    }
    const unknown = await run(['webhook', 'rotate-secret', 'wh_nope', ...P]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stdout).toBe('');
  });

  it('is in the help', async () => {
    const help = await cliProcess(['webhook', '--help']);
    expect(help.stdout).toContain('rotate-secret');
    const sub = await cliProcess(['help', 'webhook', 'rotate-secret']);
    expect(sub.stdout).toContain('--keep-previous <seconds>');
  });
});
