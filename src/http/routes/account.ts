// /account: sign-up (no credentials), then the account, its keys and its usage with X-Service-Key.
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.js';
import type { Services } from '../../services/index.js';
import { AccountOut, CreatedKey, KeyIdParams, KeyList, KeyOut, LabelQuery, SignupRequest, SignupResponse, UsageSummary } from '../account-schemas.js';
import { accountOf, enforceRateLimit, requireApiKey } from '../auth.js';
import { responses } from '../schemas.js';

export const SIGNUP_MESSAGE =
  'Check your e-mail. A new account gets its API key here and by e-mail; if the address already has an account, we sent a sign-in link instead.';

const TAGS = ['account'];

/** Sign-up and login send mail: limited per client IP per hour. */
export async function limitMailRequests(services: Services, ip: string, reply: Parameters<typeof enforceRateLimit>[1]): Promise<void> {
  await enforceRateLimit(services, reply, {
    key: `mail:${ip}`,
    policy: 'signin',
    requests: services.config.RATE_LIMIT_MAIL_PER_HOUR,
    windowSeconds: 3600,
    who: 'per IP address for sign-up and sign-in e-mails',
  });
}

export const accountRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { accounts } = services;

  app.post(
    '/account/signup',
    {
      schema: {
        summary: 'Create an account and its first API key',
        description:
          'Returns the plaintext key once and e-mails it. For an address that already has an account the answer is the same 200 with api_key null, and a sign-in link is e-mailed instead: the response does not reveal which addresses are registered.',
        tags: TAGS,
        body: SignupRequest,
        response: responses(SignupResponse, [429]),
      },
    },
    async (request, reply) => {
      await limitMailRequests(services, request.ip, reply);
      const result = await accounts.signup(request.body.email, request.body.label);
      return result.created
        ? { api_key: result.apiKey, key_id: result.keyId, message: SIGNUP_MESSAGE }
        : { api_key: null, key_id: null, message: SIGNUP_MESSAGE };
    },
  );

  await app.register(async (instance) => {
    requireApiKey(instance, services);
    const keyed = instance.withTypeProvider<TypeBoxTypeProvider>();

    keyed.get('/account/me', { schema: { summary: 'The account of the key', tags: TAGS, response: responses(AccountOut) } }, async (request) =>
      accounts.describeAccount(accountOf(request)),
    );

    keyed.get('/account/keys', { schema: { summary: "The account's API keys", tags: TAGS, response: responses(KeyList) } }, async (request) =>
      accounts.listKeys(accountOf(request).id),
    );

    keyed.post(
      '/account/keys',
      {
        schema: {
          summary: 'Create another API key',
          description: 'The plaintext key is in this response only.',
          tags: TAGS,
          querystring: LabelQuery,
          response: responses(CreatedKey),
        },
      },
      async (request) => {
        const issued = await accounts.issueKey(accountOf(request).id, request.query.label);
        return { api_key: issued.apiKey, key_id: issued.key.id, key: issued.key };
      },
    );

    keyed.delete(
      '/account/keys/:key_id',
      {
        schema: {
          summary: 'Revoke an API key',
          description: 'The key stops working at once. A key of another account is 404.',
          tags: TAGS,
          params: KeyIdParams,
          response: responses(KeyOut, [404]),
        },
      },
      async (request) => {
        const revoked = await accounts.revokeKey(accountOf(request).id, request.params.key_id);
        if (!revoked.ok) throw new AppError('not_found', `no API key ${request.params.key_id} on this account`);
        return revoked.key;
      },
    );

    keyed.get(
      '/account/usage',
      { schema: { summary: 'Usage this calendar month', tags: TAGS, response: responses(UsageSummary) } },
      async (request) => accounts.summarizeUsage(accountOf(request)),
    );
  });
};
