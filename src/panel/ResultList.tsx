/**
 * The result list: keyboard navigable (arrows move, Enter opens).
 */
import * as React from 'react';

import { fusionHelp } from '../scores';
import { useTrans } from '../trans';
import { IQueryResponse, IQueryResult } from '../types';
import { ResultItem } from './ResultItem';

export interface IResultListProps {
  response: IQueryResponse;
  onOpen: (result: IQueryResult) => void;
}

export function ResultList(props: IResultListProps): JSX.Element {
  const trans = useTrans();
  const { response } = props;
  const [selected, setSelected] = React.useState(0);
  const items = React.useRef<(HTMLLIElement | null)[]>([]);
  const fusion = response.fusion_note;
  const coverage = response.coverage_note;
  const filters = response.filter_note;

  React.useEffect(() => setSelected(0), [response]);

  const move = (index: number) => {
    const next = Math.max(0, Math.min(index, response.results.length - 1));
    setSelected(next);
    items.current[next]?.focus();
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      move(selected + (event.key === 'ArrowDown' ? 1 : -1));
    } else if (event.key === 'Enter' && response.results[selected]) {
      event.preventDefault();
      props.onOpen(response.results[selected]);
    }
  };

  return (
    <div className="jp-AgentBrain-results">
      <div className="jp-AgentBrain-summary">
        {trans._n('%1 result', '%1 results', response.results.length)} ·{' '}
        {response.mode} · {response.query_time_ms.toFixed(0)} ms
        {response.query_entities.length > 0 && (
          <> · {trans.__('entities: %1', response.query_entities.join(', '))}</>
        )}
      </div>
      {fusion && (
        <div className="jp-AgentBrain-fusion" title={fusionHelp(trans)}>
          {fusion}
        </div>
      )}
      {coverage && (
        <div className="jp-AgentBrain-coverage" role="status">
          {coverage}
        </div>
      )}
      {filters && (
        <div className="jp-AgentBrain-filters" role="status">
          {filters}
        </div>
      )}
      {response.fallback && (
        <div className="jp-AgentBrain-fallback" role="status">
          {trans.__('Fell back to %1', response.fallback)}
        </div>
      )}
      {response.results.length === 0 ? (
        <div className="jp-AgentBrain-empty">
          {trans.__('No results. Try another mode or fewer filters.')}
        </div>
      ) : (
        <ul
          className="jp-AgentBrain-resultList"
          role="listbox"
          onKeyDown={onKeyDown}
        >
          {response.results.map((result, i) => (
            <ResultItem
              key={result.chunk_id}
              result={result}
              mode={response.mode}
              selected={i === selected}
              onSelect={() => setSelected(i)}
              onOpen={props.onOpen}
              itemRef={el => (items.current[i] = el)}
            />
          ))}
        </ul>
      )}
    </div>
  );
}
