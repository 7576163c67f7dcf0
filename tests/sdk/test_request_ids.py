"""A bot sees the same request ids in-process (``BotAgent``) as sandboxed: the referee's
rule, the ids of a bot's ``act`` requests counted over its match from 0."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine import GameConfig, play_game
from arena.sdk.local import BotAgent
from arena.sdk.runner import load_bot

#: Logs each request's id and plays its last option, so that its games depend on the deal only.
_IDS_BOT = '''from arena.sdk import Bot


class Ids(Bot):
    def act(self, request):
        self.log(f"request id {request.id}")
        return len(request.legal) - 1
'''


def test_request_ids_are_the_same_sandboxed_and_in_process(tmp_path: Path) -> None:
    bot = tmp_path / "ids.py"
    bot.write_text(_IDS_BOT)
    other = tmp_path / "ids_too.py"
    other.write_text(_IDS_BOT)
    records = tmp_path / "match.jsonl"
    result = CliRunner().invoke(app, ["match", str(bot), str(other), "--games", "3",
                                      "--seed", "5", "--records", str(records)])
    assert result.exit_code == 0, result.output
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(games) == 3
    keys = games[0]["referee"]["seats"]
    sandboxed: dict[str, list[int]] = {key: [] for key in keys}
    for record in games:
        for seat, text in record["referee"]["logs"].items():
            key = record["referee"]["seats"][int(seat)]
            sandboxed[key] += [int(n) for n in re.findall(r"request id (\d+)", text)]
    assert all(ids and ids[0] == 0 for ids in sandboxed.values()), sandboxed
    for record in games:  # each record keeps the id its game's first act had, for a rerun
        for seat, text in record["referee"]["logs"].items():
            first = int(re.findall(r"request id (\d+)", text)[0])
            assert record["referee"]["first_act_ids"][int(seat)] == first
    agents = {key: BotAgent(load_bot(bot)) for key in keys}
    seen: dict[str, list[int]] = {key: [] for key in keys}
    for key, agent in agents.items():
        def logged(message: str, key: str = key) -> None:
            seen[key] += [int(n) for n in re.findall(r"request id (\d+)", message)]
        agent.bot.log = logged  # type: ignore[method-assign]
    for record in games:
        seats = record["referee"]["seats"]
        play_game(GameConfig.from_json(record["config"]), [agents[key] for key in seats])
    assert seen == sandboxed
