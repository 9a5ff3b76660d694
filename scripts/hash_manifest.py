"""A committed manifest of sha256 hashes ("HASH  NAME" lines, # comments) and the comparison
that scripts/check_identical.py and scripts/check_policies_10k.py share."""
import os


def read(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                h, name = line.split(None, 1)
                out[name.strip()] = h
    return out


def write(path, header, hashes):
    with open(path, "w") as f:
        f.write(f"# {header}\n")
        for name in sorted(hashes):
            f.write(f"{hashes[name]}  {name}\n")


def compare(tool, path, want, got):
    """Prints every changed, missing and new entry; returns how many differ."""
    changed = sorted(k for k in want if got.get(k) != want[k])
    added = sorted(k for k in got if k not in want)
    for k in changed:
        print(f"CHANGED {k}" if k in got else f"MISSING {k}")
    for k in added:
        print(f"NEW     {k}")
    differ = len(changed) + len(added)
    if differ:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        print(f"{tool}: {differ} of {len(want)} entries differ from {os.path.relpath(path, root)}")
    return differ
