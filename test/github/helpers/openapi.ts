import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * GitHub's published OpenAPI description of api.github.com, from the @octokit/openapi package
 * (generated/api.github.com.json: the REST paths, the webhook payloads under x-webhooks, and the
 * shared components), with ajv validators for request bodies, path parameters and payloads.
 */
type Json = Record<string, unknown>;
export interface OpenApiDocument {
  info: { version: string };
  paths: Record<string, Record<string, Json>>;
  'x-webhooks': Record<string, Record<string, Json>>;
  components: Record<string, Record<string, Json>>;
}

const require = createRequire(import.meta.url);
let cached: OpenApiDocument | undefined;

export function gitHubOpenApi(): OpenApiDocument {
  cached ??= normaliseNullable(
    JSON.parse(readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8')),
  ) as OpenApiDocument;
  return cached;
}

/**
 * OpenAPI 3.0's `nullable: true` beside no `type` (next to a $ref or a combinator) means "this,
 * or null"; ajv implements `nullable` only beside `type`, so such a schema is rewritten as
 * `anyOf: [this, {type: null}]`.
 */
function normaliseNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normaliseNullable);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = normaliseNullable(value);
  if (out.nullable === true && out.type === undefined) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(
  new Ajv({ strict: false, allErrors: true, validateSchema: false, discriminator: false }),
);
let documentAdded = false;
const validators = new Map<string, ValidateFunction>();

/** A validator for the schema at `pointer` (a JSON pointer into the document), $refs resolved. */
export function validatorAt(pointer: string): ValidateFunction {
  if (!documentAdded) {
    ajv.addSchema(gitHubOpenApi() as unknown as Json, 'github');
    documentAdded = true;
  }
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `github#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

export function pointer(...segments: string[]): string {
  return segments.map((s) => '/' + s.replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

export function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

export interface MatchedOperation {
  template: string;
  method: string;
  operationId: string;
  pathParams: Record<string, string>;
  operation: Json;
}

interface Route {
  template: string;
  regex: RegExp;
  names: string[];
  literalSegments: number;
}
let routes: Route[] | undefined;

/** The operation for `method` and `path` (no query), or undefined if the description has none. */
export function matchOperation(method: string, path: string): MatchedOperation | undefined {
  routes ??= Object.keys(gitHubOpenApi().paths).map((template) => {
    const names: string[] = [];
    const source = template
      .split('/')
      .map((segment) =>
        segment.replace(/\{([^}]+)\}|[^{}]+/g, (m, name: string | undefined) => {
          if (name) {
            names.push(name);
            return '([^/]+)';
          }
          return m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        }),
      )
      .join('/');
    const literalSegments = template.split('/').filter((s) => s && !s.includes('{')).length;
    return { template, regex: new RegExp(`^${source}$`), names, literalSegments };
  });
  const candidates = routes
    .map((route) => ({ route, match: route.regex.exec(path) }))
    .filter((c) => c.match && gitHubOpenApi().paths[c.route.template]![method.toLowerCase()])
    .sort((a, b) => b.route.literalSegments - a.route.literalSegments);
  const best = candidates[0];
  if (!best) return undefined;
  const operation = gitHubOpenApi().paths[best.route.template]![method.toLowerCase()]!;
  const pathParams: Record<string, string> = {};
  best.route.names.forEach((name, i) => (pathParams[name] = decodeURIComponent(best.match![i + 1]!)));
  return {
    template: best.route.template,
    method: method.toLowerCase(),
    operationId: String(operation.operationId),
    pathParams,
    operation,
  };
}

/** Validation errors for a request to `operation`: path parameters and the JSON body. */
export function requestViolations(matched: MatchedOperation, body: unknown, hasBody: boolean): string[] {
  const violations: string[] = [];
  const parameters = (matched.operation.parameters ?? []) as Json[];
  for (const [index, parameter] of parameters.entries()) {
    const resolved = resolveRef(parameter);
    if (resolved.in !== 'path') continue;
    const raw = matched.pathParams[String(resolved.name)];
    if (raw === undefined) continue;
    const schema = resolved.schema as Json | undefined;
    const value =
      schema?.type === 'integer' || schema?.type === 'number'
        ? /^-?\d+$/.test(raw)
          ? Number(raw)
          : raw
        : raw;
    const validate = validatorAt(
      typeof parameter.$ref === 'string'
        ? `${String(parameter.$ref).slice(1)}/schema`
        : pointer('paths', matched.template, matched.method, 'parameters', String(index), 'schema'),
    );
    if (!validate(value))
      violations.push(
        `path parameter ${String(resolved.name)}: ${describeErrors(validate.errors).join('; ')}`,
      );
  }
  const requestBody = matched.operation.requestBody as Json | undefined;
  if (requestBody) {
    const content = requestBody.content as Record<string, unknown> | undefined;
    if (!hasBody) {
      if (requestBody.required) violations.push('request body: required but absent');
    } else if (content?.['application/json']) {
      const validate = validatorAt(
        pointer(
          'paths',
          matched.template,
          matched.method,
          'requestBody',
          'content',
          'application/json',
          'schema',
        ),
      );
      if (!validate(body))
        violations.push(...describeErrors(validate.errors).map((e) => `request body: ${e}`));
    }
  } else if (hasBody) {
    violations.push('request body: the operation takes none');
  }
  return violations;
}

function resolveRef(value: Json): Json {
  const ref = value.$ref;
  if (typeof ref !== 'string') return value;
  let node: unknown = gitHubOpenApi();
  for (const part of ref.replace(/^#\//, '').split('/')) {
    node = (node as Json)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return resolveRef(node as Json);
}

/** A validator for a webhook payload, e.g. `pull-request-opened`. */
export function webhookValidator(name: string): ValidateFunction {
  return validatorAt(
    pointer('x-webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema'),
  );
}

/** A shared example response, e.g. `check-run` or `pull-request`. */
export function exampleValue(name: string): Json {
  const example = gitHubOpenApi().components.examples?.[name] as { value?: Json } | undefined;
  if (!example?.value) throw new Error(`no example ${name} in the OpenAPI description`);
  return structuredClone(example.value);
}
