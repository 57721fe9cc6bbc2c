// Mail goes out after the response, outside the request; its log lines still carry the id of the request that sent it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServerProcess } from '../helpers/server-process.js';

test('the outbox log line of a sign-up e-mail carries the sign-up request id', async (t) => {
  const server = await startServerProcess(t, {});
  const response = await fetch(`${server.base}/account/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'signup-trace-42' },
    body: JSON.stringify({ email: 'trace@example.com' }),
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('x-request-id'), 'signup-trace-42');
  let line: { reqId?: string; msg?: string } | undefined;
  while (!line) {
    line = server
      .output()
      .split('\n')
      .filter((text) => text.includes('mail written to the outbox'))
      .map((text) => JSON.parse(text) as { reqId?: string; msg?: string })[0];
    if (!line) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(line.reqId, 'signup-trace-42');
});
