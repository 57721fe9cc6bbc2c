// POST /fetch `links` and `images`: each style's exact output, reading in parts with references, cursors, validation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countTokens } from '../../src/tokens/count.js';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();

const CODE = '```md\n[inside](/fence)\n```';

/** The /links page in each style; `o` is the fixture site's origin, which relative links resolve against. */
const expected = (o: string) => ({
  inline: `# Link Styles

Start with the [soil guide](${o}/guides/soil "Soil basics"), then the [watering guide](${o}/guides/water).

The [soil guide](${o}/guides/soil) again, [the plant](https://example.org/wiki/Tomato_(plant)) and [a [bracketed] name](${o}/names).

Code keeps \`[not a link](https://example.org/code)\` as written, and <https://example.org/auto> stays.

${CODE}

[![Thumbnail](https://img.example/thumb.jpg)](${o}/gallery)

![A plant](https://img.example/plant.jpg)

- [One](${o}/one)
- ![icon](https://img.example/icon.png)
- Plain item`,
  reference: `# Link Styles

Start with the [soil guide][1], then the [watering guide][2].

The [soil guide][1] again, [the plant][3] and [a [bracketed] name][4].

Code keeps \`[not a link](https://example.org/code)\` as written, and <https://example.org/auto> stays.

${CODE}

[![Thumbnail](https://img.example/thumb.jpg)][5]

![A plant](https://img.example/plant.jpg)

- [One][6]
- ![icon](https://img.example/icon.png)
- Plain item

[1]: ${o}/guides/soil
[2]: ${o}/guides/water
[3]: https://example.org/wiki/Tomato_(plant)
[4]: ${o}/names
[5]: ${o}/gallery
[6]: ${o}/one`,
  none: `# Link Styles

Start with the soil guide, then the watering guide.

The soil guide again, the plant and a [bracketed] name.

Code keeps \`[not a link](https://example.org/code)\` as written, and https://example.org/auto stays.

${CODE}

![Thumbnail](https://img.example/thumb.jpg)

![A plant](https://img.example/plant.jpg)

- One
- ![icon](https://img.example/icon.png)
- Plain item`,
  inlineNoImages: `# Link Styles

Start with the [soil guide](${o}/guides/soil "Soil basics"), then the [watering guide](${o}/guides/water).

The [soil guide](${o}/guides/soil) again, [the plant](https://example.org/wiki/Tomato_(plant)) and [a [bracketed] name](${o}/names).

Code keeps \`[not a link](https://example.org/code)\` as written, and <https://example.org/auto> stays.

${CODE}

- [One](${o}/one)
- Plain item`,
  referenceNoImages: `# Link Styles

Start with the [soil guide][1], then the [watering guide][2].

The [soil guide][1] again, [the plant][3] and [a [bracketed] name][4].

Code keeps \`[not a link](https://example.org/code)\` as written, and <https://example.org/auto> stays.

${CODE}

- [One][5]
- Plain item

[1]: ${o}/guides/soil
[2]: ${o}/guides/water
[3]: https://example.org/wiki/Tomato_(plant)
[4]: ${o}/names
[5]: ${o}/one`,
  noneNoImages: `# Link Styles

Start with the soil guide, then the watering guide.

The soil guide again, the plant and a [bracketed] name.

Code keeps \`[not a link](https://example.org/code)\` as written, and https://example.org/auto stays.

${CODE}

- One
- Plain item`,
});

async function fetchLinks(body: Record<string, unknown>) {
  const res = await api.post('/fetch', { url: site.url('/links'), ...body });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.metadata.token_count, countTokens(res.body.markdown));
  assert.equal(res.body.metadata.total_tokens, res.body.metadata.token_count);
  return res.body;
}

describe('links and images: each style', () => {
  const cases: [string, Record<string, string>, keyof ReturnType<typeof expected>][] = [
    ['the defaults return the stored Markdown', {}, 'inline'],
    ['links inline and images keep are the defaults', { links: 'inline', images: 'keep' }, 'inline'],
    ['links reference: one number per distinct URL, in order, listed at the end', { links: 'reference' }, 'reference'],
    ['links none: link text stays, URLs go; images and code stay', { links: 'none' }, 'none'],
    ['images none: images and linked images go, with their lines and list items', { images: 'none' }, 'inlineNoImages'],
    ['links reference with images none', { links: 'reference', images: 'none' }, 'referenceNoImages'],
    ['links none with images none', { links: 'none', images: 'none' }, 'noneNoImages'],
  ];
  for (const [name, options, key] of cases) {
    test(name, async () => {
      const body = await fetchLinks(options);
      assert.equal(body.markdown, expected(site.origin)[key]);
    });
  }

  test('each style is rendered from the one cached copy', async () => {
    const fetchesBefore = site.hits('/links');
    const body = await fetchLinks({ links: 'none', images: 'none', use_cache: true });
    assert.equal(body.cache.hit, true);
    assert.equal(site.hits('/links'), fetchesBefore);
  });

  test('format text ignores links and images', async () => {
    const plain = await fetchLinks({ format: 'text' });
    const styled = await fetchLinks({ format: 'text', links: 'reference', images: 'none' });
    assert.equal(styled.markdown, plain.markdown);
  });

  test('format json builds its blocks from the restyled Markdown', async () => {
    const reference = await fetchLinks({ format: 'json', links: 'reference', images: 'none' });
    assert.equal(reference.markdown, expected(site.origin).referenceNoImages);
    const links = reference.document.links.map((l: { text: string; url: string }) => `${l.text} ${l.url}`);
    assert.deepEqual(links, [
      `soil guide ${site.url('/guides/soil')}`,
      `watering guide ${site.url('/guides/water')}`,
      'the plant https://example.org/wiki/Tomato_(plant)',
      `a [bracketed] name ${site.url('/names')}`,
      'https://example.org/auto https://example.org/auto',
      `One ${site.url('/one')}`,
    ]);
    assert.ok(!reference.document.blocks.some((b: { type: string }) => b.type === 'image'));
    const none = await fetchLinks({ format: 'json', links: 'none' });
    assert.deepEqual(
      none.document.links.map((l: { url: string }) => l.url),
      ['https://example.org/auto'],
      'only the autolink, whose text is its URL',
    );
    const images = none.document.blocks.filter((b: { type: string }) => b.type === 'image');
    assert.deepEqual(
      images.map((b: { alt: string }) => b.alt),
      ['Thumbnail', 'A plant'],
    );
  });

  test('an extracted HTML page loses every link and image', async () => {
    const res = await api.post('/fetch', { url: site.url('/article'), links: 'none', images: 'none' });
    assert.equal(res.status, 200);
    assert.match(res.body.markdown, /See the watering guide for details\./);
    assert.ok(!res.body.markdown.includes(']('), 'no inline links or images');
    assert.ok(!/\n\n\n/.test(res.body.markdown), 'no runs of blank lines');
  });

  test('POST /fetch/batch applies them to every URL', async () => {
    const res = await api.post('/fetch/batch', {
      urls: [site.url('/links'), site.url('/links')],
      links: 'reference',
      images: 'none',
    });
    assert.equal(res.status, 200);
    for (const result of res.body.results) assert.equal(result.markdown, expected(site.origin).referenceNoImages);
  });
});

const DEFINITION = /^\[(\d+)\]: (\S+)$/gm;
const LABEL = /\]\[(\d+)\]/g;

describe('links reference: reading in parts', () => {
  test('each part lists the references it uses, with the numbers of the whole page, within the budget', async () => {
    const whole = await api.post('/fetch', { url: site.url('/links-long'), links: 'reference' });
    assert.equal(whole.status, 200);
    const total = whole.body.metadata.total_tokens;
    assert.equal(whole.body.metadata.token_count, total);
    const numbers = new Map([...whole.body.markdown.matchAll(DEFINITION)].map((m) => [m[1], m[2]]));
    assert.equal(numbers.size, 32, 'sections 1 to 31 and the index, each once');
    assert.equal(numbers.get('2'), site.url('/index'));
    const wholeBody = whole.body.markdown.slice(0, whole.body.markdown.indexOf('\n\n[1]: '));

    const bodies: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 60; i++) {
      const res = await api.post('/fetch', {
        url: site.url('/links-long'),
        links: 'reference',
        max_tokens: 90,
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(res.status, 200, res.text);
      const { markdown, metadata } = res.body;
      assert.ok(metadata.token_count <= 90, `part ${i}: ${metadata.token_count} tokens`);
      assert.equal(metadata.token_count, countTokens(markdown));
      assert.equal(metadata.total_tokens, total);
      const used = new Set([...markdown.matchAll(LABEL)].map((m: RegExpMatchArray) => m[1]));
      const defined = [...markdown.matchAll(DEFINITION)];
      assert.deepEqual(
        defined.map((m) => m[1]),
        [...used].sort((a, b) => Number(a) - Number(b)),
        `part ${i} defines exactly what it uses`,
      );
      for (const [, n, url] of defined) assert.equal(url, numbers.get(n), `part ${i}: [${n}] as in the whole page`);
      bodies.push(defined.length > 0 ? markdown.slice(0, markdown.indexOf(`\n\n[${defined[0]![1]}]: `)) : markdown);
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    assert.equal(cursor, undefined, 'reached the end');
    assert.ok(bodies.length >= 10, `${bodies.length} parts`);
    const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
    assert.equal(squash(bodies.join('\n\n')), squash(wholeBody));
  });

  test('a budget smaller than one definition (about 15 tokens) still reads to the end, within it', async () => {
    let cursor: string | undefined;
    let parts = 0;
    for (; parts < 600; parts++) {
      const res = await api.post('/fetch', {
        url: site.url('/links-long'),
        links: 'reference',
        max_tokens: 12,
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.metadata.token_count <= 12, `${res.body.metadata.token_count} tokens`);
      assert.ok(res.body.markdown.length > 0, 'every part moves on');
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    assert.equal(cursor, undefined, `reached the end in ${parts} parts`);
  });

  test('a cursor reads on only with the links and images it was issued for', async () => {
    const first = await api.post('/fetch', { url: site.url('/links-long'), links: 'reference', max_tokens: 100 });
    const cursor = first.body.next_cursor;
    assert.equal(typeof cursor, 'string');
    for (const other of [{}, { links: 'none' }, { links: 'reference', images: 'none' }]) {
      const res = await api.post('/fetch', { url: site.url('/links-long'), max_tokens: 100, cursor, ...other });
      assert.equal(res.status, 422, JSON.stringify(other));
      assert.deepEqual(res.body.detail[0].loc, ['body', 'cursor']);
      assert.match(res.body.detail[0].msg, /issued for links 'reference' and images 'keep'/);
    }
    const same = await api.post('/fetch', {
      url: site.url('/links-long'),
      links: 'reference',
      max_tokens: 100,
      cursor,
    });
    assert.equal(same.status, 200);
    assert.match(same.body.markdown, /^Read on in \[section 2\]\[3\] when this one is done\./);
  });

  test('a text cursor reads on whatever links and images say', async () => {
    const first = await api.post('/fetch', { url: site.url('/links-long'), format: 'text', max_tokens: 100 });
    const next = await api.post('/fetch', {
      url: site.url('/links-long'),
      format: 'text',
      links: 'none',
      max_tokens: 100,
      cursor: first.body.next_cursor,
    });
    assert.equal(next.status, 200, next.text);
  });
});

describe('links and images: validation', () => {
  for (const [field, value] of [
    ['links', 'footnotes'],
    ['images', 'alt'],
  ] as const) {
    test(`${field} '${value}' is a 422 listing the choices`, async () => {
      const res = await api.post('/fetch', { url: site.url('/links'), [field]: value });
      assert.equal(res.status, 422);
      assert.deepEqual(
        res.body.detail.map((d: { loc: unknown }) => d.loc),
        [['body', field]],
      );
      assert.equal(res.body.detail[0].type, 'enum');
      assert.match(res.body.detail[0].msg, field === 'links' ? /'inline', 'reference' or 'none'/ : /'keep' or 'none'/);
    });
  }

  test('in a batch too', async () => {
    const res = await api.post('/fetch/batch', { urls: [site.url('/links')], links: 'refs' });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail[0].loc, ['body', 'links']);
  });
});
