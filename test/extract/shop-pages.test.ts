// What a shop's page carries besides its content: elements a CSS framework class hides (other variants' prices,
// templates, the mobile copy) and sections of other products' teasers under a heading that says so. Through
// extractHtml, on a page of sections (the fuller extraction) and on an article (Readability's pick).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { articlePage, assertContains, PAGE_URL, paragraph } from './pages.js';

const prose = (words: number, seed: string) => Array.from({ length: words }, (_, i) => `${seed}${i % 7}`).join(' ');

/**
 * A page of sibling bands that declares nothing: Readability keeps one band, too little of the page, so the whole page
 * minus boilerplate is extracted. `extra` goes in a band of its own after them.
 */
function sectionsPage(extra: string): string {
  const band = (inner: string) => `<div class="band"><div class="wrap"><div class="col">${inner}</div></div></div>`;
  const sections = ['alpha', 'beta', 'gamma', 'delta']
    .map((name) => band(`<h2>Feature ${name}</h2><p>${prose(60, name)}.</p>`))
    .join('');
  return `<html><head><title>Product</title></head><body>${sections}${band(extra)}</body></html>`;
}

test('an element hidden by a framework class is left out, one a breakpoint shows again is kept', () => {
  const hidden =
    '<p>Short text of the offer here, plain.</p><div class="price d-none">Template price 999.00</div><p class="is-hidden">Out of stock notice text</p>' +
    '<div class="hidden">Variant blue costs 12.00</div>';
  const shown = '<div class="hidden md:block">Delivery in two days, shown on wide screens</div>';
  const { text } = extractHtml(sectionsPage(hidden + shown), 'https://shop.example/p/1');
  for (const noise of ['Template price', 'Out of stock notice', 'Variant blue'])
    assert.ok(!text.includes(noise), noise);
  assert.ok(text.includes('Delivery in two days'), text);
  assert.ok(text.includes('Feature delta'), text);
});

function teaserCards(count: number): string {
  return Array.from(
    { length: count },
    (_, i) =>
      `<li class="card"><a href="/p/${i}"><h3>Other product number ${i}</h3></a> A sturdy thing that many shoppers liked, $${i}9.00</li>`,
  ).join('');
}

test('a section opened by a teaser heading goes whole with its cards', () => {
  const wrapped = `<div class="carousel-wrap"><h2>Customers also viewed</h2><ul class="cards">${teaserCards(6)}</ul></div>`;
  const page = extractHtml(sectionsPage(wrapped), 'https://shop.example/p/2').text;
  assert.ok(!page.includes('Other product number'), page);
  assert.ok(page.includes('Feature gamma'), page);
});

test('a teaser heading without a wrapper of its own takes the element after it', () => {
  const bare = `<h3>You may also like</h3><ul>${teaserCards(5)}</ul>`;
  const article = extractHtml(articlePage([1, 2, 3].map(paragraph).join('') + bare), PAGE_URL).text;
  assert.ok(!article.includes('Other product number'), article);
  assert.ok(article.includes('Paragraph 3 explains'), article);
});

test('a long heading that happens to hold the words is text, and its section stays', () => {
  const heading = '<h2>Why people also like to walk the bridge at dawn, and what the council says about it</h2>';
  const { text } = extractHtml(articlePage(paragraph(1) + heading + [2, 3].map(paragraph).join('')), PAGE_URL);
  assert.ok(text.includes('Why people also like'), text);
  assert.ok(text.includes('Paragraph 2 explains'), text);
});

test("a thread's similar-threads box goes, its posts stay", () => {
  const posts = ['alice', 'bob', 'carol']
    .map(
      (name) =>
        `<div class="post"><span class="author">${name}</span><p>Post by ${name}: ${prose(70, name)}.</p></div>`,
    )
    .join('');
  const similar = `<div class="box"><h3>Similar threads</h3><ul>${teaserCards(5)}</ul></div>`;
  const html =
    '<html><head><title>Thread</title><script type="application/ld+json">{"@type":"DiscussionForumPosting"}</script>' +
    `</head><body><div class="thread"><h1>Which telescope first?</h1>${posts}${similar}</div></body></html>`;
  const { text } = extractHtml(html, 'https://forum.example/t/1');
  for (const name of ['alice', 'bob', 'carol']) assert.ok(text.includes(`Post by ${name}`), text);
  assert.ok(!text.includes('Other product number'), text);
});

test("a listing's filter panel of ticked options goes; cards with colour swatches stay", () => {
  const option = (name: string) =>
    `<li><input type="checkbox" id="f-${name}"><label for="f-${name}">${name}</label></li>`;
  const panel =
    '<div class="left"><fieldset><legend>Size</legend><ul>' +
    ['XS', 'S', 'M', 'L', 'XL'].map(option).join('') +
    '</ul></fieldset><fieldset><legend>Colour</legend><ul>' +
    ['Black', 'Grey', 'Navy'].map(option).join('') +
    '</ul></fieldset></div>';
  const swatch = (i: number, colour: string) => `<input type="radio" name="c${i}" value="${colour}">`;
  const cards = [1, 2, 3, 4, 5, 6]
    .map(
      (i) =>
        `<div class="tile"><a href="/p/${i}"><img src="/p${i}.jpg" alt=""> Training shirt model ${i}</a>` +
        `${['red', 'blue', 'green'].map((c) => swatch(i, c)).join('')}<span>$2${i}.00</span></div>`,
    )
    .join('');
  const { text } = extractHtml(sectionsPage(`${panel}<div class="grid">${cards}</div>`), 'https://shop.example/c/1');
  for (const facet of ['Colour', 'Navy', 'XL']) assert.ok(!text.includes(facet), text);
  for (const i of [1, 6]) assert.ok(text.includes(`Training shirt model ${i}`), text);
  assert.ok(text.includes('Feature delta'), text);
});

test("a form control's label goes with its control", () => {
  const form = '<div class="picker"><label for="size">Choose your size here</label><select id="size"></select></div>';
  const { text } = extractHtml(
    sectionsPage(form + '<p>Machine washable at thirty degrees.</p>'),
    'https://shop.example/p/3',
  );
  assert.ok(!text.includes('Choose your size'), text);
  assert.ok(text.includes('Machine washable'), text);
});

const PRODUCT_LD = '<script type="application/ld+json">{"@type":"Product","name":"Trail pack"}</script>';

/** The text of sectionsPage(section) as a declared product and as an undeclared page. */
function asProductAndNot(section: string, url: string): { product: string; undeclared: string } {
  const page = sectionsPage(section);
  return {
    product: extractHtml(page.replace('</head>', `${PRODUCT_LD}</head>`), url).text,
    undeclared: extractHtml(page, url).text,
  };
}

test("a declared product's review section goes; an undeclared page's testimonials stay", () => {
  const reviews =
    '<div id="customer-reviews"><h2>Reviews</h2>' +
    ['ann', 'ben', 'cal'].map((name) => `<p>Review by ${name}: ${prose(25, name)}.</p>`).join('') +
    '</div>';
  const { product, undeclared } = asProductAndNot(reviews, 'https://shop.example/p/4');
  assert.ok(!product.includes('Review by ann'), product);
  assert.ok(product.includes('Feature delta'), product);
  assert.ok(undeclared.includes('Review by ann'), undeclared);
});

test("a declared product's short specification lines at the edge of Readability's pick stay", () => {
  const specs = ['Weight: 1 lb 13 oz', 'Capacity: 25 litres', 'Frame: HDPE sheet'].map((l) => `<p>${l}</p>`).join('');
  const body = `<div class="product"><h1>Trail pack</h1><p>${prose(120, 'about')}.</p><p>${prose(80, 'more')}.</p>${specs}</div>`;
  const html = `<html><head><title>Trail pack</title>${PRODUCT_LD}</head><body>${body}</body></html>`;
  const { text } = extractHtml(html, 'https://shop.example/p/5');
  assert.ok(text.includes('Capacity: 25 litres'), text);
  const undeclared = extractHtml(html.replace(PRODUCT_LD, ''), 'https://shop.example/p/5').text;
  assert.ok(!undeclared.includes('Capacity: 25 litres'), undeclared);
});

test("a declared product's grid of cards is other products' teasers; an undeclared page keeps its grid", () => {
  const cards = [0, 1, 2, 3, 4, 5].map(
    (i) =>
      `<li class="card"><a href="/p/${i}"><h3>Other product number ${i} in oiled oak</h3><span>$${i}9.00</span></a></li>`,
  );
  const grid = `<ul class="grid">${cards.join('')}</ul>`;
  const { product, undeclared } = asProductAndNot(grid, 'https://shop.example/p/6');
  assert.ok(!product.includes('Other product number'), product);
  assert.ok(product.includes('Feature delta'), product);
  assert.ok(undeclared.includes('Other product number 5'), undeclared);
});

test('a declared product whose body lacks its description gets the JSON-LD copy; one that has it, not twice', () => {
  const description = `Hand-stitched &lt;b&gt;waxed canvas&lt;/b&gt; pack. ${prose(30, 'canvas')}.`;
  const ld = `<script type="application/ld+json">{"@type":"Product","name":"Trail pack","description":"${description}"}</script>`;
  const page = sectionsPage('<p>Ships in two days.</p>').replace('</head>', `${ld}</head>`);
  const { text } = extractHtml(page, 'https://shop.example/p/7');
  assert.ok(text.includes('Hand-stitched waxed canvas pack.'), text);
  assert.ok(!text.includes('<b>'), text);
  assert.ok(text.includes('Feature delta'), text);
  const shown = sectionsPage(`<p>Hand-stitched waxed canvas pack. ${prose(30, 'canvas')}.</p>`);
  const once = extractHtml(shown.replace('</head>', `${ld}</head>`), 'https://shop.example/p/7').text;
  assert.equal(once.split('Hand-stitched').length, 2, once);
  const undeclared = extractHtml(page.replace('"@type":"Product"', '"@type":"Thing"'), 'https://shop.example/p/7');
  assert.ok(!undeclared.text.includes('Hand-stitched'), undeclared.text);
});

test("a collapsed accordion's panel of prose is kept; a menu's closed dropdown is not", () => {
  const accordion =
    '<div class="faq"><h3><button aria-expanded="false" aria-controls="faq-1">How is the pack sized?</button></h3>' +
    '<div id="faq-1" aria-hidden="true"><p>Measure your torso from the base of the neck to the hip bones.</p></div></div>';
  const menu =
    '<div><button aria-expanded="false" aria-controls="menu-1">Shop</button><div id="menu-1" hidden>' +
    '<a href="/a">Tents and shelters</a> <a href="/b">Sleeping bags</a></div></div>';
  const { text } = extractHtml(sectionsPage(accordion + menu), 'https://shop.example/c/3');
  assert.ok(text.includes('Measure your torso'), text);
  assert.ok(!text.includes('Sleeping bags'), text);
});

test("a closed panel's collapse wrapper, between its control and the panel, is shown with it", () => {
  const accordion =
    '<div class="item"><button aria-expanded="false" aria-controls="p-1">Dimensions</button>' +
    '<div class="collapse" style="overflow:hidden;display:none;height:0px"><div id="p-1" role="region">' +
    '<p>Height 39 cm, width 62 cm, stainless steel throughout.</p></div></div></div>';
  const { text } = extractHtml(sectionsPage(accordion), 'https://shop.example/p/9');
  assertContains(text, ['Height 39 cm'], []);
});

test("an accordion's region labelled by a control that states no expanded state is kept; a bare aria-controls is not", () => {
  const accordion =
    '<div class="faq"><a id="q-1" role="button" aria-controls="a-1">How is the pack sized?</a>' +
    '<div id="a-1" role="region" aria-labelledby="q-1" style="display:none;">' +
    '<p>Measure your torso from the base of the neck to the hip bones.</p></div></div>';
  const other =
    '<div><a id="q-2" role="button" aria-controls="a-2">Why?</a>' +
    '<div id="a-2" style="display:none;"><p>A tooltip that only a hover would show to a reader.</p></div></div>';
  const { text } = extractHtml(sectionsPage(accordion + other), 'https://shop.example/c/3');
  assertContains(text, ['Measure your torso'], ['A tooltip']);
});

test("a link styled as a button goes with its few words; a longer one, a promotion's own words, stays", () => {
  const buttons =
    '<p>Ships in two days from the north warehouse.</p><a class="btn btn-primary" href="/cart">Add to cart</a>' +
    '<a role="button" href="/wish">Add to wishlist</a><a class="button" href="/vg">Shop Van Gogh Watercolors</a>';
  const { text } = extractHtml(sectionsPage(buttons), 'https://shop.example/p/8');
  assertContains(text, ['Shop Van Gogh Watercolors', 'Ships in two days'], ['Add to cart', 'Add to wishlist']);
});

test("a screen reader's label of a few words goes from the page minus boilerplate; a longer hidden text stays", () => {
  const prices =
    '<p><span class="visually-hidden">Regular price</span> $40.00 <span class="sr-only">Sale price</span> $30.00</p>' +
    '<h3 class="sr-only">Trail pack in waxed canvas, forty litres</h3>';
  const { text } = extractHtml(sectionsPage(prices), 'https://shop.example/p/9');
  assertContains(text, ['$30.00', 'Trail pack in waxed canvas'], ['Regular price', 'Sale price']);
});

test('a skip link, a "Loading…" placeholder and an ad\'s label go; a sentence that mentions loading stays', () => {
  const chrome =
    '<a class="skip" href="#main">Skip to main content</a><div class="spinner">Loading…</div><p>Loading...</p>' +
    '<p>Loading the van takes two people and ten minutes.</p><span>Sponsored</span>';
  const { text } = extractHtml(sectionsPage(chrome), 'https://shop.example/c/4');
  assertContains(text, ['Loading the van takes'], ['Skip to main', 'Sponsored']);
  assert.ok(!/^Loading(?:…|\.\.\.)$/m.test(text), text);
});

test("a declared product's button links and price labels go from Readability's pick too", () => {
  const controls =
    '<p><span class="visually-hidden">Regular price</span> $40.00</p><a class="btn" href="/cart">Add to cart</a>';
  const body = `<div class="product"><h1>Trail pack</h1><p>${prose(120, 'about')}.</p>${controls}<p>${prose(80, 'more')}.</p></div>`;
  const html = `<html><head><title>Trail pack</title>${PRODUCT_LD}</head><body>${body}</body></html>`;
  const { text } = extractHtml(html, 'https://shop.example/p/10');
  assertContains(text, ['$40.00'], ['Add to cart', 'Regular price']);
});

test("a skip link inside Readability's pick goes too, whatever class it has; an in-page link to a section stays", () => {
  const article =
    `${paragraph(1)}${paragraph(2)}<p><a href="#comments">Skip to the comments</a></p>` +
    `<p>See <a href="#notes">the notes below</a> for the sources.</p>${paragraph(3)}${paragraph(4)}`;
  const { text } = extractHtml(articlePage(article), PAGE_URL);
  assertContains(text, ['the notes below', 'Paragraph 4'], ['Skip to the comments']);
});
