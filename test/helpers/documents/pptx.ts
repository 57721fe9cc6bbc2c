// PPTX files made at test time with pptxgenjs (MIT) from content given as data, so a test or a benchmark knows every
// slide title, bullet, table cell and note that must come back, and in which order.
import pptxgenjs from 'pptxgenjs';

// Its types describe the CommonJS build (a module whose `default` is the class); Node imports the ES build, whose
// default export is the class itself.
const PptxGenJS = pptxgenjs as unknown as typeof pptxgenjs.default;

export interface SlideContent {
  /** In the title placeholder; none: a slide without a title. */
  title?: string;
  /** Bullets in a text box; level 1 and up are nested under the one before. */
  bullets?: { text: string; level?: number }[];
  /** A plain text box, after the bullets. */
  text?: string;
  /** A linked text box, last: the link must come back with its URL. */
  link?: { text: string; url: string };
  /** The first row is the header. */
  table?: string[][];
  notes?: string;
}

export interface DeckContent {
  /** docProps/core.xml's title. */
  title: string;
  author: string;
  /** docProps/core.xml's subject: the description when there is none. */
  subject: string;
  slides: SlideContent[];
}

export const TOMATO_DECK: DeckContent = {
  title: 'Balcony Tomatoes, the Talk',
  author: 'Ada Gardener',
  subject: 'Growing tomatoes in pots on a balcony',
  slides: [
    {
      title: 'Why grow tomatoes',
      bullets: [
        { text: 'Fresh fruit all summer' },
        { text: 'Cherry varieties crop early', level: 1 },
        { text: 'Little space needed' },
      ],
      notes: 'Start with a show of hands: who grows anything on a balcony?',
    },
    {
      title: 'Watering by month',
      table: [
        ['Month', 'Litres per week'],
        ['June', '12'],
        ['July', '18'],
      ],
      notes: 'July is the thirstiest month.',
    },
    { text: 'An interlude without a title & <nothing> else.' },
    {
      title: 'Questions',
      text: 'Thank you for listening.',
      link: { text: 'The growing guide', url: 'https://example.org/guide' },
    },
  ],
};

const TITLED = 'TITLED';

export async function makePptx(deck: DeckContent = TOMATO_DECK): Promise<Buffer> {
  const pptx = new PptxGenJS();
  pptx.title = deck.title;
  pptx.author = deck.author;
  pptx.subject = deck.subject;
  pptx.defineSlideMaster({
    title: TITLED,
    objects: [{ placeholder: { options: { name: 'title', type: 'title', x: 0.5, y: 0.2, w: 9, h: 0.8 }, text: '' } }],
  });
  for (const content of deck.slides) {
    const slide = pptx.addSlide({ masterName: TITLED });
    if (content.title) slide.addText(content.title, { placeholder: 'title' });
    if (content.bullets)
      slide.addText(
        content.bullets.map(({ text, level = 0 }) => ({
          text,
          options: { bullet: true, indentLevel: level, breakLine: true },
        })),
        { x: 0.5, y: 1.2, w: 9, h: 2 },
      );
    if (content.text) slide.addText(content.text, { x: 0.5, y: 3.3, w: 9, h: 0.6 });
    if (content.table)
      slide.addTable(
        content.table.map((row) => row.map((text) => ({ text }))),
        { x: 0.5, y: 1.2, w: 9 },
      );
    if (content.link)
      slide.addText([{ text: content.link.text, options: { hyperlink: { url: content.link.url } } }], {
        x: 0.5,
        y: 4,
        w: 9,
        h: 0.6,
      });
    if (content.notes) slide.addNotes(content.notes);
  }
  return (await pptx.write({ outputType: 'nodebuffer' })) as Buffer;
}
