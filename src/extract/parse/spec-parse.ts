// Builds a linkedom document with the WHATWG tree-construction rules (parse5), for pages whose skeleton linkedom's
// own parser gets wrong: content before <html>, elements between </head> and <body>, html/head/body twice.
import { DOMParser } from 'linkedom';
import { parse, type TreeAdapter, type TreeAdapterTypeMap, type Token, html as parse5Html } from 'parse5';

type LNode = Node & { data?: string };
type Map5 = TreeAdapterTypeMap<
  LNode,
  ParentNode & LNode,
  ChildNode & LNode,
  Document,
  DocumentFragment,
  Element,
  Comment,
  Text,
  HTMLTemplateElement,
  DocumentType
>;

const NS = parse5Html.NS;

function createAdapter(doc: Document): TreeAdapter<Map5> {
  const setAttributes = (el: Element, attrs: Token.Attribute[]) => {
    for (const a of attrs) {
      try {
        el.setAttribute(a.prefix ? `${a.prefix}:${a.name}` : a.name, a.value);
      } catch {
        // A name the DOM refuses (`"`, `<` in it) is dropped, as the browser's setAttribute would refuse it too.
      }
    }
  };
  return {
    createDocument: () => doc,
    createDocumentFragment: () => doc.createDocumentFragment(),
    createElement(tagName, namespaceURI, attrs) {
      const el = namespaceURI === NS.HTML ? doc.createElement(tagName) : doc.createElementNS(namespaceURI, tagName);
      setAttributes(el, attrs);
      return el;
    },
    createCommentNode: (data) => doc.createComment(data),
    createTextNode: (value) => doc.createTextNode(value),
    appendChild: (parent, node) => void parent.appendChild(node),
    insertBefore: (parent, node, reference) => void parent.insertBefore(node, reference),
    setTemplateContent: (template, content) => void template.appendChild(content),
    getTemplateContent: (template) => template as unknown as DocumentFragment,
    setDocumentType: () => undefined,
    setDocumentMode: () => undefined,
    getDocumentMode: () => 'no-quirks' as never,
    detachNode: (node) => void node.parentNode?.removeChild(node),
    insertText(parent, text) {
      const last = parent.lastChild;
      if (last && last.nodeType === 3) (last as Text).data += text;
      else parent.appendChild(doc.createTextNode(text));
    },
    insertTextBefore(parent, text, reference) {
      const previous = reference.previousSibling;
      if (previous && previous.nodeType === 3) (previous as Text).data += text;
      else parent.insertBefore(doc.createTextNode(text), reference);
    },
    adoptAttributes(recipient, attrs) {
      for (const a of attrs) if (!recipient.hasAttribute(a.name)) recipient.setAttribute(a.name, a.value);
    },
    getFirstChild: (node) => node.firstChild,
    getChildNodes: (node) => [...node.childNodes] as (ChildNode & LNode)[],
    getParentNode: (node) => node.parentNode,
    getAttrList: (el) => [...el.attributes].map((a) => ({ name: a.name, value: a.value })),
    getTagName: (el) => el.tagName.toLowerCase(),
    getNamespaceURI: (el) => (el.namespaceURI ?? NS.HTML) as parse5Html.NS,
    getTextNodeContent: (node) => node.data,
    getCommentNodeContent: (node) => node.data,
    getDocumentTypeNodeName: (node) => node.name,
    getDocumentTypeNodePublicId: (node) => node.publicId,
    getDocumentTypeNodeSystemId: (node) => node.systemId,
    isTextNode: (node): node is Text => node.nodeType === 3,
    isCommentNode: (node): node is Comment => node.nodeType === 8,
    isDocumentTypeNode: (node): node is DocumentType => node.nodeType === 10,
    isElementNode: (node): node is Element => node.nodeType === 1,
    setNodeSourceCodeLocation: () => undefined,
    getNodeSourceCodeLocation: () => undefined,
    updateNodeSourceCodeLocation: () => undefined,
  };
}

/** An empty linkedom HTML document: the tree parse5 builds goes into it. */
function emptyDocument(): Document {
  const doc = new DOMParser().parseFromString('<!DOCTYPE html><html></html>', 'text/html') as unknown as Document;
  doc.documentElement.remove();
  return doc;
}

export function parseBySpec(html: string): Document {
  const doc = emptyDocument();
  return parse(html, { treeAdapter: createAdapter(doc), scriptingEnabled: false });
}
