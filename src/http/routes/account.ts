// /account: sign-up (no credentials), then the account, its keys and its usage with X-Service-Key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SignupRequest, SignupResponse } from '../../contract/account.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, enforceRateLimit, requireApiKey } from '../auth.js';
import { responses } from '../responses.js';
import { accountResourceRoutes } from './account-resources.js';

const TAGS = ['account'];

/** Sign-up and login send mail: limited per client IP per hour. */
export async function limitMailRequests(
  deps: AppDeps,
  ip: string,
  reply: Parameters<typeof enforceRateLimit>[1],
): Promise<void> {
  await enforceRateLimit(deps, reply, deps.operations.limits.mail(ip));
}

export const accountRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/account/signup',
    {
      schema: {
        summary: 'Create an account and its first API key',
        description:
          'Returns the plaintext key once and e-mails it. For an address that already has an account ' +
          'the answer is the same 200 with api_key null, and a sign-in link is e-mailed instead: the ' +
          'status and message do not tell which addresses are registered, though the key in the body ' +
          'does.',
        tags: TAGS,
        body: SignupRequest,
        response: responses(SignupResponse, [429]),
      },
    },
    async (request, reply) => {
      await limitMailRequests(deps, request.ip, reply);
      return deps.operations.accounts.signup(request.body, request.id);
    },
  );

  await app.register(accountResourceRoutes, {
    deps,
    base: '/account',
    tags: TAGS,
    authenticate: (scope) => requireApiKey(scope, deps),
    accountOf,
  });
};
