// A slide's shapes as PowerPoint itself writes them, which pptxgenjs does not: body placeholders whose bullets come
// from the slide master (no bullet in the paragraph), numbering, levels, groups, line breaks, footers and titles.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertToMarkdown } from '../../src/extract/markdown/markdown.js';
import { shapesHtml, slideTitle } from '../../src/fetchers/documents/drawingml.js';
import { parseXml } from '../../src/fetchers/documents/xml.js';

const NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="urn:p" xmlns:r="urn:r"';
const run = (text: string, link?: string) =>
  `<a:r><a:rPr lang="en-GB">${link ? `<a:hlinkClick r:id="${link}"/>` : ''}</a:rPr><a:t>${text}</a:t></a:r>`;
const paragraph = (content: string, properties = '') => `<a:p>${properties}${content}</a:p>`;
const shape = (placeholder: string | null, ...paragraphs: string[]) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${placeholder ?? ''}</p:nvPr></p:nvSpPr>` +
  `<p:spPr/><p:txBody><a:bodyPr/>${paragraphs.join('')}</p:txBody></p:sp>`;

const TREE = `<p:spTree ${NS}>
  ${shape('<p:ph type="title"/>', paragraph(run('Soil') + '<a:br/>' + run('and pots')))}
  ${shape(
    '<p:ph idx="1"/>',
    paragraph(run('Deep pots')),
    paragraph(run('At least 30 cm'), '<a:pPr lvl="1"/>'),
    paragraph(run('Drainage holes')),
    paragraph(run('A caption, not a bullet'), '<a:pPr><a:buNone/></a:pPr>'),
  )}
  <p:grpSp><p:nvGrpSpPr/><p:grpSpPr/>
    ${shape(null, paragraph(run('Fill'), '<a:pPr><a:buAutoNum type="arabicPeriod"/></a:pPr>'), paragraph(run('Plant'), '<a:pPr><a:buAutoNum type="arabicPeriod"/></a:pPr>'))}
    ${shape(null, paragraph(run('Line one') + '<a:br/>' + run('line two, see the ') + run('guide', 'rId7')))}
  </p:grpSp>
  ${shape('<p:ph type="ftr" idx="11"/>', paragraph(run('Garden Club 2024')))}
  ${shape('<p:ph type="sldNum" idx="12"/>', paragraph('<a:fld type="slidenum"><a:t>3</a:t></a:fld>'))}
</p:spTree>`;

test('body placeholders are bulleted unless a paragraph says not; levels nest, numbering orders, groups open', () => {
  const tree = parseXml(TREE, 'pptx', 'slide');
  assert.equal(slideTitle(tree), 'Soil and pots');
  const links = new Map([['rId7', 'https://example.org/guide']]);
  assert.equal(
    convertToMarkdown(shapesHtml(tree, links)),
    [
      '- Deep pots\n  - At least 30 cm\n- Drainage holes',
      'A caption, not a bullet',
      '1. Fill\n2. Plant',
      'Line one\\\nline two, see the [guide](https://example.org/guide)',
    ].join('\n\n'),
  );
});
