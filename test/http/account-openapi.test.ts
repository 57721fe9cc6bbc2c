// /openapi.json covers the account, session and admin routes with summaries, and names the security of every route.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/test-app.js';

test('every account, session and admin route is documented with its security', async (t) => {
  const api = await buildTestApp(t);
  const doc = (await api.get('/openapi.json')).body;
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
    'AdminToken',
    'AdminTokenQuery',
    'OAuth',
    'ServiceKey',
    'SessionCookie',
  ]);
  assert.deepEqual(doc.components.securitySchemes.SessionCookie, {
    type: 'apiKey',
    in: 'cookie',
    name: 'service_session',
  });
  const routes: [string, string, unknown[] | undefined][] = [
    ['/account/signup', 'post', undefined],
    ['/account/me', 'get', [{ ServiceKey: [] }]],
    ['/account/keys', 'get', [{ ServiceKey: [] }]],
    ['/account/keys', 'post', [{ ServiceKey: [] }]],
    ['/account/keys/{key_id}', 'delete', [{ ServiceKey: [] }]],
    ['/account/usage', 'get', [{ ServiceKey: [] }]],
    ['/account/crawls', 'get', [{ ServiceKey: [] }]],
    ['/auth/login', 'post', undefined],
    ['/auth/verify', 'get', undefined],
    ['/auth/verify', 'post', undefined],
    ['/auth/logout', 'post', [{ SessionCookie: [] }, {}]],
    ['/auth/whoami', 'get', [{ SessionCookie: [] }, {}]],
    ['/auth/keys', 'get', [{ SessionCookie: [] }]],
    ['/auth/keys', 'post', [{ SessionCookie: [] }]],
    ['/auth/keys/{key_id}', 'delete', [{ SessionCookie: [] }]],
    ['/auth/usage', 'get', [{ SessionCookie: [] }]],
    ['/auth/crawls', 'get', [{ SessionCookie: [] }]],
    ['/admin/metrics', 'get', [{ AdminToken: [] }, { AdminTokenQuery: [] }]],
  ];
  for (const [path, method, security] of routes) {
    const op = doc.paths[path]?.[method];
    assert.ok(op, `${method} ${path} documented`);
    assert.ok(op.summary, `${method} ${path} has a summary`);
    assert.deepEqual(op.security, security, `${method} ${path} security`);
  }
  assert.equal(
    doc.paths['/account/signup'].post.requestBody.content['application/json'].schema.properties.label.maxLength,
    64,
  );
  assert.deepEqual(
    Object.keys(
      doc.paths['/account/keys'].get.responses['200'].content['application/json'].schema.items.properties,
    ).sort(),
    ['created_at', 'id', 'label', 'last_used_at', 'revoked'],
  );
  assert.ok(doc.paths['/account/me'].get.responses['401']);
  assert.ok(doc.paths['/auth/keys'].post.responses['403']);
  assert.ok(doc.paths['/auth/login'].post.responses['202']);

  // The metered routes: a key or, with ANONYMOUS_ACCESS, nothing; and the 401/402/429 they can answer.
  for (const [path, method] of [
    ['/fetch', 'post'],
    ['/fetch/batch', 'post'],
    ['/estimate', 'get'],
    ['/cache', 'get'],
    ['/cache', 'delete'],
    ['/search', 'post'],
  ]) {
    const op = doc.paths[path!]?.[method!];
    assert.ok(op, `${method} ${path}`);
    assert.deepEqual(op.security, [{ ServiceKey: [] }, {}], `${method} ${path} security`);
    for (const status of ['401', '402', '429'])
      assert.ok(op.responses[status], `${method} ${path} documents ${status}`);
  }
  // POST /mcp: a key or an OAuth token, never nothing (an MCP client signs in when told to).
  assert.deepEqual(doc.paths['/mcp'].post.security, [{ ServiceKey: [] }, { OAuth: [] }]);
  assert.equal(doc.components.securitySchemes.OAuth.type, 'oauth2');
});

test('without anonymous access the metered routes require the key', async (t) => {
  const api = await buildTestApp(t, { ANONYMOUS_ACCESS: '0' });
  const doc = (await api.get('/openapi.json')).body;
  assert.deepEqual(doc.paths['/fetch'].post.security, [{ ServiceKey: [] }]);
});
