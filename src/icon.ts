import { LabIcon } from '@jupyterlab/ui-components';

/** A magnifier over three linked nodes: search over a workspace graph. */
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <circle cx="5" cy="5" r="2.2"/>
    <circle cx="14" cy="4" r="2.2"/>
    <circle cx="6" cy="14" r="2.2"/>
    <path d="M6.6 5.2l5.2-.9.3 1.6-5.2.9zM5.3 7h1.4v5H5.3z"/>
    <path d="M15.5 11a4.5 4.5 0 1 0 2.6 8.2l3.2 3.2 1.4-1.4-3.2-3.2A4.5 4.5 0 0 0 15.5 11zm0 2a2.5 2.5 0 1 1 0 5 2.5 2.5 0 0 1 0-5z"/>
  </g>
</svg>`;

export const brainIcon = new LabIcon({
  name: 'agent-brain-lab:brain',
  svgstr: svg
});
