import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exampleValue, matchOperation, requestViolations } from './openapi.js';

/**
 * A local stand-in for api.github.com. Every request is matched to an operation of GitHub's
 * OpenAPI description (method + path template) and validated against it (path parameters and the
 * JSON body, $refs resolved); a request that does not conform is answered 422 and recorded as a
 * violation, as are GitHub's documented limits the schema leaves in prose (annotation title 255
 * characters, message and raw_details 64 KB). It implements the operations the action uses:
 * create and update a check run, get a pull request; answers are GitHub's own examples with the
 * request's values and fresh ids.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  operationId?: string;
  body: unknown;
  status: number;
  violations: string[];
}

export interface CannedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ServerBehaviour {
  /** Answered, in order, to the first requests of an operation (by operationId) before it works. */
  failFirst?: Record<string, CannedResponse[]>;
  /** Answered to every request of an operation, e.g. `checks/create: 403` for a read-only token. */
  refuse?: Record<string, CannedResponse>;
  /** Answered to every `checks/update` that carries annotations, as GitHub answers one it cannot place. */
  refuseAnnotations?: CannedResponse;
  /** The pull requests `pulls/get` knows. */
  pullRequests?: Record<number, { baseSha: string; headSha: string }>;
}

export interface CheckRunState {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  output: { title?: string; summary?: string };
  annotations: unknown[];
}

export interface GitHubApiServer {
  url: string;
  requests: RecordedRequest[];
  checkRuns: Map<number, CheckRunState>;
  /** Every violation of every request, prefixed with its request. */
  violations(): string[];
  close(): Promise<void>;
}

const TOKEN_HEADER = /^(token|bearer) \S+$/i;

export async function startGitHubApiServer(behaviour: ServerBehaviour = {}): Promise<GitHubApiServer> {
  const requests: RecordedRequest[] = [];
  const checkRuns = new Map<number, CheckRunState>();
  const failFirst = Object.fromEntries(
    Object.entries(behaviour.failFirst ?? {}).map(([k, v]) => [k, [...v]]),
  );
  let nextId = 4_000_000_001;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const text = await readBody(req);
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      body: undefined,
      status: 0,
      violations: [],
    };
    requests.push(record);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };

    const matched = matchOperation(record.method, record.path);
    if (!matched) {
      record.violations.push(`no operation ${record.method} ${record.path} in the OpenAPI description`);
      return answer(404, { message: 'Not Found' });
    }
    record.operationId = matched.operationId;
    if (!TOKEN_HEADER.test(String(req.headers.authorization ?? ''))) {
      record.violations.push('no token in the Authorization header');
      return answer(401, { message: 'Requires authentication' });
    }
    const hasBody = text.length > 0;
    if (hasBody) {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
        record.violations.push(`body sent as ${String(req.headers['content-type'])}, not application/json`);
      }
      try {
        record.body = JSON.parse(text);
      } catch {
        record.violations.push('body is not JSON');
        return answer(400, { message: 'Problems parsing JSON' });
      }
    }
    record.violations.push(
      ...requestViolations(matched, record.body, hasBody),
      ...documentedLimitViolations(record.body),
    );
    if (record.violations.length > 0) {
      return answer(422, { message: 'Validation Failed', errors: record.violations });
    }

    const refused = behaviour.refuse?.[matched.operationId];
    if (refused)
      return answer(
        refused.status,
        refused.body ?? { message: 'Resource not accessible by integration' },
        refused.headers,
      );
    const output = (record.body as { output?: { annotations?: unknown[] } } | undefined)?.output;
    if (behaviour.refuseAnnotations && matched.operationId === 'checks/update' && output?.annotations?.length)
      return answer(
        behaviour.refuseAnnotations.status,
        behaviour.refuseAnnotations.body ?? { message: 'Validation Failed' },
        behaviour.refuseAnnotations.headers,
      );
    const canned = failFirst[matched.operationId]?.shift();
    if (canned) return answer(canned.status, canned.body ?? { message: 'Server Error' }, canned.headers);

    const body = (record.body ?? {}) as Record<string, unknown>;
    const params = matched.pathParams;
    switch (matched.operationId) {
      case 'checks/create': {
        const run: CheckRunState = {
          id: nextId++,
          name: String(body.name),
          head_sha: String(body.head_sha),
          status: String(body.conclusion ? 'completed' : (body.status ?? 'queued')),
          conclusion: (body.conclusion as string | undefined) ?? null,
          output: {},
          annotations: [],
        };
        applyOutput(run, body);
        checkRuns.set(run.id, run);
        return answer(201, checkRunResponse(run, params));
      }
      case 'checks/update': {
        const run = checkRuns.get(Number(params.check_run_id));
        if (!run) return answer(404, { message: 'Not Found' });
        if (body.status) run.status = String(body.status);
        if (body.conclusion) {
          run.conclusion = String(body.conclusion);
          run.status = 'completed';
        }
        if (body.name) run.name = String(body.name);
        applyOutput(run, body);
        return answer(200, checkRunResponse(run, params));
      }
      case 'pulls/get': {
        const pr = behaviour.pullRequests?.[Number(params.pull_number)];
        if (!pr) return answer(404, { message: 'Not Found' });
        const response = exampleValue('pull-request') as Record<string, Record<string, unknown>> & {
          number: number;
        };
        response.number = Number(params.pull_number);
        response.base!.sha = pr.baseSha;
        response.head!.sha = pr.headSha;
        return answer(200, response);
      }
      default:
        record.violations.push(`the action is not expected to call ${matched.operationId}`);
        return answer(501, { message: 'Not implemented by the test server' });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      requests.at(-1)?.violations.push(`server error: ${String(error)}`);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    checkRuns,
    violations: () => requests.flatMap((r) => r.violations.map((v) => `${r.method} ${r.path}: ${v}`)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function applyOutput(run: CheckRunState, body: Record<string, unknown>): void {
  const output = body.output as { title?: string; summary?: string; annotations?: unknown[] } | undefined;
  if (!output) return;
  if (output.title !== undefined) run.output.title = output.title;
  if (output.summary !== undefined) run.output.summary = output.summary;
  // Each update appends its annotations to those already there, as GitHub does.
  run.annotations.push(...(output.annotations ?? []));
}

function checkRunResponse(run: CheckRunState, params: Record<string, string>): Record<string, unknown> {
  const response = exampleValue('check-run');
  const base = `https://api.github.com/repos/${params.owner}/${params.repo}/check-runs/${run.id}`;
  return {
    ...response,
    id: run.id,
    name: run.name,
    head_sha: run.head_sha,
    status: run.status,
    conclusion: run.conclusion,
    url: base,
    html_url: `https://github.com/${params.owner}/${params.repo}/runs/${run.id}`,
    output: {
      title: run.output.title ?? null,
      summary: run.output.summary ?? null,
      text: null,
      annotations_count: run.annotations.length,
      annotations_url: `${base}/annotations`,
    },
  };
}

const encoder = new TextEncoder();

/** Limits GitHub documents in prose, which the schema cannot check. */
function documentedLimitViolations(body: unknown): string[] {
  const output = (body as { output?: { annotations?: unknown } } | undefined)?.output;
  if (!output || !Array.isArray(output.annotations)) return [];
  const violations: string[] = [];
  output.annotations.forEach(
    (
      a: {
        title?: unknown;
        message?: unknown;
        raw_details?: unknown;
        start_line?: unknown;
        end_line?: unknown;
      },
      i,
    ) => {
      if (typeof a.title === 'string' && [...a.title].length > 255)
        violations.push(`annotation ${i}: title over 255 characters`);
      for (const field of ['message', 'raw_details'] as const) {
        const value = a[field];
        if (typeof value === 'string' && encoder.encode(value).length > 64 * 1024)
          violations.push(`annotation ${i}: ${field} over 64 KB`);
      }
      if (typeof a.start_line === 'number' && typeof a.end_line === 'number' && a.end_line < a.start_line) {
        violations.push(`annotation ${i}: end_line before start_line`);
      }
      if (typeof a.start_line === 'number' && a.start_line < 1)
        violations.push(`annotation ${i}: start_line below 1`);
    },
  );
  return violations;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
