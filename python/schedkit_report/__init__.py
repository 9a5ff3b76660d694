"""schedkit report: figures and a self-contained HTML report of a `schedkit sweep` folder.

Usage: python3 -m schedkit_report RESULTS_DIR [--out DIR]   (docs/report.md)
"""

from .data import ReportError, Sweep
from .report import aggregate, build_report
from .stats import mean_ci, t975

__all__ = ["ReportError", "Sweep", "aggregate", "build_report", "mean_ci", "t975"]
