/**
 * The status bar item: what is indexed, how much semantic search sees, the
 * running job; a click opens the panel.
 */
import { ReactWidget, UseSignal } from '@jupyterlab/ui-components';
import * as React from 'react';

import { BrainModel } from './model';
import { statusBarText } from './progress';

export class BrainStatusItem extends ReactWidget {
  constructor(
    private readonly _model: BrainModel,
    private readonly _onClick: () => void
  ) {
    super();
    this.addClass('jp-AgentBrain-statusItem');
    this.addClass('jp-mod-highlighted');
  }

  protected render(): JSX.Element {
    const model = this._model;
    const trans = model.trans;
    return (
      <UseSignal signal={model.changed}>
        {() => (
          <span
            className="jp-StatusBar-TextItem"
            role="button"
            tabIndex={0}
            title={trans.__('Agent Brain: click to open the search panel')}
            onClick={this._onClick}
            onKeyDown={event => {
              if (event.key === 'Enter' || event.key === ' ') {
                event.preventDefault();
                this._onClick();
              }
            }}
          >
            {model.unavailable
              ? trans.__('Brain: server extension missing')
              : statusBarText(model.status, model.job, trans)}
          </span>
        )}
      </UseSignal>
    );
  }
}
