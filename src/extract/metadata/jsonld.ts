// JSON-LD (schema.org) blocks of a page → what they say about it: author, publication date, publisher, image.
// A block holds one node, an array of nodes or an @graph, and nodes refer to each other by @id (Yoast and most CMSs
// put the author and publisher in separate nodes). Malformed blocks are skipped, never thrown on.

/** The raw values, not yet cleaned: metadata.ts decodes, trims, bounds and resolves them like every other source. */
export interface JsonLdFacts {
  author: string[];
  datePublished: string | null;
  publisher: string | null;
  image: string | null;
}

type Node = Record<string, unknown>;

/** Bounds the work on a page that lists a whole catalogue in its JSON-LD. */
const MAX_NODES = 500;
/**
 * The nodes that describe the page's content, most specific first; the other types (products, breadcrumbs…) are
 * skipped.
 */
const CONTENT_TYPES = [/(?:Article|Posting|Report|Review)$|^(?:Recipe|HowTo)$/, /Page$/];

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const asString = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);

/** `<!--`, CDATA wrappers and raw control characters (newlines inside strings are common) break JSON.parse. */
function parseBlock(block: string): unknown {
  const json = block
    .replace(/^\s*(?:\/\/\s*)?(?:<!--|<!\[CDATA\[)/, '')
    .replace(/(?:\/\/\s*)?(?:-->|\]\]>)\s*$/, '')
    .replace(/[\u0000-\u001f]+/g, ' ');
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/** Top-level nodes and the members of every @graph, in page order. */
function collectNodes(value: unknown, into: Node[]): void {
  if (into.length >= MAX_NODES) return;
  if (Array.isArray(value)) {
    for (const item of value) collectNodes(item, into);
  } else if (isNode(value)) {
    into.push(value);
    if (value['@graph'] !== undefined) collectNodes(value['@graph'], into);
  }
}

/** "NewsArticle", "schema:NewsArticle", "https://schema.org/NewsArticle" and arrays of them. */
function typesOf(node: Node): string[] {
  const type = node['@type'];
  const types = Array.isArray(type) ? type : [type];
  return types
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.slice(Math.max(t.lastIndexOf('/'), t.lastIndexOf(':')) + 1));
}

/** Every @type named in the blocks (short names: `Product`, `QAPage`), for telling what kind of page this is. */
export function readJsonLdTypes(blocks: readonly string[]): Set<string> {
  const nodes: Node[] = [];
  for (const block of blocks) collectNodes(parseBlock(block), nodes);
  return new Set(nodes.flatMap(typesOf));
}

export function readJsonLd(blocks: readonly string[]): JsonLdFacts {
  const nodes: Node[] = [];
  for (const block of blocks) collectNodes(parseBlock(block), nodes);
  const byId = new Map<string, Node>();
  for (const node of nodes) {
    const id = asString(node['@id']);
    if (id && !byId.has(id)) byId.set(id, node);
  }
  /** A reference `{"@id": …}` → the node it names, when the page has it. */
  const resolve = (value: unknown): unknown => {
    const id = isNode(value) && value.name === undefined ? asString(value['@id']) : null;
    return (id && byId.get(id)) || value;
  };

  const names = (value: unknown, depth = 0): string[] => {
    const v = resolve(value);
    if (typeof v === 'string') return asString(v) ? [v] : [];
    if (Array.isArray(v)) return depth > 0 ? [] : v.flatMap((item) => names(item, depth + 1));
    if (!isNode(v)) return [];
    const name = asString(v.name) ?? [v.givenName, v.familyName].filter((part) => asString(part)).join(' ');
    return name ? [name] : [];
  };

  const imageUrl = (value: unknown, depth = 0): string | null => {
    const v = resolve(value);
    if (typeof v === 'string') return asString(v);
    if (Array.isArray(v)) return depth > 0 ? null : (v.map((item) => imageUrl(item, depth + 1)).find(Boolean) ?? null);
    return isNode(v) ? (asString(v.url) ?? asString(v.contentUrl)) : null;
  };

  const described = CONTENT_TYPES.map((pattern) =>
    nodes.find((node) => typesOf(node).some((type) => pattern.test(type))),
  ).filter(isNode);
  const first = <T>(read: (node: Node) => T | null): T | null => {
    for (const node of described) {
      const value = read(node);
      if (value !== null) return value;
    }
    return null;
  };
  const website = nodes.find((node) => typesOf(node).includes('WebSite'));
  return {
    author:
      first((node) => {
        const found = names(node.author ?? node.creator);
        return found.length ? found : null;
      }) ?? [],
    datePublished: first((node) => asString(node.datePublished) ?? asString(node.dateCreated)),
    publisher: first((node) => names(node.publisher)[0] ?? null) ?? (website ? asString(website.name) : null),
    image: first((node) => imageUrl(node.image) ?? imageUrl(node.primaryImageOfPage) ?? asString(node.thumbnailUrl)),
  };
}

/** schema.org types of a news story or a blog post (page-type.ts, landing.ts). */
export const ARTICLE_TYPES = /^(?:News|Blog|Report|Tech|Scholarly)?(?:Article|Posting)$/;

/** schema.org types of one item for sale (page-type.ts tells a product page by them). */
export const PRODUCT_TYPES = /^(?:Product|ProductGroup|IndividualProduct)$/;

/** The description of the page's first JSON-LD product (raw: it may hold HTML and entities), if it has one. */
export function readProductDescription(blocks: readonly string[]): string | null {
  const nodes: Node[] = [];
  for (const block of blocks) collectNodes(parseBlock(block), nodes);
  const product = nodes.find((node) => typesOf(node).some((type) => PRODUCT_TYPES.test(type)));
  return product ? asString(product.description) : null;
}
