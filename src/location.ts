/**
 * Locations to open, as they arrive from untrusted places (window events,
 * command arguments).
 */
import { ILocation } from './types';

/** The name of the custom window event the kernel widgets dispatch. */
export const OPEN_EVENT = 'agent-brain:open';

/**
 * Validate an untrusted location (e.g. the detail of a window event): a
 * relative path without `..`, and optional non-negative integers.
 */
export function parseLocation(detail: unknown): ILocation | null {
  if (!detail || typeof detail !== 'object') {
    return null;
  }
  const { path, line, cell_index } = detail as Record<string, unknown>;
  if (typeof path !== 'string' || !path.trim()) {
    return null;
  }
  const clean = path.trim().replace(/\\/g, '/').replace(/^\.\//, '');
  if (clean.startsWith('/') || clean.split('/').includes('..')) {
    return null;
  }
  const count = (v: unknown) =>
    typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;
  return { path: clean, line: count(line), cell_index: count(cell_index) };
}
