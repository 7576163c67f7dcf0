"""Train the learned bot's policy (numpy only) and write its weights.

    python examples/train_learned.py --seed 1 --out bots/learned/weights.npz

Imitates the heuristic bot against greedy, then sharpens the policy by REINFORCE against
greedy, then measures it against greedy over duplicate deals (arena.rl.train). The same seed
writes the same weights.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from arena.rating.h2h import wilson
from arena.rl.policy import Policy
from arena.rl.train import collect, evaluate, fit, reinforce


def say(text: str) -> None:
    print(f"[{time.process_time():7.1f}s cpu] {text}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("bots/learned/weights.npz"))
    parser.add_argument("--teacher", default="heuristic")
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--imitation-games", type=int, default=3000)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--pg-games", type=int, default=4000)
    parser.add_argument("--eval-deals", type=int, default=500)
    args = parser.parse_args(argv)

    wall = time.monotonic()
    say(f"collecting {args.teacher}'s decisions over {args.imitation_games} games "
        f"against {args.opponent}")
    examples = collect(args.teacher, args.opponent, args.imitation_games, args.seed)
    say(f"{len(examples.chosen)} decisions")
    policy = Policy.initial(args.hidden, args.seed)
    fit(policy, examples, args.epochs, args.seed, progress=say)
    if args.pg_games:
        reinforce(policy, args.opponent, args.pg_games, args.seed, progress=say)
    args.out.parent.mkdir(parents=True, exist_ok=True)
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
