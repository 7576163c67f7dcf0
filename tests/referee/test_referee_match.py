"""play_match with scripted bots: message flow, persistence, failures, starting seats."""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from referee_fakes import FAST, FakeConnection, fake_spec, random_responder

from arena.engine import GameConfig, new_game
from arena.errors import RulesError
from arena.referee import games as games_module
from arena.referee import match as match_module
from arena.referee.boards import Boards
from arena.referee.failures import counts_line
from arena.referee.match import GameOutcome, MatchRequest, game_seed, play_match


class Table:
    """A launcher with one fake-bot factory per seat (matched by the command's name)."""

    def __init__(self, factories: list[Callable[[], FakeConnection]]) -> None:
        self.factories = factories
        self.made: dict[int, list[FakeConnection]] = {i: [] for i in range(len(factories))}

    def __call__(self, command: Any, workdir: Any, limits: Any) -> FakeConnection:
        seat = int(command[0])
        conn = self.factories[seat]()
        self.made[seat].append(conn)
        return conn


def request(table: Table, games: int = 2, seed: int = 1, **kw: Any) -> MatchRequest:
    bots = []
    for seat in range(len(table.factories)):
        spec = fake_spec(f"bot{seat}")
        object.__setattr__(spec, "command", (str(seat),))
        bots.append(spec)
    return MatchRequest(bots=bots, games=games, seed=seed, limits=FAST, launcher=table,
                        event_date=dt.date(2026, 11, 29), **kw)


def honest(seed: int = 0, **kw: Any) -> Callable[[], FakeConnection]:
    return lambda: FakeConnection(respond=random_responder(seed), **kw)


def test_a_clean_match_keeps_one_process_per_bot_and_sends_everything_once() -> None:
    table = Table([honest(1), honest(2), honest(3)])
    seen: list[GameOutcome] = []
    outcome = play_match(request(table, games=3), on_game=seen.append)
    assert [g.game_index for g in seen] == [0, 1, 2] and outcome.games == seen
    assert all(len(conns) == 1 for conns in table.made.values())
    for game in outcome.games:
        assert sorted(game.placements)[0] == 1 and len(game.placements) == 3
        assert game.failures == [] and game.forfeits == {}
        assert game.decisions > 0 and game.game_id == f"match/g{game.game_index}"
        assert game.seed == game_seed(1, game.game_index)
        assert game.record["referee"]["failures"] == []
    for seat, (conn,) in table.made.items():
        types = [m["type"] for m in conn.sent]
        assert types[0] == "hello" and types[-1] == "bye"
        assert types.count("game_start") == 3 and types.count("game_end") == 3
        ids = [m["id"] for m in conn.acts()]
        assert ids == sorted(set(ids)), "ids only grow, across games too"
        starts = [m for m in conn.sent if m["type"] == "game_start"]
        assert [m["seat"] for m in starts] == [seat] * 3
        assert all("seed" not in m for m in starts)
        assert all("events" not in m["observation"] for m in conn.acts())
    bots = outcome.to_json()["bots"]
    assert [b["starts"] for b in bots] == [1, 1, 1]
    assert sum(b["decisions"] for b in bots) == outcome.decisions


def test_each_games_latency_counts_that_games_decisions_only() -> None:
    """A game's latency figures are its own, not the match's running totals: each seat's
    decisions are the acts it was sent between that game's start and end."""
    table = Table([honest(1), honest(2)])
    outcome = play_match(request(table, games=3))
    for seat, (conn,) in table.made.items():
        per_game: list[int] = []
        for message in conn.sent:
            if message["type"] == "game_start":
                per_game.append(0)
            elif message["type"] == "act":
                per_game[-1] += 1
        assert [g.latency[seat]["decisions"] for g in outcome.games] == per_game
        for game in outcome.games:
            figures = game.latency[seat]
            assert 0 <= figures["median_ms"] <= figures["max_ms"]
    assert all(sum(s["decisions"] for s in g.latency) == g.decisions for g in outcome.games)


def test_every_visible_event_is_sent_exactly_once_in_order(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    states = []

    def capture(config: GameConfig) -> Any:
        states.append(new_game(config))
        return states[-1]

    monkeypatch.setattr(games_module, "new_game", capture)
    table = Table([honest(4), honest(5)])
    play_match(request(table, games=2))
    for seat, (conn,) in table.made.items():
        per_game: list[list[dict[str, Any]]] = []
        for message in conn.sent:
            if message["type"] == "game_start":
                per_game.append([])
            elif message["type"] == "event":
                per_game[-1].append(message["event"])
        assert len(per_game) == 2
        for state, sent in zip(states, per_game, strict=True):
            assert sent == json.loads(json.dumps(state.events_for(seat)))


def test_a_crash_forfeits_one_game_and_restarts_for_the_next() -> None:
    def crasher() -> FakeConnection:
        acts = [0]

        def respond(message: dict[str, Any]) -> Any:
            acts[0] += 1
            return "crash" if acts[0] == 3 else 0
        return FakeConnection(respond=respond)

    table = Table([honest(1), crasher, honest(2)])
    outcome = play_match(request(table, games=2))
    first, second = outcome.games
    assert first.forfeits == {1: "crash"}
    assert first.placements[1] == 3 and sorted(first.placements)[0] == 1
    assert [(f["seat"], f["type"]) for f in first.failures] == [(1, "crash")]
    assert first.failures[0]["bot"] == "bot1@000000000000"
    assert "exited mid-game (exit code 1)" in first.failures[0]["detail"]
    assert len(table.made[1]) == 2  # restarted for game 1, which it crashes again
    assert second.forfeits == {1: "crash"}
    assert outcome.bots[1]["restarts"] == 1 and outcome.bots[1]["failures"] == {"crash": 2}
    # the honest bots never noticed
    assert all(len(table.made[s]) == 1 for s in (0, 2))
    assert outcome.bots[0]["failures"] == {} and outcome.bots[2]["failures"] == {}


def crashing_at_first_act() -> FakeConnection:
    return FakeConnection(respond=lambda message: "crash")


@pytest.mark.parametrize("crashers", [(1,), (1, 2)])
def test_game_end_tells_the_bot_playing_on_the_places_the_standings_count(
        crashers: tuple[int, ...]) -> None:
    """RULES.md E28: every forfeited seat is the table's last, 3 of 3; with two of three
    forfeited, the engine's placements put them second."""
    table = Table([crashing_at_first_act if seat in crashers else honest(seat)
                   for seat in range(3)])
    (game,) = play_match(request(table, games=1)).games
    assert set(game.forfeits) == set(crashers)
    (end,) = [m for m in table.made[0][0].sent if m["type"] == "game_end"]
    assert end["placements"] == game.placements  # the engine's, as before, for old bots
    assert end["standing_places"] == [3 if seat in crashers else game.placements[seat]
                                      for seat in range(3)]


def test_timeouts_past_the_strike_limit_forfeit_and_the_seat_plays_defaults() -> None:
    table = Table([honest(1), lambda: FakeConnection(respond=lambda m: None)])
    outcome = play_match(request(table, games=1))
    game = outcome.games[0]
    assert game.forfeits == {1: "timeout"}
    assert [f["type"] for f in game.failures] == ["timeout"] * (FAST.max_strikes + 1)
    assert game.placements == [1, 2]
    assert game.record["result"]["forfeits"] == {"1": "timeout"}
    assert outcome.bots[1]["timeouts"] == FAST.max_strikes + 1


def test_a_bot_that_never_starts_forfeits_every_game_and_is_given_up() -> None:
    table = Table([honest(1), lambda: FakeConnection(ready=None)])
    outcome = play_match(request(table, games=5))
    assert all(g.forfeits == {1: "startup_failure"} for g in outcome.games)
    assert all(g.placements == [1, 2] for g in outcome.games)
    assert len(table.made[1]) == 3  # then the referee stops wasting start-up waits on it
    failures = [f for g in outcome.games for f in g.failures]
    assert [f["type"] for f in failures] == ["startup_failure"] * 5
    # each game it forfeited unstarted says why, for whoever reads that game alone
    assert [f["detail"] for f in failures[3:]] == [
        "not started again after 3 failed starts in a row in this match; the last: "
        + failures[2]["detail"]] * 2

    # in duplicate the bot's processes (one per seating) share the count: at a table of 4
    # with 24 seatings the referee does not wait for 24 times as many start-ups
    table = Table([honest(1), honest(2), honest(3), lambda: FakeConnection(ready=None)])
    outcome = play_match(request(table, games=48, duplicate="permutations"))
    assert all(g.forfeits == {g.seat_of(3): "startup_failure"} for g in outcome.games)
    assert len(table.made[3]) == 24  # each seating's process tried once, together
    assert outcome.to_json()["bots"][3]["forfeits"] == 48


def test_a_bot_killed_by_its_memory_limit_between_games_is_told_its_limit() -> None:
    """Found dead at the next game's start, killed by its memory limit: a memory_limit
    failure naming the limit, which its author cannot see otherwise, and no forfeit."""
    def out_of_memory_after_its_first_game() -> FakeConnection:
        conn = FakeConnection(respond=random_responder(1))

        def exit_at_the_end(message: dict[str, Any]) -> None:
            if message["type"] == "game_end":
                conn.closed, conn.exit_code, conn.memory = True, -9, True

        conn.on_message = exit_at_the_end
        return conn

    table = Table([out_of_memory_after_its_first_game, honest(2)])
    outcome = play_match(request(table, games=2))
    assert [(f["seat"], f["type"], f["detail"]) for f in outcome.games[1].failures] == [(
        0, "memory_limit",
        f"exited between games, after game 0 of the match ended (exit code -9); "
                  f"its memory limit: {FAST.memory_mb} MiB (memory_mb; --memory-mb of arena "
                  "check-bot, submit, match)")]
    assert outcome.games[1].forfeits == {}


def test_a_bot_that_cannot_start_forfeits_before_the_games_first_choice() -> None:
    """The seat is out from the start: the record (what replays and rates) says so, and the
    other seats are told before they choose, not at the missing bot's first turn."""
    table = Table([honest(1), lambda: FakeConnection(ready=None)])
    outcome = play_match(request(table, games=2))
    assert [g.record["forfeits"] for g in outcome.games] == [
        [{"seat": 1, "reason": "startup_failure", "at_choice": 0}]] * 2
    sent = table.made[0][0].sent
    before_first_act = sent[:next(i for i, m in enumerate(sent) if m["type"] == "act")]
    assert {"type": "forfeit", "seat": 1, "reason": "startup_failure", "turn": 0} in [
        m["event"] for m in before_first_act if m["type"] == "event"]


def test_first_starting_seat_follows_last_read_page_then_the_loser() -> None:
    def dated(day: str) -> Callable[[], FakeConnection]:
        ready = json.dumps({"type": "ready", "name": "x", "last_read_page": day}).encode()
        return lambda: FakeConnection(respond=random_responder(7), ready=ready)

    table = Table([dated("2026-01-01"), dated("2026-11-28"), dated("2025-05-05")])
    outcome = play_match(request(table, games=3))
    assert outcome.games[0].starting_seat == 1
    for previous, game in zip(outcome.games, outcome.games[1:], strict=False):
        assert previous.placements[game.starting_seat] == max(previous.placements)


def test_same_seed_same_match() -> None:
    def run() -> list[Any]:
        table = Table([honest(1), honest(2)])
        return [(g.placements, g.desmos, g.decisions) for g in
                play_match(request(table, games=3, seed=9)).games]

    assert run() == run()


def test_each_bot_gets_a_seed_of_its_own_for_each_game_and_the_record_keeps_it() -> None:
    """A bot seeding its randomness from game_start.bot_seed plays each game of the match
    differently from the last, and apart from the other seats; the record keeps what each
    seat was sent, so its random choices replay."""
    table = Table([honest(1), honest(2)])
    outcome = play_match(request(table, games=3, seed=9))
    sent = {seat: [m["bot_seed"] for m in conn.sent if m["type"] == "game_start"]
            for seat, (conn,) in table.made.items()}
    assert all(len(set(seeds)) == 3 for seeds in sent.values())
    assert set(sent[0]).isdisjoint(sent[1])
    assert [g.record["referee"]["bot_seeds"] for g in outcome.games] == [
        [sent[0][g], sent[1][g]] for g in range(3)]


def test_a_bot_dying_between_games_is_counted_as_restarted_not_as_a_forfeit() -> None:
    """Its crash is recorded, but it forfeited nothing: the counts people read say so."""
    def dies_after_its_first_game() -> FakeConnection:
        conn = FakeConnection(respond=random_responder(1))

        def exit_at_the_end(message: dict[str, Any]) -> None:
            if message["type"] == "game_end":
                conn.closed, conn.exit_code = True, 1

        conn.on_message = exit_at_the_end
        return conn

    table = Table([dies_after_its_first_game, honest(2)])
    outcome = play_match(request(table, games=2))
    failures = [f for game in outcome.games for f in game.failures]
    assert [f["detail"] for f in failures] == [
        "exited between games, after game 0 of the match ended (exit code 1)"]
    assert outcome.games[1].forfeits == {}
    assert counts_line(failures) == "crash 1 (1 restarted)"


@pytest.mark.parametrize("count", [1, 6])
def test_bot_count_is_checked(count: int) -> None:
    table = Table([honest(i) for i in range(count)])
    with pytest.raises(RulesError, match=f"a match needs 2 to 5 bots, got {count}"):
        play_match(request(table))


def test_act_messages_do_not_grow_with_the_game() -> None:
    table = Table([honest(1), honest(2)])
    play_match(request(table, games=1))
    sizes = [len(json.dumps(m)) for m in table.made[0][0].acts()]
    assert max(sizes) < 3000, "observations carry no history"


def test_outcome_json_is_plain_data() -> None:
    table = Table([honest(1), honest(2)])
    outcome = play_match(request(table, games=2))
    data = json.loads(json.dumps(outcome.to_json(records=True)))
    assert data["standings"][0]["bot"] == "bot0@000000000000"
    assert data["games"][0]["record"]["format"] == "palaestra-record/7"
    assert "record" not in outcome.to_json()["games"][0]


def test_random_bots_replay_move_for_move_from_the_match_seed() -> None:
    """A kit bot's randomness comes from the referee's bot_seed, so a match of real random
    bots in the sandbox is the same game for game, choice for choice."""
    from pathlib import Path

    from arena.registry import resolve

    bot = resolve(Path(__file__).resolve().parents[2] / "bots" / "random.py")

    def play() -> list[list[list[Any]]]:
        outcome = play_match(MatchRequest(bots=[bot, bot], games=2, seed=11,
                                          event_date=dt.date(2026, 11, 29)))
        return [game.record["choices"] for game in outcome.games]

    first = play()
    assert first == play()
    assert first[0] != first[1]  # a fresh seed per game, not one stream replayed


def test_the_bots_ending_after_the_last_game_is_not_that_games_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's duration is its play: the bye and the wait for the bots to exit after the last
    game belong to the match (else the last game of every match looks slow)."""
    clock = [0.0]
    monkeypatch.setattr(match_module, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(games_module, "perf_counter", lambda: clock[0])

    class SlowToExit(FakeConnection):
        def shutdown(self, grace_s: float) -> Any:
            clock[0] += 100.0
            return super().shutdown(grace_s)

    table = Table([lambda: SlowToExit(respond=random_responder(1)),
                   lambda: SlowToExit(respond=random_responder(2))])
    outcome = play_match(request(table, games=2))
    assert [game.duration_s for game in outcome.games] == [0.0, 0.0]
    assert outcome.duration_s == 200.0


def test_in_duplicate_every_deal_is_played_once_per_seat_order() -> None:
    """permutations with 3 bots: 6 games per deal, one per seat order, all on the deal's
    cards; each seating is played by processes of its own, so no process is dealt a deal
    twice (it would know another seat's cards); a bot's results follow it across seats."""
    from itertools import permutations

    table = Table([honest(1), honest(2), honest(3)])
    outcome = play_match(request(table, games=12, seed=5, duplicate="permutations"))
    games = outcome.games
    assert [g.game_index for g in games] == list(range(12))
    for deal in range(2):
        block = games[deal * 6:(deal + 1) * 6]
        assert {g.seed for g in block} == {game_seed(5, deal)}
        assert [tuple(g.entrants) for g in block] == list(permutations(range(3)))
    for bot, conns in table.made.items():
        assert len(conns) == 6, "a process of each bot for each seating"
        for seating, conn in enumerate(conns):  # one seat each, every deal once
            starts = [m for m in conn.sent if m["type"] == "game_start"]
            assert [m["game"] for m in starts] == [seating, 6 + seating]
            assert [m["seat"] for m in starts] == [games[seating].seat_of(bot)] * 2
            assert [m["type"] for m in conn.sent].count("hello") == 1
        assert all(g.seats[g.seat_of(bot)] == f"bot{bot}@000000000000" for g in games)
    for row in outcome.to_json()["bots"]:  # counted for the bot, over its processes
        made = table.made[row["seat"]]
        assert (row["starts"], row["restarts"]) == (6, 0)
        assert row["decisions"] == sum(len(conn.acts()) for conn in made) > 0
    for row in outcome.standings():
        bot = row["seat"]
        assert row["wins"] == sum(1 for g in games if g.won(g.seat_of(bot)))
        assert row["mean_place"] == round(sum(g.placements[g.seat_of(bot)]
                                              for g in games) / 12, 3)
    assert sum(row["wins"] for row in outcome.standings()) == sum(
        1 for g in games for seat in range(3) if g.won(seat))
    data = json.loads(json.dumps(outcome.to_json()))
    assert data["games"][3]["entrants"] == list(games[3].entrants)


def test_in_duplicate_a_deal_is_replayed_like_a_board_the_bots_moved() -> None:
    """The deal's first seating follows ruling 13 (last_read_page, then the previous
    first seating's loser); its replays keep its cards by seat and its starting seat, so each
    bot is dealt each seat's hand (the engine deals from the starting seat: a replay started
    by its own loser would often hand the bots their own cards again)."""
    def dated(day: str, seed: int) -> Callable[[], FakeConnection]:
        ready = json.dumps({"type": "ready", "name": "x", "last_read_page": day}).encode()
        return lambda: FakeConnection(respond=random_responder(seed), ready=ready)

    def hands(game: GameOutcome) -> list[list[str]]:
        dealt = {e["seat"]: e["cards"] for e in game.record["events"] if e["type"] == "deal"}
        return [dealt[seat] for seat in range(len(game.seats))]

    table = Table([dated("2026-01-01", 7), dated("2026-11-28", 8), dated("2025-01-01", 9)])
    games = play_match(request(table, games=12, duplicate="rotations")).games
    assert games[0].starting_seat == 1  # bot 1 read last
    for deal in range(4):
        first, *replays = games[deal * 3:deal * 3 + 3]
        assert first.entrants == [0, 1, 2]
        for replay in replays:
            assert replay.starting_seat == first.starting_seat
            assert hands(replay) == hands(first)
        for bot in range(3):  # every bot held every seat's hand once
            held = {tuple(hands(g)[g.seat_of(bot)]) for g in [first, *replays]}
            assert len(held) == 3
        if deal:
            previous = games[(deal - 1) * 3]
            assert previous.placements[first.starting_seat] == max(previous.placements)


def test_a_duplicate_deal_played_seating_by_seating_at_once_is_the_same_games() -> None:
    """Each seating has processes of its own, so two referees (two tournament workers) can
    play a deal's seatings at the same time: the first tells each board's start as its game
    begins, the replays wait for it. Game for game, the same as one referee playing all."""
    def table() -> Table:
        return Table([honest(1), honest(2), honest(3)])

    def summary(games: list[GameOutcome]) -> list[Any]:
        return [(g.game_index, g.seed, g.starting_seat, g.placements, g.record["choices"])
                for g in sorted(games, key=lambda g: g.game_index)]

    whole = play_match(request(table(), games=12, seed=3, duplicate="rotations")).games
    starts: dict[int, int] = {}
    known = threading.Condition()

    def tell(deal: int, seat: int) -> None:
        with known:
            starts[deal] = seat
            known.notify_all()

    def told(deal: int) -> int:
        with known:
            assert known.wait_for(lambda: deal in starts, timeout=60)
            return starts[deal]

    played: dict[int, list[GameOutcome]] = {}

    def play(seating: int, boards: Boards) -> None:
        played[seating] = play_match(request(table(), games=12, seed=3, duplicate="rotations",
                                             seating=seating), boards=boards).games

    threads = [threading.Thread(target=play, args=(s, Boards(told=told))) for s in (2, 1)]
    threads.append(threading.Thread(target=play, args=(0, Boards(tell=tell))))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [[g.game_index % 3 for g in played[s]] for s in range(3)] == [[s] * 4
                                                                         for s in range(3)]
    assert summary([g for s in range(3) for g in played[s]]) == summary(whole)
    with pytest.raises(RulesError, match="seating 3 of a deal played in 3 seatings"):
        play_match(request(table(), games=3, duplicate="rotations", seating=3))
    with pytest.raises(RulesError, match="a replay seating played alone must be told"):
        play_match(request(table(), games=3, duplicate="rotations", seating=1))


def test_in_duplicate_the_games_are_whole_deals_and_a_stop_waits_for_one() -> None:
    table = Table([honest(1), honest(2), honest(3)])
    with pytest.raises(RulesError, match="with duplicate rotations each deal is played in 3 "
                                         "seatings: the games must be a multiple of 3, got 4"):
        play_match(request(table, games=4, duplicate="rotations"))
    with pytest.raises(RulesError, match="unknown seating 'mirror'"):
        play_match(request(table, games=4, duplicate="mirror"))
    asked: list[int] = []

    def stop(played: list[GameOutcome]) -> bool:
        asked.append(len(played))
        return True

    outcome = play_match(request(table, games=9, duplicate="rotations"), stop=stop)
    assert asked == [3] and len(outcome.games) == 3


def test_every_line_but_hello_fits_in_what_protocol_md_promises() -> None:
    """A C bot reads with a fixed buffer: docs/PROTOCOL.md gives the longest line the referee
    writes, which a 5-player match of bots with the longest names a bot may have (64
    characters of four bytes each) stays within."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text("utf-8")
    found = re.search(r"A line of the referee's fits in ([\d,]+) bytes", text)
    assert found is not None
    bound = int(found[1].replace(",", ""))
    longest: dict[str, int] = {}

    class Measuring(FakeConnection):
        def send(self, data: bytes) -> bool:
            for line in data.splitlines(keepends=True):
                kind = json.loads(line)["type"]
                longest[kind] = max(longest.get(kind, 0), len(line))
            return super().send(data)

    table = Table([lambda seed=seed: Measuring(respond=random_responder(seed))
                   for seed in range(5)])
    match = request(table, games=12)
    for seat, spec in enumerate(match.bots):
        object.__setattr__(spec, "name", "\U0001F600" * 63 + str(seat))
    play_match(match)
    assert {"act", "event", "game_start", "game_end"} <= set(longest)
    del longest["hello"]
    assert max(longest.values()) <= bound, longest
