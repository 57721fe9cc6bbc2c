// Request and response schemas of the account, session and admin routes (validation, serialisation, /openapi.json).
import { Type, type Static } from '@sinclair/typebox';

export const MAX_LABEL_LENGTH = 64;
/** The largest key id either database gives (Postgres `serial`): a larger one would be an error of the database. */
const MAX_KEY_ID = 2_147_483_647;

/** A key's name: shown in lists and on the dashboard; no NUL, which Postgres text cannot hold. */
const Label = (fallback: string, description?: string) =>
  Type.String({
    maxLength: MAX_LABEL_LENGTH,
    pattern: '^[^\\u0000]*$',
    default: fallback,
    ...(description && { description }),
  });

const Email = Type.String({
  format: 'email',
  maxLength: 254,
  description: 'An e-mail address.',
  examples: ['ada@example.com'],
});
const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const SignupRequest = Type.Object(
  {
    email: Email,
    label: Label('default', 'A name for the first key.'),
  },
  { additionalProperties: false },
);
export type SignupRequest = Static<typeof SignupRequest>;

export const LoginRequest = Type.Object({ email: Email }, { additionalProperties: false });

export const SignupResponse = Type.Object({
  api_key: Type.Union([Type.String(), Type.Null()], {
    description: 'The new key, shown this once (also e-mailed); null for an address that already has an account.',
  }),
  key_id: Type.Union([Type.Integer(), Type.Null()]),
  message: Type.String(),
});

export const KeyOut = Type.Object({
  id: Type.Integer({ description: 'Key identifier, used in the path of revoke operations.' }),
  label: Nullable(Type.String()),
  created_at: DateTime,
  last_used_at: Type.Union([DateTime, Type.Null()], {
    description: 'Null when never used; updated at most once a minute.',
  }),
  revoked: Type.Boolean(),
});

export const KeyList = Type.Array(KeyOut);

export const CreatedKey = Type.Object({
  api_key: Type.String({ description: 'The plaintext key, shown this once.' }),
  key_id: Type.Integer(),
  key: KeyOut,
});

export const KeyIdParams = Type.Object({ key_id: Type.Integer({ minimum: 1, maximum: MAX_KEY_ID }) });

export const ConnectedApp = Type.Object({
  id: Type.Integer({ description: 'The connection, used in the path that disconnects it.' }),
  client_id: Type.String({ description: 'The OAuth client: its metadata document URL, or the id it registered.' }),
  client_name: Type.String(),
  scopes: Type.Array(Type.String(), { description: 'What the user allowed: fetch, search.' }),
  connected_at: DateTime,
  last_used_at: Type.Union([DateTime, Type.Null()], { description: 'Null when never used; updated once a minute.' }),
});

export const ConnectedAppList = Type.Object({ apps: Type.Array(ConnectedApp) });
export const AppIdParams = Type.Object({ app_id: Type.Integer({ minimum: 1, maximum: MAX_KEY_ID }) });
export const LabelQuery = Type.Object({ label: Label('additional') });

export const AccountOut = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  plan: Type.String({ description: 'free, starter, pro or scale.' }),
  monthly_credits: Type.Number(),
  balance_credits: Type.Number({
    description: 'Prepaid credits (packs), used after the monthly allowance; never expire.',
  }),
  created_at: DateTime,
});

const Tally = Type.Record(Type.String(), Type.Object({ credits: Type.Number(), requests: Type.Integer() }));

export const UsageSummary = Type.Object({
  period: Type.Object({ month: Type.String({ examples: ['2026-11'] }), start: DateTime, end: DateTime }),
  plan: Type.String(),
  allowance: Type.Object({
    monthly_credits: Type.Number(),
    used_credits: Type.Number(),
    remaining_credits: Type.Number(),
    renews_at: DateTime,
  }),
  balance_credits: Type.Number(),
  credits_used: Type.Number({ description: 'Credits charged this calendar month.' }),
  requests: Type.Integer({ description: 'Metered operations this month (a batch counts once per URL).' }),
  fetches: Type.Integer({ description: 'Pages delivered by /fetch and /fetch/batch.' }),
  cache_hits: Type.Integer(),
  failed: Type.Integer({ description: 'Operations that failed (never charged).' }),
  by_operation: Tally,
  by_fetcher: Tally,
  daily: Type.Array(
    Type.Object({ date: Type.String({ format: 'date' }), credits: Type.Number(), requests: Type.Integer() }),
    {
      description: 'One entry per day of the month so far (UTC).',
    },
  ),
  purchases: Type.Array(
    Type.Object({
      at: DateTime,
      operation: Type.String({ description: 'credit_pack or plan_change.' }),
      item_key: Type.Union([Type.String(), Type.Null()], { description: 'The pack bought, or the plan moved to.' }),
      credits_added: Type.Number({ description: 'Credits added to the prepaid balance (0 for a plan change).' }),
    }),
    {
      description:
        'Credit packs bought and plan changes this month, oldest first; not counted in requests or credits_used.',
    },
  ),
});

export const Message = Type.Object({ message: Type.String() });

export const VerifyQuery = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 256, description: 'The token of the sign-in link.' }),
});
export const VerifyBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

export const SessionOut = Type.Object({ account: AccountOut, message: Type.String() });
export const WhoamiOut = Type.Object({
  account: Type.Union([AccountOut, Type.Null()], { description: 'Null when nobody is signed in.' }),
  message: Type.String(),
});

export const AdminQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 512, description: 'The admin token (or send X-Admin-Token).' })),
});

const Window = Type.Object({
  since: DateTime,
  requests: Type.Integer(),
  anonymous_requests: Type.Integer(),
  credits: Type.Number(),
  errors: Type.Integer(),
  cache_hit_ratio: Type.Union([Type.Number(), Type.Null()], {
    description: 'Cache hits per delivered page; null without pages.',
  }),
  latency_ms: Type.Object({
    p50: Type.Union([Type.Integer(), Type.Null()]),
    p95: Type.Union([Type.Integer(), Type.Null()]),
  }),
  by_operation: Type.Record(Type.String(), Type.Object({ requests: Type.Integer(), credits: Type.Number() })),
  by_fetcher: Type.Record(Type.String(), Type.Object({ requests: Type.Integer(), credits: Type.Number() })),
  by_status: Type.Record(Type.String(), Type.Integer(), { description: "'ok' or the error code, with counts." }),
});

export const Metrics = Type.Object({
  generated_at: DateTime,
  accounts: Type.Object({ total: Type.Integer(), by_plan: Type.Record(Type.String(), Type.Integer()) }),
  active_keys: Type.Integer(),
  active_sessions: Type.Integer(),
  last_24h: Window,
  month: Window,
});
