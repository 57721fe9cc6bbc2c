// File names made from URLs (`fetchdown crawl --out`): one per URL, from its path (and query), safe on every file
// system: no separators, no leading dot, no names that differ only in case, at most MAX_NAME characters.

const MAX_NAME = 120;

/** Letters and digits of any script, dots, dashes and underscores; anything else becomes one dash. */
const slug = (text: string) =>
  text
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/\.{2,}/g, '.');

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A namer of the files of one directory: `https://site/docs/intro` → `docs-intro.md`, `/` → `index.md`, a URL of
 * another host than the first one named gets its host in front; a name taken already gets `-2`, `-3`…
 */
export function createFileNamer(extension = '.md') {
  const taken = new Set<string>();
  let home: string | undefined;
  return (url: string): string => {
    const { host, pathname, search } = new URL(url);
    home ??= host;
    const parts = [host === home ? '' : host, decoded(pathname).replace(/\.html?$/i, ''), decoded(search.slice(1))];
    const base =
      slug(parts.filter(Boolean).join('/'))
        .slice(0, MAX_NAME)
        .replace(/[-.]+$/, '') || 'index';
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}`;
    taken.add(name.toLowerCase());
    return `${name}${extension}`;
  };
}
