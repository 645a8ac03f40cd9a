/**
 * Query box, mode switch and filters.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';

import { fieldLabel, ISearchNotice, ISearchOptions } from '../model';
import { NULL_TRANS, useTrans } from '../trans';
import { Mode, MODES, SOURCE_TYPES } from '../types';

/** What each mode does, in the words of the README's mode table. */
export function modeHint(
  mode: Mode,
  trans: TranslationBundle = NULL_TRANS
): string {
  switch (mode) {
    case 'vector':
      return trans.__('Meaning: embedding similarity, finds paraphrases.');
    case 'bm25':
      return trans.__('Keywords: exact terms and identifiers, ranked by BM25.');
    case 'hybrid':
      return trans.__(
        'Both: alpha blends normalised meaning (vector) and keyword (BM25) scores.'
      );
    case 'graph':
      return trans.__(
        'Relations: follows calls, imports and mentions of named entities.'
      );
    case 'multi':
      return trans.__(
        'Any question: works out what kind of question it is, then weighs meaning and keywords, code relations and symbol names to suit it (relation questions follow the graph, prose the meaning and keywords).'
      );
  }
}

export interface ISearchFormProps {
  options: ISearchOptions;
  languages: string[];
  /** Whether a published index exists (the Languages filter lists its languages). */
  indexed: boolean;
  /** Why the last search showed nothing, said where it applies. */
  notice: ISearchNotice | null;
  searching: boolean;
  onChange: (options: Partial<ISearchOptions>) => void;
  onSearch: () => void;
  /** ArrowDown in the query box: move into the results. */
  onLeaveDown: () => void;
}

function toggle<T>(list: T[], value: T): T[] {
  return list.includes(value)
    ? list.filter(v => v !== value)
    : [...list, value];
}

export function SearchForm(props: ISearchFormProps): JSX.Element {
  const trans = useTrans();
  const { options, onChange, notice } = props;
  const pathsInvalid =
    notice?.kind === 'invalid' && notice.field === 'file_paths';
  return (
    <form
      className="jp-AgentBrain-search"
      onSubmit={event => {
        event.preventDefault();
        props.onSearch();
      }}
    >
      <div className="jp-AgentBrain-queryRow">
        <input
          className="jp-AgentBrain-query jp-mod-styled"
          type="search"
          placeholder={trans.__('Search the workspace…')}
          aria-label={trans.__('Search query')}
          value={options.query}
          onChange={e => onChange({ query: e.target.value })}
          onKeyDown={e => {
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              props.onLeaveDown();
            }
          }}
        />
        <button
          type="submit"
          className="jp-mod-styled jp-mod-accept"
          disabled={props.searching}
        >
          {props.searching ? '…' : trans.__('Search')}
        </button>
      </div>
      <div
        className="jp-AgentBrain-modes"
        role="radiogroup"
        aria-label={trans.__('Search mode')}
      >
        {MODES.map(mode => (
          <label
            key={mode}
            title={modeHint(mode, trans)}
            className={
              'jp-AgentBrain-mode' +
              (mode === options.mode ? ' jp-mod-active' : '')
            }
          >
            <input
              type="radio"
              name="jp-AgentBrain-mode"
              value={mode}
              checked={mode === options.mode}
              onChange={() => onChange({ mode })}
            />
            {mode}
          </label>
        ))}
      </div>
      <div className="jp-AgentBrain-hint">{modeHint(options.mode, trans)}</div>
      {notice && (
        <div
          className="jp-AgentBrain-notice"
          data-kind={notice.kind}
          role="status"
        >
          {notice.message}
        </div>
      )}
      <div className="jp-AgentBrain-row">
        <label>
          {trans.__('top k')}{' '}
          <input
            className="jp-AgentBrain-topK jp-mod-styled"
            type="number"
            min={1}
            max={100}
            value={options.topK}
            onChange={e => {
              const topK = Number.parseInt(e.target.value, 10);
              if (topK >= 1 && topK <= 100) {
                onChange({ topK });
              }
            }}
          />
        </label>
        {options.mode === 'hybrid' && (
          <label
            className="jp-AgentBrain-alpha"
            title={trans.__('1 = vector only, 0 = BM25 only')}
          >
            {trans.__('alpha')}{' '}
            <input
              type="range"
              min={0}
              max={1}
              step={0.05}
              value={options.alpha}
              onChange={e => onChange({ alpha: Number(e.target.value) })}
            />
            <span>{options.alpha.toFixed(2)}</span>
          </label>
        )}
      </div>
      <details className="jp-AgentBrain-filters">
        <summary>
          {trans.__('Filters')}
          {filterCount(options)}
        </summary>
        <fieldset>
          <legend>{trans.__('Source types')}</legend>
          {SOURCE_TYPES.map(type => (
            <label key={type}>
              <input
                type="checkbox"
                checked={options.sourceTypes.includes(type)}
                onChange={() =>
                  onChange({ sourceTypes: toggle(options.sourceTypes, type) })
                }
              />
              {type}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>{fieldLabel('languages', trans)}</legend>
          {props.languages.length === 0 && (
            <span className="jp-AgentBrain-muted">
              {props.indexed
                ? trans.__('No language detected.')
                : trans.__('Index the workspace first.')}
            </span>
          )}
          {props.languages.map(language => (
            <label key={language}>
              <input
                type="checkbox"
                checked={options.languages.includes(language)}
                onChange={() =>
                  onChange({ languages: toggle(options.languages, language) })
                }
              />
              {language}
            </label>
          ))}
        </fieldset>
        <label className="jp-AgentBrain-paths">
          {trans.__('Paths')}{' '}
          <input
            className={
              'jp-mod-styled' + (pathsInvalid ? ' jp-AgentBrain-invalid' : '')
            }
            type="text"
            placeholder="src/**/*.py, docs/**"
            title={trans.__(
              'Comma-separated globs relative to the workspace root; ** matches any folders.'
            )}
            aria-invalid={pathsInvalid}
            value={options.paths}
            onChange={e => onChange({ paths: e.target.value })}
          />
        </label>
      </details>
    </form>
  );
}

function filterCount(options: ISearchOptions): string {
  const n =
    options.sourceTypes.length +
    options.languages.length +
    (options.paths.trim() ? 1 : 0);
  return n ? ` (${n})` : '';
}
