// A reader provider's Markdown → content: links resolved, tidied, its text, and the provider's title as the first
// heading when the Markdown has none. Plain data in and out, so it runs on an extraction thread (conversion-tasks.ts).
import { contentFromMarkdown, type ExtractedContent } from '../extract/index.js';
import { isEmptyContent } from './html.js';

export interface ReaderContent {
  markdown: string;
  /** The page's URL, against which relative links are resolved. */
  url: string;
  title: string | null;
}

/** Null when the Markdown holds no readable text. */
export function convertReaderContent(input: ReaderContent): ExtractedContent | null {
  const extracted = contentFromMarkdown(input.markdown, input.url);
  if (isEmptyContent(extracted)) return null;
  if (!input.title || /^# /.test(extracted.markdown)) return extracted;
  return { ...extracted, markdown: `# ${input.title}\n\n${extracted.markdown}` };
}
