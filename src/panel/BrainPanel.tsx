/**
 * The side panel: a ReactWidget that re-renders whenever the model changes.
 */
import { ReactWidget, UseSignal } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
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

  /** Another client (CLI, kernel, save hook) may have re-indexed meanwhile. */
  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    void this.model.refreshStatus();
  }

  /** Put the cursor in the query box. */
  focusQuery(): void {
    this.node.querySelector<HTMLInputElement>('.jp-AgentBrain-query')?.focus();
  }

  /** Move the focus to the selected result (the first one after a search). */
  focusResult(): void {
    this.node
      .querySelector<HTMLElement>('.jp-AgentBrain-result.jp-mod-selected')
      ?.focus();
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
              languages={Object.keys(
                model.status?.files.by_language ?? {}
              ).sort()}
              searching={model.searching}
              onChange={options => model.setOptions(options)}
              onSearch={() => void model.search()}
              onLeaveDown={() => this.focusResult()}
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
