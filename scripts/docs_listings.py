#!/usr/bin/env python3
"""Keeps the docs' listings of the registries true: regenerates them from the built binary.

A listing in a docs page sits between two markers and is rewritten from a command's output:

    <!-- listing: policies -->          the fenced text of `schedkit policies`
    <!-- end listing -->
    <!-- table: policies -->            a Markdown table built from `schedkit policies --json`
    <!-- end table -->                  (also: placements, admissions)

  scripts/docs_listings.py [--cli build/schedkit]           rewrite every listing in docs/*.md
  scripts/docs_listings.py --check [--cli build/schedkit]   exit 1 naming each stale page

Listing names are `schedkit` argument lists with spaces (`policies`, `gavel policies`, `fgd policies`,
`dag schedulers`), or `policy NAME`: one policy's entry of `schedkit policies`. The CTest `docs_listings` runs --check, so a new policy, option or default
that is not in the docs fails the suite with the command that fixes it.
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"(<!-- (listing|table): ([a-z -]+) -->\n)(.*?)(<!-- end \2 -->)", re.S)


def run(cli: str, args: list[str]) -> str:
    done = subprocess.run([cli] + args, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"docs_listings: {cli} {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(entries: list[dict]) -> str:
    """One row per registered module: name, what it does, default modules, options."""
    has_modules = entries and "placement" in entries[0]
    head = ["Name", "What it does"] + (["Placement", "Admission"] if has_modules else []) + ["Options (default)"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for e in entries:
        opts = "<br>".join(f"`{o['name']}` ({cell(o['default']) or 'empty'})" for o in e["options"]) or "none"
        modules = ([f"`{e['placement']}`" if e["placement"] else "its own",
                    f"`{e['admission']}`" if e["admission"] else "its own"] if has_modules else [])
        rows.append("| " + " | ".join([f"`{e['name']}`", cell(e["description"])] + modules + [opts]) + " |")
    return "\n".join(rows) + "\n"


def one_policy(listing: str, name: str) -> str:
    """The entry of policy `name` in `schedkit policies`' text: its line and the more-indented ones under it."""
    lines = listing.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("  " + name + " "):
            end = i + 1
            while end < len(lines) and lines[end].startswith("    "):
                end += 1
            return "".join(lines[i:end])
    sys.exit(f"docs_listings: no policy '{name}' in `schedkit policies`")


def render(cli: str, kind: str, name: str, cache: dict) -> str:
    if kind == "listing" and name.startswith("policy "):
        if "policies" not in cache:
            cache["policies"] = run(cli, ["policies"])
        return "```\n" + one_policy(cache["policies"], name.split()[1]) + "```\n"
    if kind == "listing":
        return "```\n" + run(cli, name.split()) + "```\n"
    if "json" not in cache:
        cache["json"] = json.loads(run(cli, ["policies", "--json"]))
    if name not in cache["json"]:
        sys.exit(f"docs_listings: unknown table '{name}' (policies, placements, admissions)")
    return table(cache["json"][name])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default=str(ROOT / "build" / "schedkit"))
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a page is stale")
    args = parser.parse_args()
    cache: dict = {}
    stale = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text()
        new = BLOCK.sub(lambda m: m.group(1) + render(args.cli, m.group(2), m.group(3), cache) + m.group(5), text)
        if new == text:
            continue
        stale.append(page.relative_to(ROOT))
        if not args.check:
            page.write_text(new)
    if args.check and stale:
        print("docs_listings: stale listings in " + ", ".join(map(str, stale)) +
              "; run: python3 scripts/docs_listings.py --cli build/schedkit", file=sys.stderr)
        return 1
    for p in stale:
        print(f"docs_listings: rewrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
