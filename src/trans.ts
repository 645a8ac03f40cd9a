/**
 * The translation bundle every user-facing string goes through (`trans.__`).
 *
 * The plugin loads the bundle from JupyterLab's ITranslator; code that runs
 * without one (tests, a missing translator) uses the untranslated bundle.
 */
import { nullTranslator, TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';

/** The gettext domain of this extension's strings. */
export const DOMAIN = 'agent_brain_lab';

/** English, unchanged: the bundle when no translator is available. */
export const NULL_TRANS: TranslationBundle = nullTranslator.load(DOMAIN);

/** The bundle for the panel's React components. */
export const TransContext = React.createContext<TranslationBundle>(NULL_TRANS);

export function useTrans(): TranslationBundle {
  return React.useContext(TransContext);
}
