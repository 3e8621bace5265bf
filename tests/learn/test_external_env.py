"""Library environments: ready or not, scripts run there with JSON in and out, failures said
in one line.  A "ready" environment here is a folder whose interpreter is this one (no pip,
no network); the creation path is tested offline in ``test_cn2.py`` (it must fail cleanly)
and for real by the ``peers`` tests."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from xpg.errors import ExternalEnvError
from xpg.learn.external_env import ExternalEnv, ensure, envs_dir, is_ready, run_json


def fake_env(root: Path, probe: str = "import json") -> ExternalEnv:
    env = ExternalEnv("fake", ("nothing-to-install",), probe, root=root)
    env.python.parent.mkdir(parents=True)
    env.python.symlink_to(sys.executable)
    return env


def script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "runner.py"
    path.write_text("import json, sys\n" + body, encoding="utf-8")
    return path


def test_a_ready_environment_is_used_as_it_is(tmp_path: Path) -> None:
    env = fake_env(tmp_path)
    assert is_ready(env)
    log = io.StringIO()
    assert ensure(env, log) == env.python and log.getvalue() == ""  # no pip, no message


def test_an_environment_whose_probe_fails_is_not_ready(tmp_path: Path) -> None:
    assert not is_ready(fake_env(tmp_path, "import no_such_module_here"))
    assert not is_ready(ExternalEnv("absent", (), "pass", root=tmp_path))


def test_run_json_hands_the_request_over_and_reads_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = fake_env(tmp_path)
    runner = script(
        tmp_path,
        "r = json.load(sys.stdin)\n"
        "json.dump({'sum': sum(r['xs']), 'path': 'PYTHONPATH' in __import__('os').environ},"
        " sys.stdout)\n",
    )
    monkeypatch.setenv("PYTHONPATH", "/somewhere")  # never handed to the other interpreter
    assert run_json(env, runner, {"xs": [1, 2, 3]}) == {"sum": 6, "path": False}


@pytest.mark.parametrize(
    ("body", "timeout", "message"),
    [
        # the limit is not the point here: a loaded machine may take seconds to start Python
        (
            "sys.stderr.write('first\\nboom\\n'); sys.exit(3)",
            120,
            r"failed \(exit 3\): first \| boom",
        ),
        ("print('not json')", 120, "printed no JSON: 'not json'"),
        # the limit is the point: the script never ends on its own, so only the limit stops it
        ("import time; time.sleep(3600)", 1, "took more than 1 s"),
    ],
    ids=["exit", "no-json", "timeout"],
)
def test_a_failing_script_is_one_error(
    tmp_path: Path, body: str, timeout: float, message: str
) -> None:
    env = fake_env(tmp_path)
    with pytest.raises(ExternalEnvError, match=message) as err:
        run_json(env, script(tmp_path, body), {}, timeout=timeout)
    assert "\n" not in str(err.value)


def test_running_in_a_missing_environment_is_refused(tmp_path: Path) -> None:
    env = ExternalEnv("absent", (), "pass", root=tmp_path)
    with pytest.raises(ExternalEnvError, match="no absent environment at"):
        run_json(env, script(tmp_path, "pass"), {})


def test_the_folder_of_environments() -> None:
    assert envs_dir({"XPG_ENVS_DIR": "~/envs"}) == Path.home() / "envs"
    assert envs_dir({}) == Path.home() / ".cache" / "xpg" / "envs"
    # the default is read when used, so XPG_ENVS_DIR set later still counts
    env = ExternalEnv("orange3", (), "pass")
    assert env.venv.parent == envs_dir()
