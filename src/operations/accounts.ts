// The account operations behind /account (API key) and /auth (session cookie) alike: sign-up and sign-in, and the
// account, keys and usage of whoever the surface authenticated. One implementation, two ways of signing in.
import type { Accounts } from '../accounts/index.js';
import { AppError } from '../errors.js';
import type { Account } from '../store/types.js';

export type { ApiKeyCheck } from '../accounts/keys.js';
export { SESSION_TTL_SECONDS, type Redemption } from '../accounts/login.js';
export type { Account, PlanKey } from '../store/types.js';

export const SIGNUP_MESSAGE =
  'Check your e-mail. A new account gets its API key here and by e-mail; if the address ' +
  'already has an account, we sent a sign-in link instead.';

export function createAccountOperations(deps: { accounts: Accounts }) {
  const { accounts } = deps;

  return {
    /** `requestId` is the caller's request, for the log lines of the mail sent after it. */
    async signup(input: { email: string; label: string }, requestId?: string) {
      const result = await accounts.signup(input.email, input.label, requestId);
      return result.created
        ? { api_key: result.apiKey, key_id: result.keyId, message: SIGNUP_MESSAGE }
        : { api_key: null, key_id: null, message: SIGNUP_MESSAGE };
    },
    requestLogin: (email: string, requestId?: string) => accounts.requestLogin(email, requestId),
    checkMagicLink: accounts.checkMagicLink,
    redeemMagicLink: accounts.redeemMagicLink,
    verifySession: accounts.verifySession,
    deleteSession: accounts.deleteSession,
    verifyApiKey: accounts.verifyApiKey,
    plans: accounts.plans,

    describe: (account: Account) => accounts.describeAccount(account),
    listKeys: (account: Account) => accounts.listKeys(account.id),
    async createKey(account: Account, label: string) {
      const issued = await accounts.addKey(account.id, label);
      if (!issued.ok)
        throw new AppError(
          'too_many_keys',
          `this account already has ${issued.max} active API keys, the most it may hold; revoke one it no longer ` +
            'needs (DELETE /account/keys/{key_id}) and create the new one then',
          { extra: { max_keys: issued.max } },
        );
      return { api_key: issued.apiKey, key_id: issued.key.id, key: issued.key };
    },
    async revokeKey(account: Account, keyId: number) {
      const revoked = await accounts.revokeKey(account.id, keyId);
      if (!revoked.ok) throw new AppError('not_found', `no API key ${keyId} on this account`);
      return revoked.key;
    },
    usage: (account: Account) => accounts.summarizeUsage(account),
    metrics: () => accounts.collectMetrics(),
  };
}

export type AccountOperations = ReturnType<typeof createAccountOperations>;
export { API_KEY_PREFIX } from '../accounts/secrets.js';
