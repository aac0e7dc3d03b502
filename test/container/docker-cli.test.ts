import { describe, expect, it } from 'vitest';
import { dockerCli, engineUnreachable, runDocker } from '../../src/container/docker-cli.js';

describe('the docker CLI adapter', () => {
  it('gives the CLI only what it needs to find the engine, never tokens or secrets', () => {
    const cli = dockerCli('docker', {
      PATH: '/usr/bin',
      HOME: '/home/runner',
      DOCKER_HOST: 'unix:///run/docker.sock',
      GITHUB_TOKEN: 'ghs_secret',
      ACTIONS_RUNTIME_TOKEN: 'secret',
      AWS_SECRET_ACCESS_KEY: 'secret',
    });
    expect(cli.env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/runner',
      DOCKER_HOST: 'unix:///run/docker.sock',
    });
  });

  it('reports a CLI that is not installed as an unreachable engine, without throwing', async () => {
    const result = await runDocker(dockerCli('/nonexistent/docker'), ['version']);
    expect(result.spawnError).toBeDefined();
    expect(engineUnreachable(result)).toBe(true);
  });

  it('kills a CLI that runs past its timeout', async () => {
    const result = await runDocker({ binary: 'sleep', env: { PATH: process.env.PATH } }, ['30'], {
      timeoutMs: 200,
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
  });

  it('recognizes an engine that is not running', async () => {
    const cli = dockerCli('docker', {
      PATH: process.env.PATH,
      DOCKER_HOST: 'unix:///nonexistent/docker.sock',
    });
    const result = await runDocker(cli, ['image', 'inspect', 'x']);
    expect(result.exitCode).not.toBe(0);
    expect(engineUnreachable(result)).toBe(true);
  });
});
