"""`python3 -m schedkit_report RESULTS_DIR [--out DIR] [--baseline POLICY]`; `schedkit report` execs this."""

import argparse
import sys

import matplotlib

matplotlib.use("Agg")  # before anything imports pyplot; the package itself never does

from . import ReportError, build_report  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="schedkit report",
        description="Write figures (PNG and PDF) and a self-contained index.html for a sweep.")
    parser.add_argument("results_dir", help="a `schedkit sweep` output folder (has results.csv)")
    parser.add_argument("--out", help="output folder (default: RESULTS_DIR/report)")
    parser.add_argument("--baseline", help="policy label the others are compared with, paired by "
                                           "seed (default: the sweep's first policy)")
    args = parser.parse_args(argv)
    try:
        index = build_report(args.results_dir, args.out, args.baseline)
    except (ReportError, OSError) as e:
        print(f"schedkit report: {e}", file=sys.stderr)
        return 1
    print(f"report: {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
