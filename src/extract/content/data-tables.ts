// Readability removes any element whose class or id reads as chrome (`header`, `footer`, `menu`, `sidebar`, …) before
// it scores the page, tables included: a list page's table of entries styled `sticky-header` went with its header.

/** Takes class and id off the tables with header cells under root, so Readability judges them as the data they are. */
export function unnameDataTables(root: Element): void {
  for (const table of root.querySelectorAll('table')) {
    if (!table.querySelector('th')) continue;
    table.removeAttribute('class');
    table.removeAttribute('id');
  }
}
