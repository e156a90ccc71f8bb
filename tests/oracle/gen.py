#!/usr/bin/python3
"""tests/oracle/gen.py — writes oracle case tables (tests/oracle/README.md).

  gen.py OUT.cases ops_<family>.py...      the cases of the given family files into OUT.cases
  gen.py --coverage OPS.md ops_*.py...     fails for every name of upstream-ops.md that no family
                                           file gives a case

numpy is required: without it this exits non-zero (the ctest fails, it is not skipped).
"""
import importlib.util
import os
import re
import sys

try:
    import numpy  # noqa: F401
except ImportError:
    sys.stderr.write("FAIL: numpy is required by the oracle (apt-get install python3-numpy)\n")
    sys.exit(1)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

numpy.seterr(all="ignore")


def load_family(path, g):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location("oracle_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    g.family = name
    mod.cases(g)


def upstream_names(md):
    names, block = [], False
    for line in open(md):
        s = line.strip()
        if s.startswith("```"):
            block = not block
            continue
        if block and "::" in s and " " not in s:
            names.append(s)
    return names


def main(argv):
    if len(argv) >= 3 and argv[1] == "--coverage":
        names = upstream_names(argv[2])
        g = oracle.Gen()
        for f in argv[3:]:
            load_family(f, g)
        missing = [n for n in names if n not in g.ops]
        for n in missing:
            print("NO ORACLE CASES: %s" % n)
        extra = sorted(set(g.ops) - set(names))
        for n in extra:
            print("note: cases for %s (not in upstream-ops.md)" % n)
        print("%d upstream names, %d with oracle cases, %d without" % (
            len(names), len(names) - len(missing), len(missing)))
        if len(names) != 247:
            print("FAIL: expected 247 names, parsed %d" % len(names))
            return 1
        return 1 if missing else 0
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    g = oracle.Gen()
    for f in argv[2:]:
        load_family(f, g)
    tmp = argv[1] + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(g.text())
    os.replace(tmp, argv[1])
    print("%s: %d cases for %d operators" % (argv[1], len(g.ids), len(g.ops)))
    return 0 if g.ids else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
