// Some thread engines (old reddit) wrap each post's text in a <form> for in-place editing, with no field to fill
// until a script adds one. A short form is a search or login box elsewhere (boilerplate.ts), and Readability removes
// forms it finds link-dense; on a forum a form without a visible field is the post it holds.

import { holdsMarkedPost } from './bylines.js';
import { holdsMostOfPage } from '../page-share.js';

/** A field a visitor fills or presses: a search or login box has at least one. */
const FIELDS = 'input:not([type="hidden"]), textarea, select, button';

export function isFieldlessForm(el: Element): boolean {
  return el.tagName === 'FORM' && el.querySelector(FIELDS) === null;
}

/** Turns the fieldless forms under root into <div>s, so Readability weighs their text as any other block's. */
export function unwrapFieldlessForms(root: Element): void {
  for (const form of [...root.querySelectorAll('form')]) {
    if (!isFieldlessForm(form)) continue;
    const div = form.ownerDocument.createElement('div');
    for (const name of ['class', 'id']) {
      const value = form.getAttribute(name);
      if (value !== null) div.setAttribute(name, value);
    }
    while (form.firstChild) div.appendChild(form.firstChild);
    form.replaceWith(div);
  }
}

/**
 * On a thread, a form with a field to fill is the reply box (its editor's help, "Post as a guest"), a search or a
 * login, whatever its length; one holding posts (bylines.ts marked them) or most of the page wraps the thread for
 * inline moderation, and stays.
 */
export function isThreadForm(el: Element): boolean {
  return el.tagName === 'FORM' && !isFieldlessForm(el) && !holdsMarkedPost(el) && !holdsMostOfPage(el);
}

/** Removes the forms under root that isThreadForm tells apart from posts. */
export function removeThreadForms(root: Element): void {
  for (const form of [...root.querySelectorAll('form')]) if (isThreadForm(form)) form.remove();
}
