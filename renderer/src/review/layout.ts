// Side by side or unified, and soft wrap: the person's choice, else what fits the window.

export type Layout = 'split' | 'unified';
export type LayoutChoice = 'auto' | Layout;

/**
 * Below this width of the diff area two panes get too narrow to read (under ~50 columns each),
 * so the diff shows unified unless the person chose otherwise (VS Code switches at 900 px of
 * its diff editor; Patchbay's panel has no minimap or margins to spare).
 */
export const NARROW_PANEL_PX = 800;

export function layoutFor(choice: LayoutChoice, panelWidth: number): Layout {
  if (choice !== 'auto') return choice;
  return panelWidth > 0 && panelWidth < NARROW_PANEL_PX ? 'unified' : 'split';
}

/**
 * The choice after the layout key (v): from automatic, the layout automatic does not show;
 * from a layout chosen by hand, back to automatic (which follows the window's width).
 */
export function toggled(choice: LayoutChoice, automatic: Layout): LayoutChoice {
  if (choice !== 'auto') return 'auto';
  return automatic === 'split' ? 'unified' : 'split';
}

export function parseChoice(stored: string | null): LayoutChoice {
  return stored === 'split' || stored === 'unified' ? stored : 'auto';
}
