"""Train the learned bot's policy (numpy only) and write its weights.

    python examples/train_learned.py --seed 1 --out bots/learned/weights.npz

Imitates the heuristic bot against greedy, then sharpens the policy by REINFORCE against
greedy, then measures it against greedy over duplicate deals (arena.rl.train). The same seed
writes the same weights. Without --out they go to weights.npz in the working directory: a
small trial run never replaces the learned bot's.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from arena.errors import ArenaError
from arena.rating.h2h import wilson
from arena.rl.opponents import load_opponent
from arena.rl.policy import Policy
from arena.rl.train import Examples, collect, evaluate, fit, reinforce


def say(text: str) -> None:
    print(f"[{time.process_time():7.1f}s cpu] {text}", flush=True)


def count(least: int) -> Callable[[str], int]:
    """An argument type: a whole number of at least ``least``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"expected {least} or more, got {text}")
        return value
    return parse


def arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked before any training: counts in range, a ``.npz`` file to
    write (numpy would add the suffix itself, to a name the log would not give) and bots
    that load."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=count(0), default=1, help="the seed of every draw (1)")
    parser.add_argument("--out", type=Path, default=Path("weights.npz"),
                        help="the weights file to write, a .npz (weights.npz here; "
                             "bots/learned/weights.npz replaces the learned bot's)")
    parser.add_argument("--teacher", default="heuristic",
                        help="the bot imitated: a name or a path (heuristic)")
    parser.add_argument("--opponent", default="greedy",
                        help="the bot played against: a name or a path (greedy)")
    parser.add_argument("--imitation-games", type=count(0), default=3000,
                        help="games of the teacher's decisions to imitate (3000; 0: none)")
    parser.add_argument("--epochs", type=count(0), default=12,
                        help="passes over those decisions (12)")
    parser.add_argument("--hidden", type=count(1), default=128,
                        help="hidden units of the network (128)")
    parser.add_argument("--pg-games", type=count(0), default=4000,
                        help="games of policy gradient against the opponent (4000; 0: none)")
    parser.add_argument("--eval-deals", type=count(0), default=500,
                        help="deals measured against the opponent at the end, each from "
                             "both seats (500; 0: none)")
    args = parser.parse_args(argv)
    if args.out.suffix != ".npz" or args.out.is_dir():
        parser.error(f"argument --out: expected a file name ending in .npz, got {args.out}")
    for flag, bot in (("--teacher", args.teacher), ("--opponent", args.opponent)):
        try:
            load_opponent(bot)
        except ArenaError as exc:
            parser.error(f"argument {flag}: {exc}")
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"argument --out: cannot write {args.out}: {exc.strerror}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    wall = time.monotonic()
    policy = Policy.initial(args.hidden, args.seed)
    if args.imitation_games:
        say(f"collecting {args.teacher}'s decisions over {args.imitation_games} games "
            f"against {args.opponent}")
        examples: Examples = collect(args.teacher, args.opponent, args.imitation_games,
                                     args.seed)
        say(f"{len(examples.chosen)} decisions")
        fit(policy, examples, args.epochs, args.seed, progress=say)
    if args.pg_games:
        reinforce(policy, args.opponent, args.pg_games, args.seed, progress=say)
    policy.save(args.out, seed=args.seed, teacher=args.teacher, opponent=args.opponent,
                imitation_games=args.imitation_games, epochs=args.epochs, hidden=args.hidden,
                pg_games=args.pg_games)
    say(f"wrote {args.out} ({time.monotonic() - wall:.0f}s wall)")
    if args.eval_deals:
        score, games = evaluate(policy, args.opponent, args.eval_deals, args.seed + 1000)
        low, high = wilson(score, games)
        say(f"against {args.opponent}: ahead in {score / games:.1%} of {games} games "
            f"(95% interval {low:.1%}-{high:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
