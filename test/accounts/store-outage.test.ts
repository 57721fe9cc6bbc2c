// The account database going away and coming back, seen through a TCP proxy in front of Postgres that the test cuts:
// routes that need the database answer 503 store_unavailable (never a 500) while it is gone, /ready names it, the
// cut connections do not end the process, and requests succeed again once it is back.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import { DATABASES } from '../helpers/databases.js';
import { buildTestApp } from '../helpers/test-app.js';

/** Forwards 127.0.0.1:<port> to `target`; cut() drops every connection and stops listening, resume() listens again. */
async function startCuttableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  };
  await listen();
  return {
    port,
    async cut() {
      await new Promise((resolve) => {
        server.close(resolve);
        for (const socket of sockets) socket.destroy();
      });
    },
    resume: listen,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const postgres = DATABASES.find((d) => d.name === 'postgres')!;

describe('account store outage', () => {
  test('while the database is gone: 503 store_unavailable on sign-up and keyed routes, /ready names it; then back', async (t) => {
    const env = await postgres.env(t);
    if (typeof env === 'string') return t.skip(env);
    const proxy = await startCuttableProxy(new URL(env.DATABASE_URL!));
    const target = new URL(env.DATABASE_URL!);
    t.after(() => proxy.close());
    target.hostname = '127.0.0.1';
    target.port = String(proxy.port);
    const api = await buildTestApp(t, { DATABASE_URL: target.href });
    const { apiKey } = await signUp(api);
    // Requests at once leave several idle connections in the pool, each cut below.
    await Promise.all(Array.from({ length: 4 }, () => api.request('GET', '/account/me', undefined, withKey(apiKey))));

    await proxy.cut();
    const signup = await api.post('/account/signup', { email: `outage-${process.pid}-${Date.now()}@example.com` });
    assert.equal(signup.status, 503, signup.text);
    assert.equal(signup.body.code, 'store_unavailable');
    assert.match(signup.body.detail, /account store is unavailable/);
    assert.equal(signup.headers.get('retry-after'), '5');
    for (let i = 0; i < 4; i++) {
      const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
      assert.equal(me.status, 503, me.text);
      assert.equal(me.body.code, 'store_unavailable');
    }
    const ready = await api.get('/ready');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.checks.database.ok, false);

    await proxy.resume();
    assert.equal((await api.request('GET', '/account/me', undefined, withKey(apiKey))).status, 200);
    assert.equal((await api.get('/ready')).status, 200);
  });
});
