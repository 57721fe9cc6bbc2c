// Code samples in tabs, one panel per language: the hidden panels are content too, when they are labelled by their tab.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { articlePage, paragraph, PAGE_URL } from './pages.js';

function codeTabs(labelled: boolean): string {
  const panel = (lang: string, code: string, hidden: boolean) =>
    `<div role="tabpanel"${labelled ? ` aria-labelledby="tab-${lang}"` : ''}${hidden ? ' hidden style="display:none"' : ''}>` +
    `<p>Install the client for ${lang}, then run:</p><pre><code>${code}</code></pre></div>`;
  const tabs = ['python', 'node'].map((lang) => `<button role="tab" id="tab-${lang}">${lang}</button>`).join('');
  return `<div role="tablist">${tabs}</div>${panel('python', 'pip install client', false)}${panel('node', 'npm install client', true)}`;
}

const prose = [1, 2, 3, 4, 5, 6].map(paragraph).join('');

test('a hidden tab panel of code that names its tab is kept', () => {
  const { text } = extractHtml(articlePage(prose + codeTabs(true)), PAGE_URL);
  assert.ok(text.includes('pip install client'), text);
  assert.ok(text.includes('npm install client'), text);
});

test('an unlabelled hidden panel stays hidden', () => {
  const { text } = extractHtml(articlePage(prose + codeTabs(false)), PAGE_URL);
  assert.ok(text.includes('pip install client'), text);
  assert.ok(!text.includes('npm install client'), text);
});
