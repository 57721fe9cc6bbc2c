// What a cursor tells the agent holding it: the rendering it reads on in, which the next call must repeat with it (the
// MCP tools' results say so). The cursor itself stays the fetch service's (src/services/cursor.ts).
import { decodeCursor, type Cursor } from '../services/cursor.js';

/** The format and style a cursor reads on in; undefined when this version cannot read it. */
export function cursorRendering(cursor: string): Pick<Cursor, 'format' | 'style'> | undefined {
  try {
    const { format, style } = decodeCursor(cursor);
    return { format, style };
  } catch {
    return undefined;
  }
}
