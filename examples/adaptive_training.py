#!/usr/bin/env python3
"""An adaptive training job under `schedkit serve` (docs/adapt.md, "Under the runtime").

It trains one of schedkit_adapt's models on digits, epoch by epoch, within its time limit. When the
service appends "up" to $SCHEDKIT_EVENTS (its GPUs grew: `schedkit resize JOB --gpus N`), the
trained agent is asked at the start of each of the next three epochs whether to deepen a block with
Net2Net, given the model's layers and the time left, as in the simulated scenarios. It stops before
the next epoch would run past its limit and prints its final test accuracy.

    schedkit submit --time-limit 60s -- python3 examples/adaptive_training.py
    schedkit resize JOB --gpus 2        # "up": the agent decides at the next three epochs

Outside the service, give the limit yourself: --time-limit 60 (then no event ever comes).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from schedkit_adapt import AdaptError  # noqa: E402
from schedkit_adapt.job import Events, allocation  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    # First of all: events written from here on are this run's (earlier runs' lines are skipped).
    events = Events(os.environ.get("SCHEDKIT_EVENTS", ""), skip_existing=True)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="cnn1", help="cnn1 (default) or cnn2")
    parser.add_argument("--agent", default=None, help="agent file (default data/adapt/agent_MODEL.pt)")
    parser.add_argument("--data", default="digits", help="digits (default) or cifar10:DIR")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds, when not run by schedkit serve (which sets SCHEDKIT_TIME_LEFT_S)")
    parser.add_argument("--margin", type=float, default=1.0,
                        help="stop when the next epoch would end less than this many seconds before the limit")
    parser.add_argument("--max-epochs", type=int, default=0, help="stop after this many epochs (0: the limit decides)")
    args = parser.parse_args()
    try:
        # Before torch loads (seconds): the run's clock started with the process.
        alloc = allocation(time_limit_s=args.time_limit)
        if alloc.deadline is None:
            raise AdaptError("no time limit: submit with `schedkit submit --time-limit S` or pass --time-limit S")
        return run(args, alloc, events)
    except AdaptError as e:
        print(f"adaptive_training: {e}", file=sys.stderr)
        return 1


def run(args, alloc, events):
    import torch

    from schedkit_adapt.agent import load_agent
    from schedkit_adapt.data import load_dataset
    from schedkit_adapt.models import NOTHING, describe_model
    from schedkit_adapt.scenario import DECISIONS, Scenario
    from schedkit_adapt.simulate import TrainingContext, TrainingJob

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise AdaptError(f"--device: '{args.device}' requested but torch sees no CUDA device")
    torch.set_num_threads(args.threads)
    agent, _ = load_agent(args.agent or os.path.join(ROOT, "data", "adapt", f"agent_{args.model}.pt"))
    data = load_dataset(args.data)
    # The scenario's simulated clock is not used here: the time is the runtime's.
    context = TrainingContext(data, args.model, Scenario("runtime", budget_s=alloc.time_limit_s), args.seed,
                              device=args.device)
    job = TrainingJob(context)
    print(f"start: model {args.model}, {alloc.gpus} GPUs, {alloc.time_left():.1f} s left of "
          f"{alloc.time_limit_s:g} s", flush=True)
    decisions_left, epoch_s = 0, None
    while True:
        for event in events.poll():
            print(f"event {event['event']}: {event['gpus']} GPUs, time left {event['time_left_s']} s", flush=True)
            decisions_left = DECISIONS if event["event"] == "up" else 0
        if decisions_left:
            left = alloc.time_left()
            action = agent.decide(describe_model(job.model), left, alloc.time_limit_s)
            before = job.multiply_adds
            job.adapt(action)
            decisions_left -= 1
            print(f"after epoch {job.epoch}: decision {DECISIONS - decisions_left}/{DECISIONS} at {left:.1f} s left: "
                  + (f"deepened block {action}" if action != NOTHING else "nothing"), flush=True)
            if epoch_s is not None:
                epoch_s *= job.multiply_adds / before  # a deeper model's epochs take longer
        if args.max_epochs and job.epoch >= args.max_epochs:
            break
        if epoch_s is not None and alloc.time_left() < epoch_s + args.margin:
            break
        started = time.monotonic()
        job.train_epoch()
        epoch_s = time.monotonic() - started
        print(f"epoch {job.epoch}: {epoch_s:.2f} s, {alloc.time_left():.1f} s left", flush=True)
    print(f"final accuracy {job.accuracy():.4f} after {job.epoch} epochs, {len(describe_model(job.model))} layers, "
          f"{alloc.time_left():.1f} s left", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
