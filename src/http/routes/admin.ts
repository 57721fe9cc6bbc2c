// GET /admin/metrics: aggregate metrics for operators, with ADMIN_TOKEN (X-Admin-Token or ?token=); 404 when unset.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import { AdminQuery, Metrics } from '../../contract/account.js';
import { responses } from '../responses.js';

export const adminRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const adminToken = deps.config.ADMIN_TOKEN;

  app.get(
    '/admin/metrics',
    {
      schema: {
        summary: 'Aggregate metrics (admin)',
        description:
          'Accounts, active keys and sessions; for the last 24 hours and this calendar month: ' +
          'requests and credits by operation, fetcher and status, cache-hit ratio, p50/p95 latency ' +
          'and error counts. 404 when the server has no ADMIN_TOKEN.',
        tags: ['admin'],
        security: [{ AdminToken: [] }, { AdminTokenQuery: [] }],
        querystring: AdminQuery,
        response: responses(Metrics, [401, 404, 429]),
      },
    },
    async (request) => {
      if (!adminToken) throw new AppError('not_found', 'no route for GET /admin/metrics');
      const header = request.headers['x-admin-token'];
      const presented = (Array.isArray(header) ? header[0] : header) ?? request.query.token ?? '';
      // The token is the operator's choice and may be guessable: a client past its failures is refused before the
      // comparison, so it cannot learn whether a guess was right.
      await deps.operations.limits.checkOperatorToken(
        'admin_token',
        request.ip,
        presented,
        adminToken,
        () => new AppError('invalid_admin_token', 'send the admin token as X-Admin-Token (or ?token=)'),
      );
      return deps.operations.accounts.metrics();
    },
  );
};
