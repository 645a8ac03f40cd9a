/**
 * Query box, mode switch and filters.
 */
import * as React from 'react';

import { ISearchOptions } from '../model';
import { Mode, MODES, SOURCE_TYPES } from '../types';

export const MODE_HINTS: Record<Mode, string> = {
  vector: 'Meaning: embedding similarity, finds paraphrases.',
  bm25: 'Keywords: exact terms and identifiers, ranked by BM25.',
  hybrid: 'Both: alpha blends normalised vector and BM25 scores.',
  graph: 'Relations: follows calls, imports and mentions of named entities.',
  multi: 'Consensus: RRF over the vector, BM25 and graph rankings.'
};

export interface ISearchFormProps {
  options: ISearchOptions;
  languages: string[];
  searching: boolean;
  onChange: (options: Partial<ISearchOptions>) => void;
  onSearch: () => void;
  /** ArrowDown in the query box: move into the results. */
  onLeaveDown: () => void;
}

function toggle(list: string[], value: string): string[] {
  return list.includes(value)
    ? list.filter(v => v !== value)
    : [...list, value];
}

export function SearchForm(props: ISearchFormProps): JSX.Element {
  const { options, onChange } = props;
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
          placeholder="Search the workspace…"
          aria-label="Search query"
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
          {props.searching ? '…' : 'Search'}
        </button>
      </div>
      <div
        className="jp-AgentBrain-modes"
        role="radiogroup"
        aria-label="Search mode"
      >
        {MODES.map(mode => (
          <label
            key={mode}
            title={MODE_HINTS[mode]}
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
      <div className="jp-AgentBrain-hint">{MODE_HINTS[options.mode]}</div>
      <div className="jp-AgentBrain-row">
        <label>
          top k{' '}
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
            title="1 = vector only, 0 = BM25 only"
          >
            alpha{' '}
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
        <summary>Filters{filterCount(options)}</summary>
        <fieldset>
          <legend>Source types</legend>
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
          <legend>Languages</legend>
          {props.languages.length === 0 && (
            <span className="jp-AgentBrain-muted">
              Index the workspace first.
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
          Paths{' '}
          <input
            className="jp-mod-styled"
            type="text"
            placeholder="src/**/*.py, docs/**"
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
