// The names of the `links` and `images` styles and the default, apart from the restyling (link-style.ts) so the
// contract's schemas can list them without loading the Markdown lexer.
export const LINK_STYLES = ['inline', 'reference', 'none'] as const;
export type LinkStyle = (typeof LINK_STYLES)[number];
export const IMAGE_STYLES = ['keep', 'none'] as const;
export type ImageStyle = (typeof IMAGE_STYLES)[number];

export interface MarkdownStyle {
  links: LinkStyle;
  images: ImageStyle;
}

export const DEFAULT_STYLE: MarkdownStyle = Object.freeze({ links: 'inline', images: 'keep' });

export function isDefaultStyle(style: MarkdownStyle): boolean {
  return style.links === 'inline' && style.images === 'keep';
}
