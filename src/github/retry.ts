/**
 * Bounded retries with backoff for GitHub API calls: server errors (5xx, and network failures,
 * which Octokit reports as 500) and rate limits (429, or 403 with `x-ratelimit-remaining: 0` or a
 * `retry-after`). Any other error is an answer, not a hiccup, and is not retried. A wait longer
 * than `maxWaitMs` is not waited for: the call fails and the action fails closed.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 1_000,
  maxDelayMs: 8_000,
  maxWaitMs: 60_000,
};

export interface FailedAttempt {
  /** HTTP status; undefined when no response came. */
  status?: number;
  headers: Readonly<Record<string, string | number | undefined>>;
}

/** How long to wait before the next attempt, or undefined to give up. Pure. */
export function retryDelay(
  failure: FailedAttempt,
  attemptsMade: number,
  policy: RetryPolicy,
  nowMs: number,
): number | undefined {
  if (attemptsMade >= policy.maxAttempts) return undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attemptsMade - 1));
  const retryAfter = seconds(failure.headers['retry-after']);
  const rateLimited = header(failure.headers['x-ratelimit-remaining']) === '0';
  const resetAt = seconds(failure.headers['x-ratelimit-reset']);
  const untilReset = resetAt === undefined ? undefined : Math.max(0, resetAt * 1_000 - nowMs);
  let delay: number | undefined;
  const status = failure.status;
  if (status === undefined || status >= 500) {
    delay = retryAfter !== undefined ? retryAfter * 1_000 : backoff;
  } else if (status === 429 || (status === 403 && (rateLimited || retryAfter !== undefined))) {
    if (retryAfter !== undefined) delay = retryAfter * 1_000;
    else if (rateLimited && untilReset !== undefined) delay = untilReset;
    else delay = backoff;
  }
  return delay !== undefined && delay <= policy.maxWaitMs ? delay : undefined;
}

function header(value: string | number | undefined): string | undefined {
  return value === undefined ? undefined : String(value).trim();
}

function seconds(value: string | number | undefined): number | undefined {
  const text = header(value);
  if (text === undefined || !/^\d{1,12}$/.test(text)) return undefined;
  return Number(text);
}

/** The status and headers of an Octokit error (RequestError), or of a network failure. */
export function failedAttemptOf(error: unknown): FailedAttempt {
  const e = error as {
    status?: unknown;
    response?: { headers?: Record<string, string | number | undefined> };
  };
  return {
    ...(typeof e?.status === 'number' ? { status: e.status } : {}),
    headers: e?.response?.headers ?? {},
  };
}

export interface RetryOptions {
  policy?: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Told of each retry, for the job log. */
  onRetry?: (what: string, failure: FailedAttempt, delayMs: number, attempt: number) => void;
}

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `call` until it succeeds, the policy gives up, or an error is not retryable. */
export async function withRetry<T>(
  what: string,
  call: () => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const failure = failedAttemptOf(error);
      const delay = retryDelay(failure, attempt, policy, now());
      if (delay === undefined) throw error;
      options.onRetry?.(what, failure, delay, attempt);
      await sleep(delay);
    }
  }
}
