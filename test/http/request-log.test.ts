// The request log: one line per finished request, its level following the outcome, nothing below the logger's level;
// outcomes about sites and providers at warn without a stack, the server's own faults at error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequestLog } from '../../src/http/request-log.js';
import { startServerProcess } from '../helpers/server-process.js';

function finish(level: string, status: number, error?: Error) {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const log = Object.fromEntries(
    ['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map((name) => [
      name,
      (fields: Record<string, unknown>, message: string) => lines.push({ level: name, fields, message }),
    ]),
  );
  const request = { url: '/fetch' } as unknown as FastifyRequest;
  const reply = { statusCode: status, elapsedTime: 1.5, log: { ...log, level } } as unknown as FastifyReply;
  new RequestLog().incomingRequest();
  new RequestLog().requestCompleted(error, request, reply);
  return lines;
}

test('successful requests are logged at debug: nothing at the default level', () => {
  assert.deepEqual(finish('info', 200), []);
  const [line] = finish('debug', 200);
  assert.equal(line?.level, 'debug');
  assert.equal(line?.message, 'request completed');
  assert.equal(line?.fields.responseTime, 1.5);
  assert.ok(line?.fields.req, 'the one line names the request');
});

test('client errors at info, server errors and failed responses at error', () => {
  assert.equal(finish('info', 429)[0]?.level, 'info');
  assert.equal(finish('info', 502)[0]?.level, 'error');
  const [failed] = finish('info', 200, new Error('socket hang up'));
  assert.equal(failed?.level, 'error');
  assert.equal(failed?.message, 'request errored');
  assert.ok(failed?.fields.err instanceof Error);
  assert.deepEqual(finish('warn', 404), []);
  assert.deepEqual(finish('silent', 500), []);
});

test("other people's dead sites and features not set up are warnings without a stack; our own faults stay errors", async (t) => {
  const server = await startServerProcess(t, {});
  const ask = (path: string, body: object, id: string) =>
    fetch(`${server.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': id },
      body: JSON.stringify(body),
    });
  const dead = await ask('/fetch', { url: 'http://no-such-host.invalid/' }, 'dead-site');
  assert.equal(dead.status, 502);
  const search = await ask('/search', { query: 'tomatoes' }, 'no-search');
  assert.equal(search.status, 503);
  const lineOf = async (id: string) => {
    for (;;) {
      const found = server
        .output()
        .split('\n')
        .filter((text) => text.includes(`"reqId":"${id}"`))
        .map((text) => JSON.parse(text) as { level: number; err?: { code?: string; stack?: string } });
      if (found.length > 0) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  for (const [id, code] of [
    ['dead-site', 'upstream_unreachable'],
    ['no-search', 'search_not_configured'],
  ]) {
    const lines = await lineOf(id!);
    assert.deepEqual(
      lines.map((line) => [line.level, line.err?.code, line.err?.stack]),
      [[40, code, undefined]],
      id,
    );
  }
});
