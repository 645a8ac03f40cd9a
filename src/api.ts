/**
 * Client for the server extension's REST API (see REST contract in the README).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import {
  IIndexRequest,
  IJob,
  IQueryRequest,
  IQueryResponse,
  IStatus
} from './types';

/** The API namespace under the server's base URL. */
export const NAMESPACE = 'agent-brain';

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
  init: RequestInit = {}
): Promise<T> {
  const url = URLExt.join(settings.baseUrl, NAMESPACE, endPoint);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new ApiError(
      `Cannot reach the Agent Brain server: ${(error as Error).message}`,
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
      `Unexpected answer from ${endPoint}: not JSON`,
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
    readonly settings: ServerConnection.ISettings = ServerConnection.makeSettings()
  ) {}

  query(request: IQueryRequest): Promise<IQueryResponse> {
    return requestAPI('query', this.settings, jsonBody('POST', request));
  }

  index(request: IIndexRequest = {}): Promise<IJob> {
    return requestAPI('index', this.settings, jsonBody('POST', request));
  }

  status(): Promise<IStatus> {
    return requestAPI('status', this.settings);
  }

  job(id: string): Promise<IJob> {
    return requestAPI(`jobs/${encodeURIComponent(id)}`, this.settings);
  }

  cancel(id: string): Promise<IJob> {
    return requestAPI(`jobs/${encodeURIComponent(id)}`, this.settings, {
      method: 'DELETE'
    });
  }
}
