// Plain text without Markdown syntax, rendered from the same typed blocks as format=json so the two always agree.
import type { DocumentBlock } from './blocks.js';

function renderListText(list: Extract<DocumentBlock, { type: 'list' }>, indent: string): string {
  return list.items
    .map((item, i) => {
      const marker = list.ordered ? `${(list.start ?? 1) + i}. ` : '- ';
      const children = [...(item.children ?? [])];
      // An item that opens with a block (a card's heading) shows that block on the marker's line, not alone below it.
      const opening = item.text.trim() === '' && children[0] && children[0].type !== 'list';
      const text = opening ? renderBlocksAsText([children.shift()!]) : item.text;
      const lines = [indent + marker + text.replace(/\n/g, `\n${indent}  `)];
      for (const child of children) {
        lines.push(
          child.type === 'list'
            ? renderListText(child, indent + '  ')
            : renderBlocksAsText([child]).replace(/^/gm, indent + '  '),
        );
      }
      return lines.join('\n');
    })
    .join('\n');
}

/** Blocks → plain text: no Markdown syntax, tab-separated table cells, code as is, images left out. */
export function renderBlocksAsText(blocks: DocumentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'heading':
      case 'paragraph':
      case 'blockquote':
        parts.push(block.text);
        break;
      case 'list':
        parts.push(renderListText(block, ''));
        break;
      case 'table':
        // A cell's line breaks (`<br>`) are spaces here: a newline would start a row.
        parts.push(
          [block.header, ...block.rows]
            .map((row) => row.map((cell) => cell.replace(/\s*\n\s*/g, ' ')).join('\t'))
            .join('\n'),
        );
        break;
      case 'code':
        parts.push(block.code);
        break;
      default:
        break;
    }
  }
  return parts.filter((part) => part.trim() !== '').join('\n\n');
}
