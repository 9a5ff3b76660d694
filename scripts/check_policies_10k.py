#!/usr/bin/env python3
"""Checks every registered policy's jobs.csv on a generated 10,000-job trace against a manifest.

The fidelity runs (scripts/check_identical.py) pin small real traces; this pins the busy case
that the engine's and the queue policies' fast paths are built for (issue 20): 10,000 synthetic
Blox-style jobs (`schedkit generate --jobs 10000 --jobs-per-hour 1.8 --seed 1`) on the shipped
8 x 8-GPU cluster, about 90 % offered load, so that queues form and preemptive policies preempt.
Each registered policy runs with its defaults (and under `--compat muri` for the queue policies,
whose replace-all mode is another code path); its jobs.csv is hashed.

  scripts/check_policies_10k.py [--cli build/schedkit]     compare with the manifest
  scripts/check_policies_10k.py --update                    rewrite the manifest
  scripts/check_policies_10k.py --list                      print the cases
  scripts/check_policies_10k.py --quick                     only the fast runs (the test suite)

Policies left out, and why, are listed in SKIPPED. Exit 1 names every run whose hash changed,
2 if a command failed.
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

import hash_manifest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "tests", "golden", "policies_10k.sha256")
GENERATE = ["generate", "--jobs", "10000", "--jobs-per-hour", "1.8", "--seed", "1"]
# Policies that `schedkit policies` lists but that do not run here, and why.
SKIPPED = {
    "lucid": "needs Lucid's virtual-cluster and estimate files (pinned by check_identical.py)",
    "dynamic": "a meta-policy: every 300-s round simulates its 9 candidates to the end of the "
               "backlog (hours here); its candidates run here, its choices are tested in "
               "tests/policies/dynamic_test.cc",
}
# Also run under `--compat muri` (replace-all preemption and Muri's progress model, another
# code path). LAS is left out there: it rebuilds its schedule at every 300-s wake-up of every
# running job, minutes at this size.
COMPAT_POLICIES = ["fifo", "sjf", "srtf", "srsf", "tiresias"]
# Runs that take a second or more each; --quick (the test suite's `policies_10k`) leaves them
# out. The full check is the command of docs/performance.md.
SLOW = {"las", "gittins", "tiresias-gittins", "antman", "themis", "muri-s", "muri-l", "gavel"}


def policies(cli):
    r = subprocess.run([cli, "policies"], cwd=ROOT, capture_output=True, text=True, check=True)
    names = []
    section = ""
    for line in r.stdout.splitlines():  # "  NAME   description"; options are indented deeper.
        if line and not line[0].isspace():
            section = line
        elif section.startswith("Policies") and line.startswith("  ") and not line[2:3].isspace():
            names.append(line.split()[0])
    return names


def cases(cli, quick):
    out = []
    for p in policies(cli):
        if p in SKIPPED or (quick and p in SLOW):
            continue
        out.append((p, ["simulate", "--policy", p]))
        if p in COMPAT_POLICIES:
            out.append((p + "-compat-muri", ["simulate", "--compat", "muri", "--policy", p]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "schedkit"))
    ap.add_argument("--update", action="store_true", help="rewrite the manifest from this build")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    ap.add_argument("--quick", action="store_true", help="leave out the runs in SLOW")
    args = ap.parse_args()
    cli = os.path.abspath(args.cli)
    selected = cases(cli, args.quick)
    if args.list:
        for name, argv in selected:
            print(name + ": schedkit " + " ".join(argv) + " --trace TRACE")
        for name, why in sorted(SKIPPED.items()):
            print(f"{name}: skipped ({why})")
        return 0
    got = {}
    with tempfile.TemporaryDirectory(prefix="schedkit-10k-") as tmp:
        trace = os.path.join(tmp, "trace.csv")
        r = subprocess.run([cli] + GENERATE + ["--out", trace], cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(f"check_policies_10k: generate exited {r.returncode}: {r.stderr.strip()}\n")
            return 2
        for name, argv in selected:
            out_dir = os.path.join(tmp, name)
            cmd = [cli] + argv + ["--trace", trace, "--out", out_dir]
            r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                sys.stderr.write(f"check_policies_10k: {name}: `{' '.join(cmd)}` exited {r.returncode}: "
                                 f"{r.stderr.strip()}\n")
                return 2
            with open(os.path.join(out_dir, "jobs.csv"), "rb") as f:
                got[name] = hashlib.sha256(f.read()).hexdigest()
    if args.update:
        hash_manifest.write(MANIFEST, "sha256 of each policy's jobs.csv on a generated 10,000-job trace; "
                            "scripts/check_policies_10k.py", got)
        print(f"check_policies_10k: wrote {len(got)} hashes to {os.path.relpath(MANIFEST, ROOT)}")
        return 0
    want = hash_manifest.read(MANIFEST)
    if args.quick:
        want = {k: v for k, v in want.items() if k in got}
    if hash_manifest.compare("check_policies_10k", MANIFEST, want, got):
        return 1
    print(f"check_policies_10k: jobs.csv of {len(want)} runs on 10,000 jobs byte-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
