import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runOracleContainer } from '../../src/container/run-oracle-container.js';
import type { OracleRunConfig } from '../../src/container/run-config.js';
import { buildSampleRepo, SAMPLE, sampleConfig, type SampleRepo } from './sample-repo.js';
import { tempDirs } from './temp-dirs.js';

const tempDir = tempDirs('og-probes-');

/**
 * What the container lets PR code do: nothing beyond its checkout. Hidden tests written here probe
 * the sandbox from inside (they run with the honest fix applied, so a Pass means every probe held);
 * a TCP server on the host's loopback counts any connection that gets out.
 */
let repo: SampleRepo;
let config: OracleRunConfig;
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  repo = await buildSampleRepo();
  config = await sampleConfig(inject('testImage'));
  server = createServer((socket) => {
    connections += 1;
    socket.end('3\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await repo.remove();
  await new Promise((resolve) => server.close(resolve));
});

const PROBES = String.raw`
import os, socket, subprocess, time

HOST_PORT = int(os.environ["PROBE_HOST_PORT"])

def test_environment_is_the_gate_s_and_nothing_from_the_host():
    set_by_sh_docker_and_pytest = {"PATH", "HOSTNAME", "PWD", "SHLVL", "_", "OLDPWD", "PYTEST_CURRENT_TEST"}
    assert set(os.environ) - set_by_sh_docker_and_pytest == {
        "TZ", "LC_ALL", "PYTHONHASHSEED", "SOURCE_DATE_EPOCH", "HOME", "ORACLE_REPORT_DIR",
        "PYTHONDONTWRITEBYTECODE", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PROBE_HOST_PORT",
    }
    assert os.environ["TZ"] == "UTC" and time.strftime("%Z") == "UTC"
    assert os.environ["LC_ALL"] == "C.UTF-8"
    assert os.environ["PYTHONHASHSEED"] == "0"
    assert os.environ["SOURCE_DATE_EPOCH"] == "315532800"
    assert os.environ["HOME"] == "/tmp"
    assert os.environ["ORACLE_REPORT_DIR"] == "/oracle/reports/hidden"

def test_runs_as_the_oracle_user_without_capabilities_or_privilege_gain():
    assert (os.getuid(), os.getgid()) == (1000, 1000)
    status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(status[cap].strip(), 16) == 0, cap
    assert status["NoNewPrivs"].strip() == "1"

def test_the_harness_is_pid_1_and_out_of_reach():
    assert open("/proc/1/cmdline", "rb").read().split(b"\0")[:2] == [b"/bin/sh", b"/oracle/job/harness.sh"]
    os.kill(1, 9)  # ignored: signals from inside never reach the namespace's init
    time.sleep(0.1)
    assert os.path.exists("/proc/1")

def _write_fails(path):
    try:
        with open(path, "w") as handle:
            handle.write("x")
    except OSError:
        return True
    return False

def test_only_the_report_folder_and_the_tmpfs_are_writable():
    for path in ("/etc/probe", "/usr/probe", "/oracle/job/probe", "/oracle/hidden/probe",
                 "/oracle/mirror.git/probe", "/oracle/reports/../job/probe"):
        assert _write_fails(path), path
    assert not _write_fails("/oracle/reports/hidden/probe.txt")
    assert not _write_fails("/tmp/probe")

def test_no_network_not_even_the_host_loopback():
    assert sorted(os.listdir("/sys/class/net")) == ["lo"]
    # Only the host's loopback is probed: were the sandbox open, no packet may leave the machine.
    try:
        socket.create_connection(("127.0.0.1", HOST_PORT), timeout=1).close()
        connected = True
    except OSError:
        connected = False
    assert not connected

def test_no_docker_socket():
    for path in ("/var/run/docker.sock", "/run/docker.sock"):
        assert not os.path.exists(path)

def test_the_checkout_holds_one_parentless_commit_and_no_other_ref():
    git = ["git", "-c", "safe.directory=*"]
    commits = subprocess.run(git + ["rev-list", "--all"], capture_output=True, text=True, check=True).stdout.split()
    assert len(commits) == 1
    assert subprocess.run(git + ["rev-list", "--max-parents=0", "HEAD"], capture_output=True, text=True).stdout.split() == commits

def test_limits_are_in_force():
    for pids in ("/sys/fs/cgroup/pids/pids.max", "/sys/fs/cgroup/pids.max"):
        if os.path.exists(pids):
            assert open(pids).read().strip() == "256"
            break
    else:
        raise AssertionError("no pids cgroup file")
    for memory in ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory.max"):
        if os.path.exists(memory):
            assert int(open(memory).read().strip()) == 512 * 1024 * 1024
            break
    else:
        raise AssertionError("no memory cgroup file")
`;

describe('the sandbox', () => {
  it('holds: fixed environment, no host secrets, unprivileged PID-1 harness, read-only mounts, no network', async () => {
    const hidden = tempDir();
    writeFileSync(join(hidden, 'test_sandbox.py'), PROBES);
    process.env.GITHUB_TOKEN = 'ghs_must_not_reach_the_container';
    connections = 0;
    try {
      const result = await runOracleContainer({
        mode: 'grade',
        config: { ...config, env: { ...config.env, PROBE_HOST_PORT: String(port) } },
        repoDir: repo.dir,
        baseSha: repo.base,
        diff: await repo.diff('honest'),
        hiddenTestsDir: hidden,
      });
      const failures = result.outcomes
        .filter((o) => o.status !== 'passed')
        .map((o) => `${o.id}: ${o.message}`);
      expect(failures).toEqual([]);
      expect(result.reasons).toEqual([]);
      expect(result.outcomes.filter((o) => o.suite === 'hidden')).toHaveLength(8);
      expect(connections).toBe(0);
    } finally {
      delete process.env.GITHUB_TOKEN;
    }
  });

  it('fails a patch whose code reaches for the network, and nothing gets out', async () => {
    connections = 0;
    const result = await runOracleContainer({
      mode: 'grade',
      config: { ...config, env: { ...config.env, CALC_SERVICE_PORT: String(port) } },
      repoDir: repo.dir,
      baseSha: repo.base,
      diff: await repo.diff('reaches-network'),
      hiddenTestsDir: join(SAMPLE, 'oracle', 'tests'),
    });
    expect(result.reasons.map((r) => r.subkind)).toEqual(['existing-suite-failed', 'hidden-tests-failed']);
    const addition = result.outcomes.find((o) => o.id === 'tests.test_calc::test_addition');
    expect(addition?.message).toMatch(/Connection refused|Network is unreachable/);
    expect(connections).toBe(0);
  });

  it('kills and removes a run that passes its wall-clock limit, leaving no container behind', async () => {
    const result = await runOracleContainer({
      mode: 'grade',
      config: { ...config, timeoutSeconds: 4 },
      repoDir: repo.dir,
      baseSha: repo.base,
      diff: await repo.diff('sleeps'),
      hiddenTestsDir: join(SAMPLE, 'oracle', 'tests'),
    });
    expect(result.reasons).toEqual([
      {
        kind: 'custom',
        subkind: 'timeout',
        message: 'the oracle run passed its wall-clock limit of 4 s; the container was killed and removed',
      },
    ]);
    expect(result.timedOut).toBe(true);
    expect(result.exitReason).toBe('timeout');
    const name = result.containerName ?? '';
    expect(name).toMatch(/^oracle-gate-[0-9a-f]{16}$/);
    const left = execFileSync('docker', ['ps', '--all', '--quiet', '--filter', `name=^${name}$`]).toString();
    expect(left.trim()).toBe('');
    const labelled = execFileSync('docker', [
      'ps',
      '--all',
      '--quiet',
      '--filter',
      `label=org.oracle-gate.run=${name}`,
    ]);
    expect(labelled.toString().trim()).toBe('');
  });
});
