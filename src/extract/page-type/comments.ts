// On a forum, comment-named blocks are the thread's posts and stay. On a question with answers (Q&A sites), the
// comments under the question and under each answer are asides: short remarks that readers of the page skip.

/** A comment section's name (`comments`, `comment-list`, `comment_text`): chrome on an article, posts on a forum. */
export const COMMENT_NAMES = /(?:^|\s)comments?(?:$|[-_\s])/i;

/** A post that microdata declares a question or an answer: comments inside it are remarks on it. */
const POST_ITEMTYPES = '[itemtype*="schema.org/Question"], [itemtype*="schema.org/Answer"]';

/** True when el (a comment-named block) sits inside a declared question or answer. */
export function isCommentOnPost(el: Element): boolean {
  return el.parentElement?.closest(POST_ITEMTYPES) != null;
}
