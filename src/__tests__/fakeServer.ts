/**
 * A stand-in for the server extension's routes, answering through the
 * `fetch` of ServerConnection settings. Jest has no Jupyter server; the
 * Galata tests run the panel against the real one.
 */
import { ServerConnection } from '@jupyterlab/services';

export interface IRecorded {
  method: string;
  path: string;
  body: any;
  headers: Headers;
}

export interface IAnswer {
  status: number;
  body?: unknown;
  raw?: string;
}

/** Answers a request, at once or later (to hold a response back). */
export type Route = (request: IRecorded) => IAnswer | Promise<IAnswer>;

export const BASE_URL = 'http://localhost:8888/lab-base/';

/** Settings whose fetch dispatches to `route` and records every request. */
export function fakeSettings(route: Route): {
  settings: ServerConnection.ISettings;
  requests: IRecorded[];
} {
  const requests: IRecorded[] = [];
  const fetch = async (input: RequestInfo | URL): Promise<Response> => {
    const request = input as Request;
    const url = new URL(request.url);
    const text = await request.text();
    const recorded: IRecorded = {
      method: request.method,
      // the search part only holds ServerConnection's cache buster
      path: url.pathname.replace('/lab-base/agent-brain/', ''),
      body: text ? JSON.parse(text) : null,
      headers: request.headers
    };
    requests.push(recorded);
    const answer = await route(recorded);
    const payload =
      answer.raw ??
      (answer.body === undefined ? '' : JSON.stringify(answer.body));
    return new Response(payload, { status: answer.status });
  };
  const settings = ServerConnection.makeSettings({
    baseUrl: BASE_URL,
    token: 'secret-token',
    fetch
  });
  return { settings, requests };
}
