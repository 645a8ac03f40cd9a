/**
 * The side panel: a ReactWidget that re-renders whenever the model changes.
 */
import { ReactWidget, UseSignal } from '@jupyterlab/ui-components';
import * as React from 'react';

import { BrainModel } from '../model';
import { IQueryResult } from '../types';
import { IndexSection } from './IndexSection';
import { ResultList } from './ResultList';
import { SearchForm } from './SearchForm';

export class BrainPanel extends ReactWidget {
  constructor(
    readonly model: BrainModel,
    private readonly _open: (result: IQueryResult) => void
  ) {
    super();
    this.addClass('jp-AgentBrain-panel');
  }

  /** Put the cursor in the query box. */
  focusQuery(): void {
    this.node.querySelector<HTMLInputElement>('.jp-AgentBrain-query')?.focus();
  }

  protected render(): JSX.Element {
    const model = this.model;
    return (
      <UseSignal signal={model.changed}>
        {() => (
          <div className="jp-AgentBrain-body">
            <IndexSection
              status={model.status}
              job={model.job}
              onIndex={() => void model.index()}
              onCancel={() => void model.cancel()}
            />
            <SearchForm
              options={model.options}
              languages={Object.keys(model.status?.files.by_language ?? {}).sort()}
              searching={model.searching}
              onChange={options => model.setOptions(options)}
              onSearch={() => void model.search()}
            />
            {model.response && (
              <ResultList response={model.response} onOpen={this._open} />
            )}
          </div>
        )}
      </UseSignal>
    );
  }
}
