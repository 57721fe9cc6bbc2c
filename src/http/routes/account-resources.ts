// The account's own resources (the account, its keys, its usage, its crawls), served twice with one implementation:
// under /account behind an API key and under /auth behind the session cookie. Only the authenticator in front differs.
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  AccountOut,
  AppIdParams,
  ConnectedApp,
  ConnectedAppList,
  CreatedKey,
  KeyIdParams,
  KeyList,
  KeyOut,
  LabelQuery,
  UsageSummary,
} from '../../contract/account.js';
import { CrawlList } from '../../contract/crawl.js';
import type { AppDeps } from '../app-deps.js';
import type { Account } from '../../operations/accounts.js';
import { responses } from '../responses.js';

export interface ResourceOptions {
  deps: AppDeps;
  base: '/account' | '/auth';
  tags: string[];
  /** Adds the scope's authentication hook (requireApiKey or requireSession). */
  authenticate(scope: FastifyInstance): void;
  /** The account a request was authenticated as. */
  accountOf(request: FastifyRequest): Account;
}

export const accountResourceRoutes: FastifyPluginAsyncTypebox<ResourceOptions> = async (app, options) => {
  const { base, tags, accountOf } = options;
  const ops = options.deps.operations.accounts;
  options.authenticate(app);
  const scope = app.withTypeProvider<TypeBoxTypeProvider>();
  const who = base === '/account' ? 'of the key' : 'signed in';

  scope.get(
    `${base}/keys`,
    { schema: { summary: `The API keys of the account ${who}`, tags, response: responses(KeyList) } },
    async (request) => ops.listKeys(accountOf(request)),
  );

  scope.post(
    `${base}/keys`,
    {
      schema: {
        summary: 'Create an API key',
        description: 'The plaintext key is in this response only.',
        tags,
        querystring: LabelQuery,
        response: responses(CreatedKey, [409]),
      },
    },
    async (request) => ops.createKey(accountOf(request), request.query.label),
  );

  scope.delete(
    `${base}/keys/:key_id`,
    {
      schema: {
        summary: 'Revoke an API key',
        description: 'The key stops working at once. A key of another account is 404.',
        tags,
        params: KeyIdParams,
        response: responses(KeyOut, [404]),
      },
    },
    async (request) => ops.revokeKey(accountOf(request), request.params.key_id),
  );

  scope.get(
    `${base}/apps`,
    {
      schema: {
        summary: 'The connected applications (MCP clients signed in by OAuth)',
        description: 'Connections in force, newest first; what each spends is on the ledger under its client_id.',
        tags,
        response: responses(ConnectedAppList),
      },
    },
    async (request) => ({ apps: await options.deps.operations.oauth.connectedApps(accountOf(request)) }),
  );

  scope.delete(
    `${base}/apps/:app_id`,
    {
      schema: {
        summary: 'Disconnect an application',
        description: 'Its tokens stop working at once. One of another account, or already disconnected, is 404.',
        tags,
        params: AppIdParams,
        response: responses(ConnectedApp, [404]),
      },
    },
    async (request) => options.deps.operations.oauth.disconnect(accountOf(request), request.params.app_id),
  );

  scope.get(
    `${base}/usage`,
    { schema: { summary: 'Usage this calendar month', tags, response: responses(UsageSummary) } },
    async (request) => ops.usage(accountOf(request)),
  );

  scope.get(
    `${base}/crawls`,
    {
      schema: {
        summary: `The latest crawls of the account ${who}`,
        description: 'Up to 20, newest first, with their progress; GET /crawl/{id} has the pages of one.',
        tags,
        response: responses(CrawlList),
      },
    },
    async (request) => options.deps.operations.crawling.listCrawls(accountOf(request)),
  );

  if (base === '/account') {
    scope.get(
      '/account/me',
      { schema: { summary: 'The account of the key', tags, response: responses(AccountOut) } },
      async (request) => ops.describe(accountOf(request)),
    );
  }
};
