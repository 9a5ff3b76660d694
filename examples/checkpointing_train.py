#!/usr/bin/env python3
"""A tiny training loop that survives preemption under `schedkit serve` (docs/runtime.md).

No framework: the "model" is a running sum. On SIGTERM (what the runtime sends when the
policy preempts or cancels a job) it saves its step and state to
$SCHEDKIT_CHECKPOINT_DIR/checkpoint.json and exits; when the policy resumes the job, it
loads the checkpoint and carries on. $SCHEDKIT_RESTART_COUNT says how many times the job
was started again.

    schedkit submit -- python3 examples/checkpointing_train.py --steps 100 --step-s 0.05
"""
import argparse
import json
import os
import signal
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--step-s", type=float, default=0.05, help="seconds per training step")
    args = parser.parse_args()

    ckpt_dir = os.environ.get("SCHEDKIT_CHECKPOINT_DIR", ".")
    ckpt = os.path.join(ckpt_dir, "checkpoint.json")
    restarts = int(os.environ.get("SCHEDKIT_RESTART_COUNT", "0"))
    step, total = 0, 0.0
    if os.path.exists(ckpt):
        with open(ckpt) as f:
            saved = json.load(f)
        step, total = saved["step"], saved["total"]
    print(f"job {os.environ.get('SCHEDKIT_JOB_ID', '?')} start restart_count={restarts} "
          f"resumed_from={step} gpus={os.environ.get('CUDA_VISIBLE_DEVICES', '')}", flush=True)

    stop = {"asked": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(asked=True))

    def save():
        os.makedirs(ckpt_dir, exist_ok=True)
        tmp = ckpt + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"step": step, "total": total}, f)
        os.replace(tmp, ckpt)  # Atomic: a kill mid-write leaves the previous checkpoint.

    while step < args.steps:
        if stop["asked"]:
            save()
            print(f"preempted at step {step}: checkpoint saved", flush=True)
            sys.exit(143)
        time.sleep(args.step_s)  # One "training step".
        total += step
        step += 1
    save()
    print(f"done steps={step} total={total:.0f}", flush=True)


if __name__ == "__main__":
    main()
