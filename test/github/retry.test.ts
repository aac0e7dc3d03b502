import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, retryDelay, withRetry } from '../../src/github/retry.js';

const policy = DEFAULT_RETRY_POLICY;
const NOW = 1_700_000_000_000;

describe('retryDelay', () => {
  it('backs off exponentially on 5xx and on no response, up to the attempt limit', () => {
    expect([1, 2, 3].map((n) => retryDelay({ status: 502, headers: {} }, n, policy, NOW))).toEqual([
      1_000, 2_000, 4_000,
    ]);
    expect(retryDelay({ headers: {} }, 1, policy, NOW)).toBe(1_000);
    expect(retryDelay({ status: 500, headers: {} }, 4, policy, NOW)).toBeUndefined();
  });

  it('honours retry-after on 429, and on a 403 secondary rate limit', () => {
    expect(retryDelay({ status: 429, headers: { 'retry-after': '7' } }, 1, policy, NOW)).toBe(7_000);
    expect(retryDelay({ status: 403, headers: { 'retry-after': '5' } }, 1, policy, NOW)).toBe(5_000);
    expect(retryDelay({ status: 429, headers: {} }, 2, policy, NOW)).toBe(2_000);
  });

  it('waits for the reset of an exhausted primary rate limit', () => {
    const reset = String(NOW / 1_000 + 12);
    expect(
      retryDelay(
        { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } },
        1,
        policy,
        NOW,
      ),
    ).toBe(12_000);
  });

  it('does not retry a refusal: 403 without rate limit, 401, 404, 422', () => {
    for (const status of [400, 401, 403, 404, 409, 422]) {
      expect(
        retryDelay({ status, headers: { 'x-ratelimit-remaining': '4999' } }, 1, policy, NOW),
      ).toBeUndefined();
    }
  });

  it('gives up rather than wait longer than a minute', () => {
    expect(retryDelay({ status: 429, headers: { 'retry-after': '61' } }, 1, policy, NOW)).toBeUndefined();
    const reset = String(NOW / 1_000 + 3_600);
    expect(
      retryDelay(
        { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } },
        1,
        policy,
        NOW,
      ),
    ).toBeUndefined();
  });

  it('is bounded for any answer: at most 3 retries, each at most a minute', () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
        fc.dictionary(
          fc.constantFrom('retry-after', 'x-ratelimit-remaining', 'x-ratelimit-reset'),
          fc.oneof(fc.string(), fc.nat().map(String)),
        ),
        fc.integer({ min: 1, max: 10 }),
        (status, headers, attempt) => {
          const delay = retryDelay(
            { ...(status === undefined ? {} : { status }), headers },
            attempt,
            policy,
            NOW,
          );
          if (attempt >= 4) expect(delay).toBeUndefined();
          if (delay !== undefined) expect(delay >= 0 && delay <= 60_000).toBe(true);
          if (status !== undefined && status < 500 && status !== 429 && status !== 403)
            expect(delay).toBeUndefined();
        },
      ),
    );
  });
});

describe('withRetry', () => {
  it('returns the first success and rethrows a refusal at once', async () => {
    let calls = 0;
    const sleeps: number[] = [];
    const result = await withRetry(
      'x',
      async () => {
        calls++;
        if (calls < 3) throw Object.assign(new Error('busy'), { status: 503, response: { headers: {} } });
        return 'ok';
      },
      { sleep: async (ms) => void sleeps.push(ms) },
    );
    expect(result).toBe('ok');
    expect(sleeps).toEqual([1_000, 2_000]);
    await expect(
      withRetry('x', async () => Promise.reject(Object.assign(new Error('no'), { status: 404 })), {
        sleep: async () => expect.unreachable(),
      }),
    ).rejects.toThrow('no');
  });
});
