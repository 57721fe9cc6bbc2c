// The wire contract of pages that need more than a load: waits, actions, the caller's headers and cookies, a mobile
// or localised view, screenshots. The fields are shared by POST /fetch, /fetch/batch, GET /r/ and the MCP tools;
// checkInteraction() adds what a schema cannot say and turns them into the browser's PageOptions.
import { Type, type Static } from '@sinclair/typebox';
import { FieldError, type FieldIssue } from '../errors.js';
import type { PageAction, PageOptions } from '../fetchers/types.js';

export const MAX_ACTIONS = 20;
export const MAX_WAIT_MS = 30_000;
export const MIN_TIMEOUT_MS = 1_000;
export const MAX_TIMEOUT_MS = 60_000;
const MAX_SELECTOR = 200;
const MAX_HEADERS = 20;

const ACTION_TYPES = ['wait', 'click', 'type', 'press', 'scroll', 'screenshot'] as const;
const IMAGE_FORMATS = ['png', 'jpeg'] as const;

const Enum = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

const Screenshot = Type.Object(
  {
    full_page: Type.Optional(Type.Boolean({ description: 'The whole scrollable page, not only the first screen.' })),
    format: Type.Optional(Enum(IMAGE_FORMATS, 'png (default) or jpeg (smaller).')),
  },
  { additionalProperties: false },
);

/** One step; which fields each type takes is checked by checkInteraction, so a wrong one is named exactly. */
const Action = Type.Object(
  {
    type: Enum(ACTION_TYPES),
    selector: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SELECTOR })),
    milliseconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_MS })),
    text: Type.Optional(Type.String({ maxLength: 10_000 })),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    direction: Type.Optional(Enum(['down', 'up'] as const)),
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Pixels (default: a screen).' })),
    to_end: Type.Optional(
      Type.Boolean({ description: 'Scroll to the end of the page (infinite scroll: with times).' }),
    ),
    times: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
    full_page: Type.Optional(Type.Boolean()),
    format: Type.Optional(Enum(IMAGE_FORMATS)),
  },
  { additionalProperties: false },
);

/** The fields each action type takes beyond `type`, and those it needs. */
const ACTION_FIELDS: Record<PageAction['type'], { takes: readonly string[]; needs: readonly string[] }> = {
  wait: { takes: ['milliseconds', 'selector'], needs: [] },
  click: { takes: ['selector'], needs: ['selector'] },
  type: { takes: ['selector', 'text'], needs: ['selector', 'text'] },
  press: { takes: ['key'], needs: ['key'] },
  scroll: { takes: ['direction', 'amount', 'to_end', 'times'], needs: [] },
  screenshot: { takes: ['full_page', 'format'], needs: [] },
};

export const InteractionFields = {
  wait_for: Type.Optional(
    Type.Unsafe<string | number>({
      type: ['string', 'integer'],
      minLength: 1,
      maxLength: MAX_SELECTOR,
      minimum: 0,
      maximum: MAX_WAIT_MS,
      description:
        'A CSS selector to wait for (present in the page) before the content is read, or a number of milliseconds ' +
        '(at most 30000; digits in a string count as one) to wait. Uses the browser. When the selector never ' +
        'appears the answer is a 504 naming it, never a half-rendered page.',
      examples: ['#results .item', 2000],
    }),
  ),
  timeout: Type.Optional(
    Type.Integer({
      minimum: MIN_TIMEOUT_MS,
      maximum: MAX_TIMEOUT_MS,
      description: 'Milliseconds the whole fetch may take (1000 to 60000); running out is a retryable 504.',
    }),
  ),
  actions: Type.Optional(
    Type.Array(Action, {
      maxItems: MAX_ACTIONS,
      description:
        'Up to 20 steps run in the browser, in order, before the content is read: ' +
        '{type: "wait", milliseconds | selector}, {type: "click", selector}, {type: "type", selector, text}, ' +
        '{type: "press", key} (a key name such as "Enter"), {type: "scroll", direction?, amount?, to_end?, times?}, ' +
        '{type: "screenshot", full_page?, format?}. A step that fails is a 422 action_failed naming its index. ' +
        "The browser's price; the answer is cached under a key that includes the steps.",
      examples: [
        [
          { type: 'click', selector: 'button.load-more' },
          { type: 'wait', milliseconds: 500 },
        ],
      ],
    }),
  ),
  headers: Type.Optional(
    Type.Record(Type.String(), Type.String({ maxLength: 8192 }), {
      maxProperties: MAX_HEADERS,
      description:
        'Request headers for the page: Authorization, Cookie, Accept-Language and custom X- headers only. Sent to ' +
        "the requested URL's origin alone (never after a redirect to another origin, never to other origins' " +
        'subresources, never to the reader provider), never logged, never cached where other callers can read.',
    }),
  ),
  cookies: Type.Optional(
    Type.Record(Type.String(), Type.String({ maxLength: 4096 }), {
      maxProperties: 50,
      description: "Cookies for the requested URL's origin ({name: value}), with the same care as headers.",
    }),
  ),
  mobile: Type.Optional(
    Type.Boolean({ description: "Render as a phone: a phone's screen, touch and user agent. Uses the browser." }),
  ),
  locale: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
      maxLength: 35,
      description: "A BCP 47 language tag (de-DE): sent as Accept-Language, and the browser's locale when it renders.",
      examples: ['de-DE'],
    }),
  ),
  screenshot: Type.Optional(
    Type.Object(Screenshot.properties, {
      additionalProperties: false,
      description:
        'Take a picture of the page once it is read: the answer carries screenshot_url, an image served by ' +
        'Fetchdown for 24 hours to the same caller. Uses the browser; never sent as base64.',
    }),
  ),
};

export type InteractionInput = { [K in keyof typeof InteractionFields]?: Static<(typeof InteractionFields)[K]> };

/** Header names a caller may send: credentials, language and its own X- headers; never hop-by-hop ones or Host. */
export function headerAllowed(name: string): boolean {
  const lower = name.toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(lower)) return false;
  return lower === 'authorization' || lower === 'cookie' || lower === 'accept-language' || lower.startsWith('x-');
}

const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Cookie values may not hold separators or controls (RFC 6265 cookie-octet, without the optional quotes).
const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;

/** Why a CSS selector cannot be used, or null: the extraction's engine, handed in so the contract loads no DOM. */
export type SelectorCheck = (selector: string) => string | null;

function selectorIssue(
  field: FieldIssue['field'],
  selector: string,
  selectorProblem: SelectorCheck,
): FieldIssue | null {
  const problem = selectorProblem(selector);
  return problem === null
    ? null
    : { field, msg: `Invalid CSS selector ${JSON.stringify(selector)}: ${problem}`, type: 'selector_invalid' };
}

function actionIssues(action: Static<typeof Action>, index: number, selectorProblem: SelectorCheck): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const { takes, needs } = ACTION_FIELDS[action.type];
  for (const name of Object.keys(action)) {
    if (name !== 'type' && !takes.includes(name))
      issues.push({
        field: ['actions', index, name],
        msg: `A ${action.type} action takes no ${name}`,
        type: 'extra_forbidden',
      });
  }
  for (const name of needs)
    if (!(name in action)) issues.push({ field: ['actions', index, name], msg: 'Field required', type: 'missing' });
  if (action.type === 'wait' && (action.milliseconds === undefined) === (action.selector === undefined))
    issues.push({
      field: ['actions', index],
      msg: 'A wait action takes either milliseconds or selector',
      type: 'value_error',
    });
  if (action.selector !== undefined) {
    const issue = selectorIssue(['actions', index, 'selector'], action.selector, selectorProblem);
    if (issue) issues.push(issue);
  }
  return issues;
}

/** What a caller's page fields ask of the fetchers, checked: a 422 (FieldError) names every faulty field. */
export function checkInteraction(input: InteractionInput, selectorProblem: SelectorCheck): PageOptions | undefined {
  const issues: FieldIssue[] = [];
  input.actions?.forEach((action, index) => issues.push(...actionIssues(action, index, selectorProblem)));
  // Digits are milliseconds: where a field has one type (MCP clients, a query string) the number comes as a string,
  // and no CSS selector is all digits.
  let waitFor = input.wait_for;
  if (typeof waitFor === 'string' && /^\d+$/.test(waitFor)) waitFor = Number(waitFor);
  if (typeof waitFor === 'number' && waitFor > MAX_WAIT_MS)
    issues.push({
      field: ['wait_for'],
      msg: `Input should be less than or equal to ${MAX_WAIT_MS}`,
      type: 'less_than_equal',
    });
  if (typeof waitFor === 'string') {
    const issue = selectorIssue(['wait_for'], waitFor, selectorProblem);
    if (issue) issues.push(issue);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (!headerAllowed(name))
      issues.push({
        field: ['headers', name],
        msg: `Header ${JSON.stringify(name)} is not allowed: only Authorization, Cookie, Accept-Language and X- headers`,
        type: 'header_not_allowed',
      });
    else if (/[\r\n\0]/.test(value))
      issues.push({ field: ['headers', name], msg: 'A header value may not hold line breaks', type: 'value_error' });
    else headers[name.toLowerCase()] = value;
  }
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(input.cookies ?? {})) {
    if (!COOKIE_NAME.test(name) || !COOKIE_VALUE.test(value))
      issues.push({
        field: ['cookies', name],
        msg:
          'A cookie name must be a token and its value may not hold spaces, quotes, commas, semicolons or ' +
          'backslashes',
        type: 'value_error',
      });
    else cookies.push(`${name}=${value}`);
  }
  if (issues.length > 0) throw new FieldError(issues);
  if (cookies.length > 0) headers.cookie = [headers.cookie, ...cookies].filter(Boolean).join('; ');
  if (input.locale && !headers['accept-language']) headers['accept-language'] = input.locale;
  const options: PageOptions = {
    waitFor,
    timeoutMs: input.timeout,
    actions: input.actions as PageAction[] | undefined,
    headers: Object.keys(headers).length > 0 ? headers : undefined,
    mobile: input.mobile || undefined,
    locale: input.locale,
    screenshot: input.screenshot
      ? { fullPage: input.screenshot.full_page ?? false, format: input.screenshot.format ?? 'png' }
      : undefined,
  };
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  return given.length > 0 ? Object.fromEntries(given) : undefined;
}
