// The typed blocks of format=json: what document.ts makes of Markdown and text.ts renders as plain text. Apart from
// both, so that neither imports the other for its types.
export interface ListItemBlock {
  text: string;
  children?: DocumentBlock[];
}

export type DocumentBlock =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'list'; ordered: boolean; start?: number; items: ListItemBlock[] }
  | { type: 'table'; header: string[]; rows: string[][] }
  | { type: 'code'; language: string | null; code: string }
  | { type: 'blockquote'; text: string }
  | { type: 'image'; alt: string; url: string }
  | { type: 'thematic_break' };
