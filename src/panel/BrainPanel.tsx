/**
 * The side panel: a ReactWidget that re-renders whenever the model changes.
 */
import { ReactWidget, UseSignal } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import * as React from 'react';

import { BrainModel } from '../model';
import { hasIndex } from '../progress';
import { TransContext } from '../trans';
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
      <TransContext.Provider value={model.trans}>
        <UseSignal signal={model.changed}>
          {() => (model.unavailable ? <ServerMissing /> : this._body())}
        </UseSignal>
      </TransContext.Provider>
    );
  }

  private _body(): JSX.Element {
    const model = this.model;
    return (
      <div className="jp-AgentBrain-body">
        <IndexSection
          status={model.status}
          job={model.job}
          lastEnded={model.lastEnded}
          onIndex={() => void model.index()}
          onCancel={() => void model.cancel()}
        />
        <SearchForm
          options={model.options}
          languages={Object.keys(model.status?.files.by_language ?? {}).sort()}
          indexed={hasIndex(model.status)}
          notice={model.notice}
          searching={model.searching}
          onChange={options => model.setOptions(options)}
          onSearch={() => void model.search()}
          onLeaveDown={() => this.focusResult()}
        />
        {model.response && (
          <ResultList response={model.response} onOpen={this._open} />
        )}
      </div>
    );
  }
}

/** The one message when the server part does not answer (no toasts per request). */
export function ServerMissing(): JSX.Element {
  const trans = React.useContext(TransContext);
  return (
    <div className="jp-AgentBrain-body">
      <div className="jp-AgentBrain-serverMissing" role="alert">
        <p>
          <b>{trans.__('The Agent Brain server extension is not running.')}</b>
        </p>
        <p>
          {trans.__(
            'The panel is installed but the Jupyter server does not answer its requests, so it cannot index or search. Check that agent_brain_lab is listed as enabled and OK by:'
          )}
        </p>
        <pre>jupyter server extension list</pre>
        <p>
          {trans.__(
            'If it is missing, install agent-brain-lab into the Python environment that runs Jupyter. If it is disabled, enable it:'
          )}
        </p>
        <pre>jupyter server extension enable agent_brain_lab</pre>
        <p>{trans.__('Then restart JupyterLab.')}</p>
      </div>
    </div>
  );
}
