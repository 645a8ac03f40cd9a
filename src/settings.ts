/**
 * The user settings of schema/plugin.json, read defensively.
 */
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';

import type { BrainModel } from './model';
import { Mode, MODES } from './types';

export interface IPanelSettings {
  defaultMode: Mode;
  topK: number;
  alpha: number;
  autoReindexOnSave: boolean;
}

/** Must match the defaults of schema/plugin.json (a test checks). */
export const DEFAULT_SETTINGS: IPanelSettings = {
  defaultMode: 'multi',
  topK: 10,
  alpha: 0.6,
  autoReindexOnSave: true
};

function inRange(value: unknown, low: number, high: number): value is number {
  return typeof value === 'number' && value >= low && value <= high;
}

/** Settings with each invalid or missing value replaced by its default. */
export function readSettings(
  composite: ReadonlyPartialJSONObject
): IPanelSettings {
  const { defaultMode, topK, alpha, autoReindexOnSave } = composite;
  return {
    defaultMode: MODES.includes(defaultMode as Mode)
      ? (defaultMode as Mode)
      : DEFAULT_SETTINGS.defaultMode,
    topK:
      inRange(topK, 1, 100) && Number.isInteger(topK)
        ? topK
        : DEFAULT_SETTINGS.topK,
    alpha: inRange(alpha, 0, 1) ? alpha : DEFAULT_SETTINGS.alpha,
    autoReindexOnSave:
      typeof autoReindexOnSave === 'boolean'
        ? autoReindexOnSave
        : DEFAULT_SETTINGS.autoReindexOnSave
  };
}

export function applySettings(
  model: BrainModel,
  settings: IPanelSettings
): void {
  model.setOptions({
    mode: settings.defaultMode,
    topK: settings.topK,
    alpha: settings.alpha
  });
}
