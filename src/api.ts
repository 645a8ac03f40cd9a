/**
 * Client for the server extension's REST API (see REST contract in the README).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { TranslationBundle } from '@jupyterlab/translation';

import { NULL_TRANS } from './trans';

import {
  IIndexRequest,
  IJob,
  IQueryRequest,
  IQueryResponse,
  IStartedJob,
  IStatus
} from './types';

/** The API namespace under the server's base URL. */
export const NAMESPACE = 'agent-brain';

/**
 * The code of an ApiError when Jupyter answers 404 without this extension's
 * JSON error body: the server extension is not installed or not enabled.
 */
export const SERVER_EXTENSION_MISSING = 'server_extension_missing';

/**
 * An error answered by the server (or a network failure, with status 0).
 *
 * `code`, `field` and `jobId` come from the server's error body
 * `{error, message, field?, job_id?}`.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly field?: string,
    readonly jobId?: string
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * Call one route of the server extension and return its JSON body.
 *
 * Throws ApiError for a non-2xx answer or when the server cannot be reached.
 */
export async function requestAPI<T>(
  endPoint: string,
  settings: ServerConnection.ISettings,
  init: RequestInit = {},
  trans: TranslationBundle = NULL_TRANS
): Promise<T> {
  const url = URLExt.join(settings.baseUrl, NAMESPACE, endPoint);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new ApiError(
      trans.__('Cannot reach the Jupyter server: %1', (error as Error).message),
      0,
      'network_error'
    );
  }
  const text = await response.text();
  let data: any = null;
  if (text.length > 0) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const body = data && typeof data === 'object' ? data : {};
    if (response.status === 404 && typeof body.error !== 'string') {
      // Every route of the extension (its catch-all included) answers JSON: a bare 404
      // comes from a Jupyter server that does not run the extension at all.
      throw new ApiError(
        trans.__(
          'The Agent Brain server extension is not running on this Jupyter server.'
        ),
        404,
        SERVER_EXTENSION_MISSING
      );
    }
    const message =
      typeof body.message === 'string' && body.message
        ? body.message
        : `${response.status} ${response.statusText || 'request failed'}`.trim();
    throw new ApiError(
      message,
      response.status,
      typeof body.error === 'string' ? body.error : 'http_error',
      typeof body.field === 'string' ? body.field : undefined,
      typeof body.job_id === 'string' ? body.job_id : undefined
    );
  }
  if (data === null) {
    throw new ApiError(
      trans.__('Unexpected answer from %1: not JSON', endPoint),
      response.status,
      'bad_response'
    );
  }
  return data as T;
}

function jsonBody(method: string, body: unknown): RequestInit {
  return { method, body: JSON.stringify(body) };
}

/** Typed calls for the routes the panel uses. */
export class BrainAPI {
  constructor(
    readonly settings: ServerConnection.ISettings = ServerConnection.makeSettings(),
    private readonly _trans: TranslationBundle = NULL_TRANS
  ) {}

  private _call<T>(endPoint: string, init: RequestInit = {}): Promise<T> {
    return requestAPI(endPoint, this.settings, init, this._trans);
  }

  query(request: IQueryRequest): Promise<IQueryResponse> {
    return this._call('query', jsonBody('POST', request));
  }

  index(request: IIndexRequest = {}): Promise<IStartedJob> {
    return this._call('index', jsonBody('POST', request));
  }

  status(): Promise<IStatus> {
    return this._call('status');
  }

  job(id: string): Promise<IJob> {
    return this._call(`jobs/${encodeURIComponent(id)}`);
  }

  cancel(id: string): Promise<IJob> {
    return this._call(`jobs/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }
}
