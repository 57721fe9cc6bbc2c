// A Stripe stand-in on 127.0.0.1 speaking Stripe's wire format (form-encoded requests with bracketed keys, JSON
// objects with object/id/livemode, Stripe's error shape, idempotency keys), used through the real `stripe` SDK. It
// records what it was asked, serves a checkout page a person (or a browser test) can pay, and delivers webhooks
// signed as Stripe signs them: Stripe-Signature `t=<unix time>,v1=<HMAC-SHA256 of "<t>.<body>">`.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PLANS } from '../../src/pricing.js';

type Obj = Record<string, any>;

export interface RecordedRequest {
  method: string;
  path: string;
  params: Obj;
  idempotencyKey: string | undefined;
}

export interface Delivery {
  event: Obj;
  status: number;
  body: any;
}

export interface DeliverOptions {
  /** Signing time (unix seconds); now by default. */
  timestamp?: number;
  /** A signing secret other than the stand-in's (a forged signature). */
  secret?: string;
  /** Send no Stripe-Signature header at all. */
  unsigned?: boolean;
  /** Another endpoint than the one forwardTo set (a second server process). */
  url?: string;
}

export interface StripeStandin {
  apiBase: string;
  secretKey: string;
  webhookSecret: string;
  requests: RecordedRequest[];
  deliveries: Delivery[];
  customers: Map<string, Obj>;
  sessions: Map<string, Obj>;
  subscriptions: Map<string, Obj>;
  prices: Map<string, Obj>;
  products: Map<string, Obj>;
  /** Where webhooks go, as `stripe listen --forward-to` sets it. */
  forwardTo(url: string): void;
  /** Prices with the lookup keys fetchdown_starter… as `fetchdown stripe-setup` makes them. */
  seedPlanPrices(): void;
  /** The checkout page's Pay button: marks the session paid and delivers its events; returns the deliveries. */
  pay(sessionId: string, method?: 'card' | 'bank_transfer'): Promise<Delivery[]>;
  /** Pays like pay() but holds the events back, so a test can deliver them in any order. */
  complete(sessionId: string, method?: 'card' | 'bank_transfer'): Obj[];
  /** Marks a session paid by card without delivering anything; returns its checkout.session.completed event. */
  paidEvent(sessionId: string): Obj;
  /** A bank transfer that has cleared: checkout.session.async_payment_succeeded. */
  settleAsync(sessionId: string): Promise<Delivery>;
  /** Changes a subscription as the portal would and returns its new state (no event is sent). */
  changeSubscription(id: string, change: { lookupKey?: string; status?: string }): Obj;
  /** An event as Stripe builds it; `created` in unix seconds (now by default). */
  event(type: string, object: Obj, created?: number): Obj;
  deliver(event: Obj, options?: DeliverOptions): Promise<Delivery>;
  /** The next request to this method and path answers this Stripe error. */
  failNext(method: string, path: string, status: number, error: { type: string; message: string; code?: string }): void;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('base64url')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Stripe's form encoding back into objects: `line_items[0][price_data][currency]=usd` → nested objects and arrays. */
export function parseStripeForm(text: string): Obj {
  const root: Obj = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/[[\]]+/).filter((segment) => segment !== '');
    let node: Obj = root;
    path.forEach((segment, i) => {
      if (i === path.length - 1) node[segment] = value;
      else node = node[segment] ??= /^\d+$/.test(path[i + 1]!) ? [] : {};
    });
  }
  return root;
}

export function signPayload(payload: string, secret: string, timestamp: number): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; code?: string; param?: string },
  ) {
    super(body.message);
  }
}

const missing = (kind: string, value: string) =>
  new StripeApiError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${value}'`,
    param: 'id',
  });

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** The hosted checkout page: a form whose Pay button posts back here, as a browser test submits it. */
function payPage(session: Obj): string {
  const amount = `$${(session.amount_total / 100).toFixed(2)}`;
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<title>Pay ${amount} - Stripe stand-in</title></head><body><main><h1>Pay ${amount}</h1>`,
    `<p>Test checkout for ${session.metadata.item_key ?? 'an item'} (${session.mode}).</p>`,
    `<form method="post" action="/pay/${session.id}"><input type="hidden" name="method" value="card">`,
    '<button type="submit">Pay</button></form>',
    `<p><a href="${session.cancel_url}">Cancel</a></p></main></body></html>`,
  ].join('\n');
}

const list = (url: string, data: Obj[]) => ({ object: 'list', data, has_more: false, url });

export async function startStripeStandin(): Promise<StripeStandin> {
  const secretKey = `sk_test_${randomBytes(16).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(24).toString('base64url')}`;
  const requests: RecordedRequest[] = [];
  const deliveries: Delivery[] = [];
  const customers = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const prices = new Map<string, Obj>();
  const products = new Map<string, Obj>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const failures = new Map<string, StripeApiError>();
  let webhookUrl: string | undefined;
  let apiBase = '';

  function createPrice(params: Obj): Obj {
    if (!products.has(params.product)) throw missing('product', params.product);
    if (params.lookup_key) {
      const holder = [...prices.values()].find((p) => p.lookup_key === params.lookup_key);
      if (holder && params.transfer_lookup_key !== 'true') {
        throw new StripeApiError(400, {
          type: 'invalid_request_error',
          message: `A price (\`${holder.id}\`) already uses that lookup key.`,
          param: 'lookup_key',
        });
      }
      if (holder) holder.lookup_key = null;
    }
    const price = {
      id: id('price'),
      object: 'price',
      livemode: false,
      active: true,
      created: nowSeconds(),
      currency: params.currency,
      unit_amount: Number(params.unit_amount),
      product: params.product,
      lookup_key: params.lookup_key ?? null,
      nickname: params.nickname ?? null,
      recurring: params.recurring ? { interval: params.recurring.interval, interval_count: 1 } : null,
      type: params.recurring ? 'recurring' : 'one_time',
      metadata: params.metadata ?? {},
    };
    prices.set(price.id, price);
    return price;
  }

  function createProduct(params: Obj): Obj {
    const productId = params.id ?? id('prod');
    if (products.has(productId)) {
      throw new StripeApiError(400, {
        type: 'invalid_request_error',
        code: 'resource_already_exists',
        message: `Product already exists.`,
        param: 'id',
      });
    }
    const product = {
      id: productId,
      object: 'product',
      livemode: false,
      active: true,
      name: params.name,
      description: params.description ?? null,
      metadata: params.metadata ?? {},
      created: nowSeconds(),
    };
    products.set(productId, product);
    return product;
  }

  function createSession(params: Obj): Obj {
    if (!customers.has(params.customer)) throw missing('customer', params.customer);
    const item = params.line_items?.[0];
    if (!item)
      throw new StripeApiError(400, {
        type: 'invalid_request_error',
        message: 'line_items is required',
        param: 'line_items',
      });
    let amount: number;
    if (item.price) {
      const price = prices.get(item.price);
      if (!price) throw missing('price', item.price);
      if ((params.mode === 'subscription') !== (price.type === 'recurring')) {
        throw new StripeApiError(400, {
          type: 'invalid_request_error',
          message: `The price ${price.id} does not suit mode ${params.mode}`,
          param: 'line_items[0][price]',
        });
      }
      amount = price.unit_amount;
    } else amount = Number(item.price_data.unit_amount);
    const sessionId = id('cs');
    const session = {
      id: sessionId,
      object: 'checkout.session',
      livemode: false,
      created: nowSeconds(),
      mode: params.mode,
      status: 'open',
      payment_status: 'unpaid',
      customer: params.customer,
      client_reference_id: params.client_reference_id ?? null,
      metadata: params.metadata ?? {},
      amount_total: amount * Number(item.quantity ?? 1),
      currency: 'usd',
      success_url: params.success_url,
      cancel_url: params.cancel_url,
      url: `${apiBase}/pay/${sessionId}`,
      subscription: null as string | null,
      payment_intent: null as string | null,
    };
    sessions.set(sessionId, {
      ...session,
      _line_items: params.line_items,
      _subscription_data: params.subscription_data ?? {},
    });
    return session;
  }

  const publicView = (stored: Obj) => Object.fromEntries(Object.entries(stored).filter(([k]) => !k.startsWith('_')));

  function route(method: string, path: string, params: Obj): Obj {
    let match: RegExpMatchArray | null;
    if (method === 'POST' && path === '/v1/customers') {
      const customer = {
        id: id('cus'),
        object: 'customer',
        livemode: false,
        created: nowSeconds(),
        email: params.email ?? null,
        metadata: params.metadata ?? {},
      };
      customers.set(customer.id, customer);
      return customer;
    }
    if (method === 'GET' && (match = path.match(/^\/v1\/customers\/([^/]+)$/)))
      return (
        customers.get(match[1]!) ??
        (() => {
          throw missing('customer', match![1]!);
        })()
      );
    if (method === 'POST' && path === '/v1/checkout/sessions') return createSession(params);
    if (method === 'GET' && (match = path.match(/^\/v1\/checkout\/sessions\/([^/]+)$/))) {
      const session = sessions.get(match[1]!);
      if (!session) throw missing('checkout.session', match[1]!);
      return publicView(session);
    }
    if (method === 'GET' && path === '/v1/prices') {
      const keys: string[] | undefined = params.lookup_keys;
      const found = [...prices.values()].filter(
        (p) =>
          (keys ? keys.includes(p.lookup_key) : true) &&
          (params.active === undefined || String(p.active) === params.active),
      );
      return list('/v1/prices', found.slice(0, Number(params.limit ?? 10)));
    }
    if (method === 'POST' && path === '/v1/prices') return createPrice(params);
    if (method === 'POST' && path === '/v1/products') return createProduct(params);
    if (method === 'GET' && (match = path.match(/^\/v1\/products\/([^/]+)$/)))
      return (
        products.get(match[1]!) ??
        (() => {
          throw missing('product', match![1]!);
        })()
      );
    if (method === 'GET' && (match = path.match(/^\/v1\/subscriptions\/([^/]+)$/)))
      return (
        subscriptions.get(match[1]!) ??
        (() => {
          throw missing('subscription', match![1]!);
        })()
      );
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!customers.has(params.customer)) throw missing('customer', params.customer);
      const portalId = id('bps');
      return {
        id: portalId,
        object: 'billing_portal.session',
        livemode: false,
        created: nowSeconds(),
        customer: params.customer,
        return_url: params.return_url ?? null,
        url: `${apiBase}/portal/${portalId}`,
      };
    }
    throw new StripeApiError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}).`,
    });
  }

  function event(type: string, object: Obj, created = nowSeconds()): Obj {
    return {
      id: id('evt'),
      object: 'event',
      api_version: '2026-10-28.endive',
      created,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object: structuredClone(object) },
    };
  }

  async function deliver(evt: Obj, options: DeliverOptions = {}): Promise<Delivery> {
    const target = options.url ?? webhookUrl;
    if (!target) throw new Error('the stand-in has nowhere to deliver webhooks: call forwardTo(url) first');
    const payload = JSON.stringify(evt, null, 2);
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    };
    if (!options.unsigned)
      headers['stripe-signature'] = signPayload(
        payload,
        options.secret ?? webhookSecret,
        options.timestamp ?? nowSeconds(),
      );
    const response = await fetch(target, { method: 'POST', headers, body: payload });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    const delivery = { event: evt, status: response.status, body };
    deliveries.push(delivery);
    return delivery;
  }

  function priceByLookupKey(lookupKey: string): Obj {
    const price = [...prices.values()].find((p) => p.lookup_key === lookupKey);
    if (!price) throw new Error(`no price with lookup key ${lookupKey}`);
    return price;
  }

  function complete(sessionId: string, method: 'card' | 'bank_transfer' = 'card'): Obj[] {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no checkout session ${sessionId}`);
    if (session.status !== 'open') throw new Error(`checkout session ${sessionId} is ${session.status}`);
    session.status = 'complete';
    session.payment_status = method === 'card' ? 'paid' : 'unpaid';
    const events: Obj[] = [];
    if (session.mode === 'subscription') {
      const price = prices.get(session._line_items[0].price)!;
      const subscription = {
        id: id('sub'),
        object: 'subscription',
        livemode: false,
        created: nowSeconds(),
        customer: session.customer,
        status: 'active',
        cancel_at_period_end: false,
        metadata: session._subscription_data.metadata ?? {},
        items: list('/v1/subscription_items', [{ id: id('si'), object: 'subscription_item', price, quantity: 1 }]),
      };
      subscriptions.set(subscription.id, subscription);
      session.subscription = subscription.id;
      events.push(event('customer.subscription.created', subscription));
    } else session.payment_intent = id('pi');
    events.push(event('checkout.session.completed', publicView(session)));
    return events;
  }

  async function pay(sessionId: string, method: 'card' | 'bank_transfer' = 'card'): Promise<Delivery[]> {
    const sent: Delivery[] = [];
    for (const evt of complete(sessionId, method)) sent.push(await deliver(evt));
    return sent;
  }

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const text = await readBody(request);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), ...headers });
      response.end(JSON.stringify(body));
    };
    const html = (status: number, page: string) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page);
    };
    let match: RegExpMatchArray | null;
    if ((match = url.pathname.match(/^\/pay\/([^/]+)$/))) {
      const session = sessions.get(match[1]!);
      if (!session) return html(404, '<!doctype html><title>Not found</title><p>No such checkout session.</p>');
      if (request.method === 'GET') {
        const amount = `$${(session.amount_total / 100).toFixed(2)}`;
        return html(200, payPage(session));
      }
      const method = parseStripeForm(text).method === 'bank_transfer' ? 'bank_transfer' : 'card';
      try {
        await pay(session.id, method);
      } catch (error) {
        return html(409, `<!doctype html><title>Not payable</title><p>${String(error)}</p>`);
      }
      response.writeHead(303, { location: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', session.id) });
      return response.end();
    }
    if (url.pathname.startsWith('/portal/'))
      return html(200, '<!doctype html><title>Billing portal - Stripe stand-in</title><h1>Billing portal</h1>');

    const method = request.method ?? 'GET';
    const params = method === 'GET' ? parseStripeForm(url.search.slice(1)) : parseStripeForm(text);
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    requests.push({ method, path: url.pathname, params, idempotencyKey });
    if (request.headers.authorization !== `Bearer ${secretKey}`) {
      return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
    }
    const failure = failures.get(`${method} ${url.pathname}`);
    if (failure) {
      failures.delete(`${method} ${url.pathname}`);
      return send(failure.status, { error: failure.body });
    }
    const replay = idempotencyKey && method === 'POST' ? replays.get(idempotencyKey) : undefined;
    if (replay) return send(replay.status, replay.body, { 'idempotent-replayed': 'true' });
    let status = 200;
    let body: unknown;
    try {
      body = route(method, url.pathname, params);
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      status = error.status;
      body = { error: error.body };
    }
    if (idempotencyKey && method === 'POST') replays.set(idempotencyKey, { status, body });
    send(status, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiBase,
    secretKey,
    webhookSecret,
    requests,
    deliveries,
    customers,
    sessions,
    subscriptions,
    prices,
    products,
    forwardTo(url) {
      webhookUrl = url;
    },
    seedPlanPrices() {
      for (const plan of PLANS.filter((p) => p.key !== 'free')) {
        if ([...prices.values()].some((p) => p.lookup_key === `fetchdown_${plan.key}`)) continue;
        const product =
          products.get(`fetchdown_${plan.key}`) ??
          createProduct({ id: `fetchdown_${plan.key}`, name: `Fetchdown ${plan.key}` });
        createPrice({
          product: product.id,
          currency: 'usd',
          unit_amount: String(plan.priceCentsPerMonth),
          recurring: { interval: 'month' },
          lookup_key: `fetchdown_${plan.key}`,
        });
      }
    },
    pay,
    complete,
    paidEvent(sessionId) {
      const session = sessions.get(sessionId)!;
      Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: id('pi') });
      return event('checkout.session.completed', publicView(session));
    },
    async settleAsync(sessionId) {
      const session = sessions.get(sessionId)!;
      session.payment_status = 'paid';
      return deliver(event('checkout.session.async_payment_succeeded', publicView(session)));
    },
    changeSubscription(subscriptionId, change) {
      const subscription = subscriptions.get(subscriptionId);
      if (!subscription) throw new Error(`no subscription ${subscriptionId}`);
      if (change.lookupKey) subscription.items.data[0].price = priceByLookupKey(change.lookupKey);
      if (change.status) subscription.status = change.status;
      return structuredClone(subscription);
    },
    event,
    deliver,
    failNext(method, path, status, error) {
      failures.set(`${method} ${path}`, new StripeApiError(status, error));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the SDK keeps connections alive
      }),
  };
}
