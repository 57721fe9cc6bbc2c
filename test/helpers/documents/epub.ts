// EPUB files made at test time with fflate from content given as data: the stored `mimetype` first, as the format
// requires, then the container, the package (metadata, manifest, spine) and one XHTML file per chapter. The zip holds
// the chapters in the reverse of the spine's order, so a reader that follows the zip reads them backwards.
import { strToU8, zipSync, type Zippable } from 'fflate';

export interface ChapterContent {
  title: string;
  /** Paragraphs as HTML: links, pictures and emphasis are written in them. */
  paragraphs: string[];
}

export interface BookContent {
  title: string;
  author: string;
  language: string;
  /** dc:date, as the package writes it. */
  date: string;
  description: string;
  chapters: ChapterContent[];
}

export const TOMATO_BOOK: BookContent = {
  title: 'The Balcony Tomato Book',
  author: 'Ada Gardener',
  language: 'en',
  date: '2024-03-01',
  description: 'A short book on growing tomatoes in pots.',
  chapters: [
    {
      title: 'Chapter 1: Sun',
      paragraphs: [
        'Tomatoes need at least six hours of direct sun every day.',
        '<img src="images/balcony.png" alt="A sunny balcony with three pots"/>',
        'Read on in <a href="chapter-2.xhtml#water">the chapter on water</a>, or at <a href="https://example.org/sun">the sun guide</a>.',
      ],
    },
    {
      title: 'Chapter 2: Water',
      paragraphs: ['Water deeply twice a week; <em>more</em> in July.', '<img src="images/can.png"/>'],
    },
    { title: 'Chapter 3: Harvest', paragraphs: ['Pick the fruit when it is fully coloured and slightly soft.'] },
  ],
};

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function chapterXhtml(chapter: ChapterContent): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>${escape(chapter.title)}</title><link rel="stylesheet" href="style.css"/></head>
<body><section epub:type="chapter"><h1>${escape(chapter.title)}</h1>
${chapter.paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</section></body></html>`;
}

const file = (n: number) => `chapter-${n + 1}.xhtml`;

function packageOpf(book: BookContent): string {
  const chapters = book.chapters.map((_, n) => n);
  return `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:0b5e2d52-8f5e-4a47-9d5c-3f1d1b6a9e10</dc:identifier>
    <dc:title>${escape(book.title)}</dc:title>
    <dc:creator>${escape(book.author)}</dc:creator>
    <dc:language>${book.language}</dc:language>
    <dc:date>${book.date}</dc:date>
    <dc:description>${escape(book.description)}</dc:description>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="css" href="style.css" media-type="text/css"/>
    <item id="balcony" href="images/balcony.png" media-type="image/png"/>
${chapters.map((n) => `    <item id="c${n}" href="${file(n)}" media-type="application/xhtml+xml"/>`).join('\n')}
  </manifest>
  <spine>
    <itemref idref="nav"/>
${chapters.map((n) => `    <itemref idref="c${n}"/>`).join('\n')}
  </spine>
</package>`;
}

const CONTAINER = `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`;

/** The first bytes of a PNG: enough to stand for a picture nobody reads. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function makeEpub(book: BookContent = TOMATO_BOOK): Buffer {
  const entries: Zippable = {
    mimetype: [strToU8('application/epub+zip'), { level: 0 }],
    'META-INF/container.xml': strToU8(CONTAINER),
  };
  for (let n = book.chapters.length - 1; n >= 0; n--)
    entries[`OEBPS/${file(n)}`] = strToU8(chapterXhtml(book.chapters[n]!));
  const toc = book.chapters.map((c, n) => `<li><a href="${file(n)}">${escape(c.title)}</a></li>`).join('');
  entries['OEBPS/nav.xhtml'] = strToU8(
    `<html xmlns="http://www.w3.org/1999/xhtml"><body><nav epub:type="toc"><ol>${toc}</ol></nav></body></html>`,
  );
  entries['OEBPS/content.opf'] = strToU8(packageOpf(book));
  entries['OEBPS/style.css'] = strToU8('p { margin: 0 }');
  entries['OEBPS/images/balcony.png'] = PNG;
  return Buffer.from(zipSync(entries));
}
