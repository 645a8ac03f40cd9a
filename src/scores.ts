/**
 * How the panel shows a result's score. Everything else a person reads about
 * a result (its location, anchor, focus line, leg labels, multi's fusion note,
 * the coverage note) comes written from the engine (engine/labels.py).
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { NULL_TRANS } from './trans';

export function formatScore(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

/** The tooltip explaining the engine's fusion note. */
export function fusionHelp(trans: TranslationBundle = NULL_TRANS): string {
  return trans.__(
    'multi first works out what kind of question this is, then fuses three rankings: meaning and keywords (the hybrid blend), code relations (the graph) and symbol names the query spells out. The weights say how much each counted for this query: 0 means ignored.'
  );
}
