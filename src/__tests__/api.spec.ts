import { ApiError, BrainAPI, requestAPI } from '../api';
import { fakeSettings } from './fakeServer';

/** The ApiError a call rejects with (fails the test if it resolves). */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  const outcome = await call.then(
    () => null,
    (e: unknown) => e
  );
  if (!(outcome instanceof ApiError)) {
    throw new Error(`expected an ApiError, got ${String(outcome)}`);
  }
  return outcome;
}

describe('requestAPI', () => {
  it('joins the base URL and namespace, sends the token, parses JSON', async () => {
    const { settings, requests } = fakeSettings(() => ({
      status: 200,
      body: { state: 'empty' }
    }));
    const data = await requestAPI<{ state: string }>('status', settings);
    expect(data).toEqual({ state: 'empty' });
    expect(requests).toHaveLength(1);
    expect(requests[0].method).toBe('GET');
    expect(requests[0].path).toBe('status');
    expect(requests[0].headers.get('Authorization')).toBe('token secret-token');
  });

  it('maps the server error body onto ApiError (code, field, status)', async () => {
    const { settings } = fakeSettings(() => ({
      status: 400,
      body: {
        error: 'invalid_request',
        message: 'top_k: must be between 1 and 100',
        field: 'top_k'
      }
    }));
    const error = await failure(
      requestAPI('query', settings, { method: 'POST', body: '{}' })
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('top_k: must be between 1 and 100');
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.field).toBe('top_k');
  });

  it('keeps the running job id of a 409 workspace_busy', async () => {
    const { settings } = fakeSettings(() => ({
      status: 409,
      body: {
        error: 'workspace_busy',
        message: 'an index job is already running',
        job_id: 'abc123'
      }
    }));
    const error = await failure(new BrainAPI(settings).index());
    expect(error.code).toBe('workspace_busy');
    expect(error.jobId).toBe('abc123');
  });

  it('reports a non-JSON error page with its HTTP status', async () => {
    const { settings } = fakeSettings(() => ({
      status: 502,
      raw: '<html>Bad gateway</html>'
    }));
    const error = await failure(requestAPI('status', settings));
    expect(error.status).toBe(502);
    expect(error.code).toBe('http_error');
    expect(error.message).toMatch(/^502/);
  });

  it('rejects a 200 answer that is not JSON', async () => {
    const { settings } = fakeSettings(() => ({ status: 200, raw: 'not json' }));
    const error = await failure(requestAPI('status', settings));
    expect(error.code).toBe('bad_response');
  });

  it('turns a network failure into ApiError status 0', async () => {
    const { settings } = fakeSettings(() => {
      throw new TypeError('Failed to fetch');
    });
    const error = await failure(requestAPI('status', settings));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(0);
    expect(error.code).toBe('network_error');
    expect(error.message).toContain('Failed to fetch');
  });
});

describe('BrainAPI', () => {
  it('sends each call to its route with its method and JSON body', async () => {
    const { settings, requests } = fakeSettings(() => ({
      status: 200,
      body: {}
    }));
    const api = new BrainAPI(settings);
    await api.query({ query: 'parse header', mode: 'bm25', top_k: 3 });
    await api.index({ path: 'src', force: true });
    await api.job('j 1/x');
    await api.cancel('j1');
    expect(requests.map(r => [r.method, r.path])).toEqual([
      ['POST', 'query'],
      ['POST', 'index'],
      ['GET', 'jobs/j%201%2Fx'],
      ['DELETE', 'jobs/j1']
    ]);
    expect(requests[0].body).toEqual({
      query: 'parse header',
      mode: 'bm25',
      top_k: 3
    });
    expect(requests[1].body).toEqual({ path: 'src', force: true });
  });
});
