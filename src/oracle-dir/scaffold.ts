/**
 * The files `oracle-gate init` writes: a valid oracle directory that fails closed until a human
 * fills it in. oracle.json names a placeholder image whose digest is all zeros (no image has it, so
 * a gate run fails at the pull), and the one hidden test fails on purpose. JSON files cannot hold
 * comments, so README.md explains every file with examples. path_allow.txt and tests.lock are not
 * written: present but empty, they would drop every hunk and require no tests.
 */

export const PLACEHOLDER_DIGEST = 'sha256:' + '0'.repeat(64);

export interface ScaffoldFile {
  path: string;
  content: string;
}

const ORACLE_JSON = `{
  "image": "registry.example/app-oracle@${PLACEHOLDER_DIGEST}",
  "existing_suite": {
    "command": "python3 -P -m pytest -q -p no:cacheprovider -o junit_family=xunit1 tests --junitxml=\\"$ORACLE_REPORT_DIR/junit.xml\\"",
    "paths": ["tests/**", "conftest.py", "**/conftest.py", "pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "sitecustomize.py", "usercustomize.py", "*.pth", "*.dist-info/**", "*.egg-info/**"]
  },
  "hidden_tests": {
    "command": "python3 -P -m pytest -q -p no:cacheprovider -o junit_family=xunit1 oracle_tests --junitxml=\\"$ORACLE_REPORT_DIR/junit.xml\\"",
    "dest": "oracle_tests"
  },
  "env": { "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1" },
  "timeout_seconds": 900,
  "limits": { "memory": "2g", "cpus": 2, "pids": 512 },
  "source_date_epoch": 315532800,
  "user": "1000:1000",
  "policy": { "allow_symlinks": false, "allow_submodules": false, "allow_gitattributes": false },
  "flake": { "window": 20, "min_runs": 5, "freeze_above": 0.2, "unfreeze_below": 0.05, "freeze_budget": 0.1 }
}
`;

const PATH_DENY = `# Globs, one a line: a patch touching any matching path is rejected before tests run.
# Always denied as well, without listing them here: .github/**, the oracle directory if it lies in
# the repository, and every sealed fixture.
#
# Globs are minimatch patterns (dot files included) on paths relative to the repository root, anchored
# there: "*.py" matches top-level files only, "**/*.py" at any depth. A trailing / means everything
# under a directory. Lines starting with # are comments; blank lines are ignored.
#
# Examples, uncomment what fits:
# **/conftest.py
# **/pytest.ini
# **/test_*.py
# **/*_test.py
# **/__snapshots__/
# package-lock.json
`;

const README = `# Oracle directory

Human-owned input to oracle-gate. Everything here is hashed (\`oracle-gate hash <dir>\`) and the
hash is pinned as the action's \`oracle-hash\` input, so any change needs a new pin. A top-level
\`.git\` is left out of the hash; symlinks, devices, sockets and FIFOs are refused anywhere.

Before the first run: build the oracle image, replace the all-zero digest in \`oracle.json\`, write
the hidden tests in \`tests/\`, run \`oracle-gate hash <dir>\` and pin what it prints.

## oracle.json (required)

- \`image\`: \`name@sha256:<64 hex>\`; a tag alone is refused.
- \`existing_suite\` (optional): \`command\` run by \`sh -c\` in the container, with
  \`ORACLE_REPORT_DIR\` set to the folder for its JUnit XML; \`paths\`: globs restored to their
  base-commit version before it runs [\`[]\`].
  List the runner's configuration and anything that could replace the runner: a patch's
  \`conftest.py\`, \`pytest.ini\`, \`sitecustomize.py\` or \`*.dist-info\` plugin is then removed
  before each suite runs.
- Run the runner so the checkout cannot shadow it: \`python3 -P -m pytest\` keeps the checkout off
  the front of \`sys.path\` (otherwise a \`pytest.py\` in the patch *is* the runner); give pytest the
  project with \`pythonpath = ["."]\` in the base's pytest configuration.
  \`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1\` loads only the plugins the command names.
- \`hidden_tests\` (required): \`command\` as above; \`dest\`: where \`tests/\` is copied in the
  checkout [\`oracle_tests\`], denied to the patch.
- \`env\`: extra environment [\`{}\`]; TZ, LC_ALL, PYTHONHASHSEED, SOURCE_DATE_EPOCH, HOME,
  ORACLE_* and GIT_* are the gate's and refused.
- \`timeout_seconds\` [900, at most 21600], \`limits\` {\`memory\` ["2g"], \`cpus\` [2], \`pids\` [512]},
  \`source_date_epoch\` [315532800], \`user\` ["1000:1000", never uid 0].
- \`policy\`: \`allow_symlinks\`, \`allow_submodules\`, \`allow_gitattributes\` [all false]: let a patch
  create symlinks, change submodules or change .gitattributes.
- \`flake\`: \`window\` [20] outcomes kept per test, \`min_runs\` [5] before a state can change,
  \`freeze_above\` [0.2] and \`unfreeze_below\` [0.05] failure rates, \`freeze_budget\` [0.1]: the
  largest fraction of hidden tests that may be frozen.

Unknown keys are errors.

## path_deny.txt, path_allow.txt

Globs, one a line, \`#\` comments. A patch touching a denied path fails. When \`path_allow.txt\`
exists, hunks in files outside it are dropped (and annotated); an existing but empty allow list
allows nothing. Example \`path_allow.txt\`:

    src/**
    lib/**

## tests/

The hidden tests, copied to \`hidden_tests.dest\` after the patch is applied. The example test fails
until you replace it.

## tests.lock

The hidden test IDs (\`<classname>::<name>\`) that must run and pass, one a line, no comments. A
baseline run proposes it; review and commit. Without it the check is skipped.

## fixtures/manifest.json

Sealed fixtures: \`{"roots": ["tests/fixtures"], "files": {"tests/fixtures/empty.json": "<sha256>"}}\`,
repository paths. At the base commit every listed file must have its sha256; a patch may not touch
one; no unlisted file may exist under a root after the patch.

## flake_ledger.json

Per-test baseline history and freeze state, \`{"version": 1, "tests": [{"id": ..., "state":
"active"|"frozen", "history": "PPFP..."}]}\`. A baseline run proposes updates; review and commit.
`;

const EXAMPLE_TEST = `# A hidden test: it runs against the patched checkout, which cannot change it.
# Replace this file with tests of the behaviour the task asks for.


def test_replace_me():
    assert False, "replace oracle/tests/ with the real hidden tests"
`;

export function scaffoldFiles(): ScaffoldFile[] {
  return [
    { path: 'README.md', content: README },
    { path: 'oracle.json', content: ORACLE_JSON },
    { path: 'path_deny.txt', content: PATH_DENY },
    { path: 'tests/test_example.py', content: EXAMPLE_TEST },
    { path: 'fixtures/manifest.json', content: '{\n  "roots": [],\n  "files": {}\n}\n' },
    { path: 'flake_ledger.json', content: '{\n  "version": 1,\n  "tests": []\n}\n' },
  ];
}
