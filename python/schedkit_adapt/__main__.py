"""`python3 -m schedkit_adapt simulate|learn|evaluate ...` (docs/adapt.md)."""

import argparse
import os
import sys
import time

import torch

from . import AdaptError


def _check_counts(args):
    """Counts that must be positive, and a seed torch accepts."""
    for name in ["threads", "episodes", "batch", "rounds"]:
        value = getattr(args, name, 1)
        if value < 1:
            raise AdaptError(f"--{name}: {value} is not a positive integer")
    if getattr(args, "seed", 0) < 0:
        raise AdaptError(f"--seed: {args.seed} is negative")


def _check_device(device):
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise AdaptError(f"--device: '{device}' requested but torch sees no CUDA device")
    return device


def cmd_simulate(args):
    from .data import load_dataset
    from .models import ARCHITECTURES, NOTHING, NUM_ACTIONS
    from .scenario import DECISIONS, SCENARIOS, scenario_by_name
    from .simulate import Progress, TrainingContext, sequence_key, simulate_scenario, write_cache

    models = sorted(ARCHITECTURES) if args.model == "all" else args.model.split(",")
    scenarios = list(SCENARIOS) if args.scenario == "all" else args.scenario.split(",")
    for name in models:
        if name not in ARCHITECTURES:
            raise AdaptError(f"--model: unknown model '{name}' (known: {', '.join(sorted(ARCHITECTURES))})")
    checked = [scenario_by_name(name) for name in scenarios]
    device = _check_device(args.device)
    data = load_dataset(args.data)
    for model in models:
        for scenario in checked:
            scenario_name = scenario.name
            context = TrainingContext(data, model, scenario, args.seed, device=device)
            progress = Progress(NUM_ACTIONS ** DECISIONS, f"{model} {scenario_name}")
            cpu_start = time.process_time()
            outcomes = simulate_scenario(context, progress)
            command = (f"python3 -m schedkit_adapt simulate --model {model} --scenario {scenario_name} "
                       f"--data {args.data} --seed {args.seed} --out DIR")
            path = os.path.join(args.out, f"{model}_{scenario_name}.json")
            write_cache(path, context, args.data, outcomes, command)
            best = max(o["accuracy"] for o in outcomes.values())
            nothing = outcomes[sequence_key([NOTHING] * DECISIONS)]["accuracy"]
            print(f"{path}: {len(outcomes)} sequences, best accuracy {best:.4f}, no adaptation {nothing:.4f}, "
                  f"{time.process_time() - cpu_start:.1f} CPU s, "
                  f"{progress.elapsed():.1f} s wall")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m schedkit_adapt",
                                     description="Adaptive jobs: when and where to deepen a model (Net2Net).")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="train all 64 action sequences of scenarios and cache the outcomes")
    sim.add_argument("--model", default="all", help="cnn1, cnn2, a comma list or all (default)")
    sim.add_argument("--scenario", default="all", help="early, early-middle, middle, middle-late, late, "
                                                       "a comma list or all (default)")
    sim.add_argument("--data", default="digits", help="digits (default) or cifar10:DIR")
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    sim.add_argument("--out", required=True, help="folder for MODEL_SCENARIO.json")
    sim.set_defaults(run=cmd_simulate)

    from .agent import add_agent_commands
    add_agent_commands(sub)

    args = parser.parse_args(argv)
    try:
        _check_counts(args)
        torch.set_num_threads(args.threads)
        return args.run(args)
    except AdaptError as e:
        print(f"schedkit_adapt {args.command}: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"schedkit_adapt {args.command}: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
