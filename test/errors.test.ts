// FieldError: a 422 a service raises naming a field, located by the surface that took the request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FieldError,
  ValidationError,
  inBody,
  inQuery,
  located,
  locating,
  renamed,
  renderError,
  toErrorEntry,
} from '../src/errors.js';

const tooSmall = () =>
  FieldError.of(['max_tokens'], (name) => `${name} 2 cannot hold the next character of this page`, 'too_small');

test('located by its surface: the body, the query string, a batch item under the batch’s own names', () => {
  assert.deepEqual(tooSmall().at(inBody).issues, [
    { loc: ['body', 'max_tokens'], msg: 'max_tokens 2 cannot hold the next character of this page', type: 'too_small' },
  ]);
  const selector = new FieldError([{ field: ['include', 1], msg: 'Invalid CSS selector', type: 'selector_invalid' }]);
  assert.deepEqual(selector.at(inQuery).issues[0]!.loc, ['query', 'include', 1]);
  const item = renamed({ url: ['urls', 3], max_tokens: ['max_tokens_each'] }, inBody);
  assert.deepEqual(FieldError.of(['url'], 'Input should be a valid URL', 'url_parsing').at(item).issues[0]!.loc, [
    'body',
    'urls',
    3,
  ]);
  assert.deepEqual(toErrorEntry(located(tooSmall(), item)), {
    status: 422,
    code: 'validation_error',
    detail: 'max_tokens_each 2 cannot hold the next character of this page',
    loc: ['body', 'max_tokens_each'],
  });
});

test('unlocated it is still a 422, at the field; other errors pass through locating unchanged', async () => {
  assert.deepEqual(renderError(tooSmall()), {
    status: 422,
    body: {
      detail: [
        { loc: ['max_tokens'], msg: 'max_tokens 2 cannot hold the next character of this page', type: 'too_small' },
      ],
    },
  });
  const error = await locating(inBody, () => Promise.reject(tooSmall())).catch((e: unknown) => e);
  assert.ok(error instanceof ValidationError && !(error instanceof FieldError));
  assert.deepEqual(error.issues[0]!.loc, ['body', 'max_tokens']);
  const other = new Error('boom');
  assert.equal(await locating(inBody, () => Promise.reject(other)).catch((e: unknown) => e), other);
});
