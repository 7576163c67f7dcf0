"""What installing for the tests pulls in, and what CI adds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _extras() -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")  # the standard library's from Python 3.11
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras: dict[str, list[str]] = data["project"]["optional-dependencies"]
    return extras


def test_the_test_extra_leaves_ray_out_and_the_ray_extra_has_it() -> None:
    extras = _extras()
    assert not [req for req in extras["test"] if req.startswith("ray")]
    assert [req for req in extras["ray"] if req.startswith("ray")]


def test_ci_installs_the_test_and_optional_extras_before_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert ("pip install -q -e '.[test,ray,rl,openspiel]' && PYTHONSAFEPATH=1 python3 -m pytest"
            in ci)
    assert "pip install -e '.[test]' && pytest" in (ROOT / "README.md").read_text()


def test_without_ray_its_tests_skip_with_one_line_saying_how_to_run_them() -> None:
    # A None entry in sys.modules makes `import ray` fail as if Ray were not installed.
    code = ("import sys; sys.modules['ray'] = None; import pytest; "
            "sys.exit(pytest.main(['-q', '-rs', '-p', 'no:cacheprovider', "
            "'tests/tournament/test_ray_backend.py']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode in (0, 5), proc.stdout + proc.stderr  # 5: the whole file skipped
    assert re.search(r"SKIPPED \[1\] tests/tournament/test_ray_backend.py:\d+: Ray is not "
                     r"installed \(pip install -e '\.\[ray\]'; \.ci/run installs it\)\n",
                     proc.stdout), proc.stdout
