"""examples/train_learned.py as a researcher runs it: a small run writes its weights where
it says, never over the learned bot's, and bad arguments are refused in one line before
any training."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")

from arena.rl.policy import Policy  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "train_learned.py"
SMALL = ["--imitation-games", "2", "--epochs", "1", "--hidden", "4", "--pg-games", "0",
         "--eval-deals", "0"]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_learned", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_run_without_out_leaves_the_learned_bots_weights_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert _script().main(SMALL) == 0
    assert not (tmp_path / "bots").exists()
    written = [p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) == 1
    Policy.load(tmp_path / written[0])  # a weights file
    assert f"wrote {written[0]} " in capsys.readouterr().out


@pytest.mark.parametrize("bad", [
    ["--teacher", "no-such-bot"],
    ["--opponent", "no-such-bot"],
    ["--seed", "-1"],
    ["--imitation-games", "-1"],
    ["--epochs", "many"],
    ["--epochs", "-1"],
    ["--hidden", "0"],
    ["--pg-games", "-5"],
    ["--eval-deals", "-1"],
    ["--out", "."],
    ["--out", "weights.txt"],
], ids=lambda bad: " ".join(bad))
def test_bad_arguments_are_one_line_before_any_training(
        bad: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        _script().main([*SMALL, *bad])
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing trained
    assert "Traceback" not in err and err.count("error:") == 1
    assert bad[-1] in err.splitlines()[-1]
    assert not any(tmp_path.iterdir())
