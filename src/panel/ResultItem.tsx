/**
 * One search hit: where it is, why it matched, and a highlighted snippet.
 */
import * as React from 'react';

import { segments, snippet } from '../highlight';
import { formatScore } from '../scores';
import { useTrans } from '../trans';
import { IQueryResult, Mode } from '../types';

export interface IResultItemProps {
  result: IQueryResult;
  mode: Mode;
  selected: boolean;
  onOpen: (result: IQueryResult) => void;
  onSelect: () => void;
  itemRef?: (el: HTMLLIElement | null) => void;
}

/** The snippet, with the engine's highlights in <mark>; React escapes every text node. */
export function Snippet(props: {
  text: string;
  highlights: number[][];
}): JSX.Element {
  const window = snippet(props.text, props.highlights);
  return (
    <pre className="jp-AgentBrain-snippet">
      {segments(window.text, window.ranges).map((s, i) =>
        s.match ? (
          <mark key={i}>{s.text}</mark>
        ) : (
          <React.Fragment key={i}>{s.text}</React.Fragment>
        )
      )}
    </pre>
  );
}

/** A path that wraps only after a `/` (never mid-word); the CSS adds the ellipsis. */
export function PathText(props: { path: string }): JSX.Element {
  const parts = props.path.split('/');
  return (
    <>
      {parts.map((part, i) => (
        <React.Fragment key={i}>
          {part}
          {i < parts.length - 1 && (
            <>
              /<wbr />
            </>
          )}
        </React.Fragment>
      ))}
    </>
  );
}

export function ResultItem(props: IResultItemProps): JSX.Element {
  const trans = useTrans();
  const { result, mode } = props;
  const { anchor, legs, location } = result;
  return (
    <li
      ref={props.itemRef}
      className={
        'jp-AgentBrain-result' + (props.selected ? ' jp-mod-selected' : '')
      }
      tabIndex={props.selected ? 0 : -1}
      role="option"
      aria-selected={props.selected}
      data-path={result.source}
      data-line={result.focus_line}
      data-cell={result.cell_index ?? undefined}
      onClick={() => {
        props.onSelect();
        props.onOpen(result);
      }}
      onFocus={props.onSelect}
    >
      <div className="jp-AgentBrain-resultHead">
        <span className="jp-AgentBrain-location" title={location}>
          <PathText path={location} />
        </span>
        <span
          className="jp-AgentBrain-score"
          title={trans.__('%1 score', mode)}
        >
          {formatScore(result.score)}
        </span>
      </div>
      <div className="jp-AgentBrain-resultMeta">
        {anchor && <span className="jp-AgentBrain-anchor">{anchor}</span>}
        <span className="jp-AgentBrain-badge" data-kind="language">
          {result.language}
        </span>
        <span className="jp-AgentBrain-badge" data-kind="source-type">
          {result.source_type}
        </span>
        {legs.map(l => (
          <span
            key={l.leg}
            className="jp-AgentBrain-leg"
            data-leg={l.leg}
            data-missing={l.missing ? 'true' : undefined}
            title={
              l.missing
                ? trans.__(
                    'This chunk has no vector yet: it was ranked by its keywords alone.'
                  )
                : undefined
            }
          >
            {l.label}
          </span>
        ))}
      </div>
      {result.relationship_path.length > 0 && (
        <div
          className="jp-AgentBrain-relpath"
          title={trans.__('Relationship path')}
        >
          {result.relationship_path.join(' ')}
        </div>
      )}
      <Snippet text={result.text} highlights={result.highlights ?? []} />
    </li>
  );
}
