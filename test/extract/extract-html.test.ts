// extractHtml: main content kept and boilerplate dropped, metadata, the title heading, and pages that Readability
// alone gets wrong (no <html>/<body>, short pages, sectioned pages, table layouts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { articlePage, PAGE_URL, paragraph, SITE_FOOTER, SITE_HEADER } from './pages.js';

const ARTICLE = [1, 2, 3, 4].map(paragraph).join('');

test('keeps the article and drops navigation, header, footer, sidebar and cookie banner', () => {
  const { markdown, text } = extractHtml(articlePage(ARTICLE), PAGE_URL);
  const paragraphs = [1, 2, 3, 4].map((n) => paragraph(n).replace(/<\/?p>/g, ''));
  assert.equal(markdown, ['# The bridge is rebuilt', ...paragraphs].join('\n\n'));
  assert.equal(text, paragraphs.join('\n\n'));
  for (const boilerplate of ['World news', 'Most read', 'Sponsored', 'cookies', 'Copyright', 'Privacy']) {
    assert.ok(!markdown.includes(boilerplate), `${boilerplate} leaked into the Markdown`);
  }
});

test('reads title, description and language from the head', () => {
  const result = extractHtml(articlePage(ARTICLE), PAGE_URL);
  assert.equal(result.title, 'The bridge is rebuilt');
  assert.equal(result.description, 'How the council rebuilt the stone bridge.');
  assert.equal(result.language, 'en-GB');
});

test('title falls back to <title>, then the first h1; language to Content-Language', () => {
  const noOg = `<html><head><title>Plain title</title><meta http-equiv="Content-Language" content="de, en"></head><body><article>${ARTICLE}</article></body></html>`;
  const fromTitle = extractHtml(noOg, PAGE_URL);
  assert.equal(fromTitle.title, 'Plain title');
  assert.equal(fromTitle.language, 'de');
  assert.equal(fromTitle.description, null);
  assert.ok(fromTitle.markdown.startsWith('# Plain title\n\nParagraph 1 '));
  const fromH1 = extractHtml(`<html><body><h1>Heading title</h1><article>${ARTICLE}</article></body></html>`, PAGE_URL);
  assert.equal(fromH1.title, 'Heading title');
  assert.equal(fromH1.language, null);
});

test("the page's one h1 is the title; else <title> without its site-name suffix", () => {
  const page = (head: string, body: string) =>
    `<html><head><title>${head}</title></head><body><article>${body}${ARTICLE}</article></body></html>`;
  assert.equal(
    extractHtml(page('Gardening Notes | Example Site', '<h1>Growing Tomatoes</h1>'), PAGE_URL).title,
    'Growing Tomatoes',
  );
  assert.equal(
    extractHtml(page('Gardening Notes | Example Site', '<h1>One</h1><h1>Two</h1>'), PAGE_URL).title,
    'Gardening Notes',
  );
  assert.equal(extractHtml(page('Council news — The Daily Bridge', ''), PAGE_URL).title, 'Council news');
  // Too short to stand alone once the suffix is gone: kept whole.
  assert.equal(extractHtml(page('Home - Acme', ''), PAGE_URL).title, 'Home - Acme');
});

test('the title heading is not repeated when the content already opens with it', () => {
  const page = `<html><head><title>Opening hours</title></head><body>${SITE_HEADER}<h1>Opening hours</h1><p>Monday to Friday, nine to five.</p>${SITE_FOOTER}</body></html>`;
  const { markdown } = extractHtml(page, PAGE_URL);
  assert.equal(markdown, '# Opening hours\n\nMonday to Friday, nine to five.');
});

test('works on a page without <html>, <head> or <body>', () => {
  const page = `<title>Fragment page</title><meta name="description" content="No skeleton."><div>${ARTICLE}</div>`;
  const result = extractHtml(page, PAGE_URL);
  assert.equal(result.title, 'Fragment page');
  assert.equal(result.description, 'No skeleton.');
  assert.ok(result.markdown.startsWith('# Fragment page\n\nParagraph 1 explains'), result.markdown);
  assert.ok(result.markdown.endsWith('damaged it beyond any hope of repair.'));
  assert.equal(result.markdown.match(/^Paragraph \d/gm)?.length, 4);
});

test('works on a page with <html> but no <body>, and on a bare fragment', () => {
  const noBody = extractHtml(`<html lang="fr"><head><title>Sans corps</title></head>${ARTICLE}</html>`, PAGE_URL);
  assert.equal(noBody.language, 'fr');
  assert.equal(noBody.markdown.match(/^Paragraph \d/gm)?.length, 4);
  const bare = extractHtml('<p>Just one short line of text.</p>', PAGE_URL);
  assert.equal(bare.markdown, 'Just one short line of text.');
  assert.equal(bare.title, null);
});

test('a short real page keeps all of its content', () => {
  const page =
    `<html><head><title>Smalltown library</title></head><body>${SITE_HEADER}` +
    '<div><h2>Hours</h2><ul><li>Monday to Friday 9 to 17</li><li>Saturday 10 to 14</li><li>Sunday closed</li></ul></div>' +
    `<div><h2>Address</h2><p>1 High Street, Smalltown</p></div>${SITE_FOOTER}</body></html>`;
  const { markdown } = extractHtml(page, PAGE_URL);
  assert.equal(
    markdown,
    '# Smalltown library\n\n## Hours\n\n- Monday to Friday 9 to 17\n- Saturday 10 to 14\n- Sunday closed\n\n## Address\n\n1 High Street, Smalltown',
  );
});

test('a page in separate sections keeps every section, not the one Readability picks', () => {
  const section = (name: string, words: string) => `<h2>${name}</h2><p>${`${words}. `.repeat(30)}</p>`;
  const page =
    `<html><head><title>Guide</title></head><body>${SITE_HEADER}<div class="col">${section('Install', 'Run the installer')}</div>` +
    `<div class="col2"><div>${section('Configure', 'Edit the settings file')}</div></div>` +
    `<div><div>${section('Upgrade', 'Back up the data first')}</div></div>${SITE_FOOTER}</body></html>`;
  const { markdown } = extractHtml(page, PAGE_URL);
  assert.deepEqual(markdown.match(/^#+ .*$/gm), ['# Guide', '## Install', '## Configure', '## Upgrade']);
  assert.ok(!markdown.includes('World news') && !markdown.includes('Copyright'));
});

test('an index page made of links keeps its links', () => {
  const items = Array.from({ length: 12 }, (_, i) => `<li><a href="/projects/${i}">Project number ${i}</a></li>`).join(
    '',
  );
  const page = `<html><head><title>Projects</title></head><body>${SITE_HEADER}<h1>Projects</h1><ul>${items}</ul>${SITE_FOOTER}</body></html>`;
  const { markdown } = extractHtml(page, PAGE_URL);
  const list = Array.from({ length: 12 }, (_, i) => `- [Project number ${i}](https://news.example/projects/${i})`).join(
    '\n',
  );
  assert.equal(markdown, `# Projects\n\n${list}`);
});

test('a legacy page laid out with nested tables and font tags becomes prose, not a table', () => {
  const walk = 'We walked along the coast for days and saw many seabirds. '.repeat(6);
  const cold = 'The weather turned cold in the evening and we slept in a barn. '.repeat(6);
  const page =
    '<TITLE>My trip</TITLE><BODY BGCOLOR=white><TABLE WIDTH=100%><TR><TD WIDTH=150 VALIGN=top><A HREF="index.html">Home</A>' +
    '<BR><A HREF="links.html">Links</A></TD><TD><TABLE><TR><TD COLSPAN=2><FONT FACE=Arial><CENTER><H2>My trip to Wales</H2>' +
    `</CENTER></FONT></TD></TR><TR><TD VALIGN=top><P>${walk}</TD><TD VALIGN=top><P>${cold}</TD></TR></TABLE></TD></TR></TABLE>`;
  const { title, markdown, text } = extractHtml(page, 'http://home.example/~me/trip.html');
  assert.equal(title, 'My trip');
  assert.ok(!/[|<]/.test(markdown), markdown);
  assert.equal(markdown.slice(markdown.indexOf('## ')), `## My trip to Wales\n\n${walk.trim()}\n\n${cold.trim()}`);
  assert.ok(text.endsWith(`My trip to Wales\n\n${walk.trim()}\n\n${cold.trim()}`));
});

test('never throws, whatever the input', () => {
  for (const input of [
    '',
    '   ',
    '<<<>>>',
    '<html>',
    '</body></html>',
    '\u0000\u0001binary\uFFFD',
    '<div>'.repeat(2000),
    '<script>x</script>',
  ]) {
    const result = extractHtml(input, 'not a url');
    assert.equal(typeof result.markdown, 'string');
    assert.equal(typeof result.text, 'string');
    assert.ok(!/\n{3}/.test(result.markdown));
  }
});
