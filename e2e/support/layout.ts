import type { Locator, Page } from 'playwright-core';

/**
 * Whether a person sees the element whole, without scrolling sideways: inside the viewport and inside every
 * scrolling ancestor's visible box, and not covered (a pinned column) at its middle. Returns the reason otherwise.
 */
export async function visibleProblem(target: Locator): Promise<string> {
  return target.evaluate((el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return 'not displayed';
    if (r.left < 0 || r.right > window.innerWidth + 0.5) return `outside the viewport (${r.left}-${r.right})`;
    for (let p = el.parentElement; p; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (!/(auto|scroll|hidden)/.test(style.overflowX)) continue;
      const b = p.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5)
        return `scrolled out of its container (${r.left}-${r.right} outside ${b.left}-${b.right})`;
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(el === hit || el.contains(hit) || hit.contains(el)))
      return `covered by ${hit?.className || hit?.tagName}`;
    return '';
  });
}

/** The header cell of a table column, by its title. */
export const headerCell = (page: Page, title: string | RegExp) =>
  page.locator('.ant-table-thead th').filter({ hasText: title }).first();
