// Formulas as TeX between dollars (`$…$` inline, `$$…$$` display), the form GitHub and most Markdown renderers read:
// MathML (its TeX annotation, else its alttext, else a TeX rendering of its elements), KaTeX (whose MathML half holds
// the TeX; the visual half is aria-hidden and gone with Readability), MathJax 2's <script type="math/tex"> (which
// parse.ts keeps as a `data-math-tex` span) and Wikipedia's formula images, whose alt text is the TeX.
import { createVerbatim } from '../markdown/verbatim.js';

const TEX_ENCODING = /^(?:application\/x-tex|application\/x-latex|text\/x-tex|tex|latex)$/i;
/** Wikimedia renders each formula to an image at this path, alt text the TeX; other sites link to it too. */
const MATH_IMAGE = /\/media\/math\/render\//;

/** `{\displaystyle x}` is how Wikipedia wraps every annotation: the wrapper says nothing the `$$` does not. */
function tidyTex(tex: string): string {
  const trimmed = tex.trim();
  const wrapped = /^\{\\(?:displaystyle|textstyle)\s+([\s\S]*)\}$/.exec(trimmed);
  return (wrapped ? wrapped[1]! : trimmed).trim();
}

/** `$x$` or `$$x$$`; an inline formula is one line, a display one has no blank line (it would end the paragraph). */
function delimit(tex: string, display: boolean): string {
  return display ? `$$${tex.replace(/\n\s*\n/g, '\n')}$$` : `$${tex.replace(/\s*\n\s*/g, ' ')}$`;
}

function childrenTex(el: Element): string[] {
  return Array.from(el.children).map(mathmlToTex);
}

/** Braces around anything longer than one character, so `x^{10}` is not `x^10`. */
function group(tex: string): string {
  return tex.length === 1 ? tex : `{${tex}}`;
}

/** TeX for presentation MathML without an annotation (MathJax 3's assistive copy, hand-written pages). */
function mathmlToTex(el: Element): string {
  const tag = el.localName.toLowerCase();
  const parts = childrenTex(el);
  const [a = '', b = '', c = ''] = parts;
  switch (tag) {
    case 'mi':
    case 'mn':
    case 'mo':
      return (el.textContent ?? '').trim();
    case 'mtext':
      return `\\text{${(el.textContent ?? '').trim()}}`;
    case 'mspace':
      return ' ';
    case 'msup':
      return `${group(a)}^${group(b)}`;
    case 'msub':
      return `${group(a)}_${group(b)}`;
    case 'msubsup':
      return `${group(a)}_${group(b)}^${group(c)}`;
    case 'mover':
      return `${group(a)}^${group(b)}`;
    case 'munder':
      return `${group(a)}_${group(b)}`;
    case 'munderover':
      return `${group(a)}_${group(b)}^${group(c)}`;
    case 'mfrac':
      return `\\frac{${a}}{${b}}`;
    case 'msqrt':
      return `\\sqrt{${parts.join('')}}`;
    case 'mroot':
      return `\\sqrt[${b}]{${a}}`;
    case 'mfenced':
      return `${el.getAttribute('open') ?? '('}${parts.join(el.getAttribute('separators') ?? ',')}${el.getAttribute('close') ?? ')'}`;
    case 'mtable':
      return `\\begin{matrix} ${parts.join(' \\\\ ')} \\end{matrix}`;
    case 'mtr':
      return parts.join(' & ');
    case 'annotation':
    case 'annotation-xml':
    case 'mphantom':
      return '';
    case 'semantics':
      return a;
    default:
      return parts.join('');
  }
}

function texOf(math: Element): string {
  for (const annotation of Array.from(math.querySelectorAll('annotation'))) {
    if (TEX_ENCODING.test(annotation.getAttribute('encoding') ?? '')) return tidyTex(annotation.textContent ?? '');
  }
  const alt = math.getAttribute('alttext');
  if (alt?.trim()) return tidyTex(alt);
  return mathmlToTex(math).replace(/\s+/g, ' ').trim();
}

/** Wikipedia puts a formula's image right after the span holding its MathML: one copy is enough. */
function removeImageTwin(math: Element): void {
  const twin = math.parentElement?.nextElementSibling;
  if (twin?.tagName === 'IMG' && MATH_IMAGE.test(twin.getAttribute('src') ?? '')) twin.remove();
}

export function rewriteMath(root: Element): void {
  const doc = root.ownerDocument;
  for (const math of Array.from(root.querySelectorAll('math'))) {
    if (!root.contains(math)) continue;
    const tex = texOf(math);
    removeImageTwin(math);
    const display = math.getAttribute('display') === 'block' || math.getAttribute('mode') === 'display';
    if (tex) math.replaceWith(createVerbatim(doc, delimit(tex, display)));
    else math.remove();
  }
  for (const script of Array.from(root.querySelectorAll('[data-math-tex]'))) {
    const tex = tidyTex(script.textContent ?? '');
    // MathJax 2 renders each script into the element with its id plus "-Frame", just before it.
    const frameId = script.getAttribute('data-math-tex-for');
    if (frameId && /^[\w:.-]{1,100}$/.test(frameId)) root.querySelector(`[id="${frameId}-Frame"]`)?.remove();
    if (tex) script.replaceWith(createVerbatim(doc, delimit(tex, script.getAttribute('data-math-tex') === 'display')));
    else script.remove();
  }
  for (const img of Array.from(root.querySelectorAll('img'))) {
    const alt = img.getAttribute('alt')?.trim();
    if (alt && MATH_IMAGE.test(img.getAttribute('src') ?? ''))
      img.replaceWith(createVerbatim(doc, delimit(tidyTex(alt), false)));
  }
}
