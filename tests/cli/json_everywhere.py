"""Driver of tests/cli/json_everywhere.sh: runs the CLI with --json and parses every output (and
checks that a failing text-mode inspect prints only its one error line)."""
import glob
import json
import os
import subprocess
import sys

cli, tmp, corpus = sys.argv[1:4]
failures = []
runs = 0


def reject_constant(name):
    raise ValueError("non-JSON constant " + name)


def check(args, expect_ok=None, want=None):
    """Runs `pte ARGS --json`; the output must parse; returns the document."""
    global runs
    runs += 1
    p = subprocess.run([cli] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    label = " ".join(os.path.basename(a) for a in args)
    try:
        doc = json.loads(p.stdout.decode("utf-8", errors="strict"), parse_constant=reject_constant)
    except Exception as e:  # noqa: BLE001 - any parse failure is a test failure
        failures.append("%s: exit %d, output does not parse (%s): %r" % (label, p.returncode, e, p.stdout[:200]))
        return None
    if not isinstance(doc, dict):
        failures.append("%s: output is not an object" % label)
        return None
    if p.returncode != 0:
        # the guard's error object, or a verb's own report of a failure (prepare, test)
        own = "exit_code" not in doc
        if doc.get("ok") is not False or (not own and doc.get("exit_code") != p.returncode) or (
                "status" not in doc and "failed" not in doc) or not (doc.get("message") or doc.get("failed")):
            failures.append("%s: exit %d but the error object is %r" % (label, p.returncode, doc))
    if expect_ok is not None and (p.returncode == 0) != expect_ok:
        failures.append("%s: exit %d, expected %s" % (label, p.returncode, "success" if expect_ok else "failure"))
    if want:
        want(label, doc)
    return doc


cases = sorted(glob.glob(os.path.join(tmp, "cases", "*")))
if len(cases) < 100:
    print("FAIL: only %d catalogue inputs" % len(cases), file=sys.stderr)
    sys.exit(1)
out = os.path.join(tmp, "out.pte")
for c in cases:
    check(["inspect", c, "--json"])
    # text mode: a failure prints its error line on stderr and nothing on stdout
    p = subprocess.run([cli, "inspect", c], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    runs += 1
    if p.returncode != 0 and (p.stdout or p.stderr.count(b"\n") != 1):
        failures.append("inspect %s (text): exit %d with stdout %r, stderr %r" % (os.path.basename(c), p.returncode,
                                                                                p.stdout[:80], p.stderr[:200]))
    if c.endswith(".bpte"):
        check(["test", c, "--json"])
    elif c.endswith(".pte"):
        check(["run", c, "--json", "--output-dir", os.path.join(tmp, "o")])
        check(["prepare", c, "-o", out, "--json", "--no-fsync"])
        check(["migrate", c, "-o", out, "--json"])

# a string that is not UTF-8: the method name "forward" with its first byte replaced by 0xFF
src = os.path.join(corpus, "etrs_models_add.pte")
data = open(src, "rb").read()
i = data.find(b"forward")
if i < 0:
    failures.append("etrs_models_add.pte has no 'forward' string")
else:
    bad = os.path.join(tmp, "ff_name.pte")
    open(bad, "wb").write(data[:i] + b"\xff" + data[i + 1:])

    def ff_name(label, doc):
        names = [m.get("name") for m in doc.get("methods", []) if isinstance(m, dict)]
        if "\ufffdorward" not in names:
            failures.append("%s: method names %r lack U+FFFD 'orward'" % (label, names))

    check(["inspect", bad, "--json"], expect_ok=True, want=ff_name)
    check(["run", bad, "--json"])

# dtype names agree between inspect --json and run --json (pte's names; the schema's enum name
# is inspect's "scalar_type")
add = os.path.join(corpus, "etrs_models_add.pte")


def same_dtype(label, doc):
    d = doc.get("methods", [{}])[0].get("inputs", [{}])[0]
    if d.get("dtype") != "float32" or d.get("scalar_type") != "FLOAT":
        failures.append("%s: input 0 dtype %r / scalar_type %r" % (label, d.get("dtype"), d.get("scalar_type")))


check(["inspect", add, "--json"], expect_ok=True, want=same_dtype)
check(["run", add, "--json"], expect_ok=True,
      want=lambda label, doc: doc["inputs"][0].get("dtype") == "float32" or failures.append(label + ": run dtype"))

# the corpus, whole
for f in sorted(glob.glob(os.path.join(corpus, "*.pt*"))):
    check(["inspect", f, "--json"], expect_ok=True)

# bad command lines and missing files, every verb
for verb in ["inspect", "run", "test", "prepare", "migrate", "synth"]:
    check([verb, "--json", "--no-such-option"], expect_ok=False)
    check([verb, "--json", os.path.join(tmp, "missing.pte")], expect_ok=False)
check(["synth", "mlp", "-o", os.path.join(tmp, "s.pte"), "--widths", "8,8", "--json"], expect_ok=True)

for f in failures[:40]:
    print("FAIL: " + f, file=sys.stderr)
print("%d passed, %d failed" % (runs - len(failures), len(failures)))
sys.exit(1 if failures else 0)
