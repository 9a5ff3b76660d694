#!/usr/bin/env python3
"""Runs every fidelity run and checks its outputs against a committed manifest of hashes.

Results that must not move (docs/fidelity.md) are pinned here: each case is one `schedkit`
command run with `--out`; every file it writes is hashed after dropping what legitimately
varies between runs (the `wall_s` line of summary.json, the `wall_s` column of CSV files).

  scripts/check_identical.py [--cli build/schedkit]            compare with the manifest
  scripts/check_identical.py --update                           rewrite the manifest
  scripts/check_identical.py --list                             print the cases

Run from anywhere; commands run in the repository root so that the trace paths recorded in
summary.json are the same on every machine (../shared beside the checkout). Exit 1 names every
file whose hash changed, 2 if a command failed or ../shared is missing.
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

import hash_manifest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "tests", "golden", "identical.sha256")
MURI = "../shared/data/muri"
LUCID = "../shared/data/lucid"
TRACE3 = ["--trace", MURI + "/traces/trace3.csv", "--cluster", MURI + "/specs/sim_n8g8.csv"]
PROFILE_OVERHEADS = ["--overhead-table", MURI + "/profile_table.csv"]
ORDERING = ["fifo", "sjf", "srtf", "srsf", "las", "tiresias", "gittins", "tiresias-gittins"]


def cases():
    """(name, argv after `schedkit`) for every run whose outputs must not move."""
    out = []
    for p in ORDERING + ["themis", "antman"]:
        out.append((f"muri-trace3-compat-{p}", ["simulate", "--compat", "muri", "--policy", p] + TRACE3))
        out.append((f"muri-trace3-clean-{p}", ["simulate", "--policy", p] + TRACE3))
    for p in ["muri-s", "muri-l"]:
        for autopack in ["true", "false"]:
            args = ["--policy", p, "--opt", "autopack=" + autopack] + TRACE3 + PROFILE_OVERHEADS
            out.append((f"muri-trace3-compat-{p}-autopack-{autopack}", ["simulate", "--compat", "muri"] + args))
            out.append((f"muri-trace3-clean-{p}-autopack-{autopack}", ["simulate"] + args))
    out.append(("muri-trace3-compat-themis-least", ["simulate", "--compat", "muri", "--policy", "themis",
                                                    "--opt", "shares=least"] + TRACE3))
    out.append(("muri-trace3-compat-themis-figure", ["simulate", "--compat", "muri", "--policy", "themis",
                                                     "--runtime-factor", "1", "--opt", "isolated_time=seconds"]
                + TRACE3))
    for p in ["srtf", "srsf", "tiresias"]:
        out.append((f"muri-trace3pr-compat-{p}", ["simulate", "--compat", "muri", "--policy", p,
                                                 "--trace", MURI + "/traces/trace3_pr.csv",
                                                 "--cluster", MURI + "/specs/sim_n8g8.csv"]))
    lucid_trace = ["--trace", LUCID + "/venus_synth_seed1.csv"]
    for p in ["fifo", "sjf", "qssf", "tiresias", "lucid"]:
        out.append((f"lucid-seed1-compat-{p}", ["simulate", "--compat", "lucid", "--policy", p] + lucid_trace
                    + ["--opt", "lucid_dir=" + LUCID]))
    for profiler in ["true", "false"]:
        out.append((f"lucid-seed1-clean-lucid-profiler-{profiler}",
                    ["simulate", "--vc-config", LUCID + "/vc_config.csv", "--policy", "lucid"] + lucid_trace
                    + ["--opt", "estimates=", "--opt", "profiler=" + profiler]))
    for s in ["fair", "fifo", "fifo-half", "decima", "decima-greedy"]:
        out.append((f"dag-{s}-seeds-0-4", ["dag", "simulate", "--scheduler", s, "--episodes", "5"]))
        out.append((f"dag-{s}-seed-7", ["dag", "simulate", "--scheduler", s, "--seed", "7"]))
    return out


def normalised(path):
    """The file's bytes without what varies from run to run or checkout to checkout: wall-clock
    seconds, and the checkout's own absolute path (written where a default file is expanded, e.g.
    the DAG workload), which becomes <root>."""
    with open(path, "rb") as f:
        data = f.read().replace(ROOT.encode() + b"/", b"<root>/")
    if path.endswith(".json"):
        return b"".join(l for l in data.splitlines(True) if b'"wall_s"' not in l)
    if path.endswith(".csv"):
        lines = data.splitlines(True)
        if lines and b"wall_s" in lines[0].rstrip(b"\r\n").split(b","):
            col = lines[0].rstrip(b"\r\n").split(b",").index(b"wall_s")
            kept = []
            for l in lines:
                end = l[len(l.rstrip(b"\r\n")):]
                cells = l.rstrip(b"\r\n").split(b",")
                kept.append(b",".join(cells[:col] + cells[col + 1:]) + end)
            return b"".join(kept)
    return data


def run_all(cli, tmp, selected):
    hashes = {}
    for name, argv in selected:
        out_dir = os.path.join(tmp, name)
        cmd = [cli] + argv + ["--out", out_dir]
        r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.stderr.write(f"check_identical: {name}: `{' '.join(cmd)}` exited {r.returncode}: "
                             f"{r.stderr.strip()}\n")
            sys.exit(2)
        for dirpath, _, files in os.walk(out_dir):
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, tmp)
                hashes[rel] = hashlib.sha256(normalised(path)).hexdigest()
    return hashes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "schedkit"))
    ap.add_argument("--update", action="store_true", help="rewrite the manifest from this build")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    ap.add_argument("--only", default="", help="run only cases whose name contains this")
    args = ap.parse_args()
    selected = [c for c in cases() if args.only in c[0]]
    if args.list:
        for name, argv in selected:
            print(name + ": schedkit " + " ".join(argv))
        return 0
    if not os.path.isdir(os.path.join(ROOT, MURI)):
        sys.stderr.write(f"check_identical: {os.path.normpath(os.path.join(ROOT, MURI))} is missing "
                         "(../shared must sit beside the checkout)\n")
        return 2
    with tempfile.TemporaryDirectory(prefix="schedkit-identical-") as tmp:
        got = run_all(os.path.abspath(args.cli), tmp, selected)
    if args.update:
        if args.only:
            got = {**hash_manifest.read(MANIFEST), **got}
        hash_manifest.write(MANIFEST, "sha256 of every fidelity run's outputs (wall_s removed); "
                            "scripts/check_identical.py", got)
        print(f"check_identical: wrote {len(got)} hashes to {os.path.relpath(MANIFEST, ROOT)}")
        return 0
    want = hash_manifest.read(MANIFEST)
    if args.only:
        want = {k: v for k, v in want.items() if k.split("/")[0] in {n for n, _ in selected}}
    if hash_manifest.compare("check_identical", MANIFEST, want, got):
        return 1
    print(f"check_identical: {len(want)} outputs of {len(selected)} runs byte-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
