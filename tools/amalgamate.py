#!/usr/bin/env python3
"""amalgamate.py: the core runtime as one translation unit (host-only tool; README "Embedded").

    python3 tools/amalgamate.py [--out DIR]      (default DIR: build/amalgamation)

writes
    DIR/pte.h          the public headers the core needs (plus pte/portable_kernels.h), one file
    DIR/pte.c          src/base, src/format (no builder, no JSON printers), the generated verifiers
                       and accessors of program/flat_tensor/bundled_program/scalar_type, src/runtime
                       (program loader, method, kernel and backend registries, buffer and window
                       loaders)
    DIR/pte_kernels.c  the portable kernels (kernels/portable), optional second unit

Each unit compiles alone with `cc -std=c11 -Wall -Wextra -Werror -c pte.c` next to pte.h; link
with -lm when the kernels are used. Every quoted #include is inlined once (public headers into
pte.h, internal headers where first needed); system includes are kept. Macros a .c file defines
are #undef'd at the end of that file's section, so they stay file-scoped as in the normal build;
file-scope static names must be unique across the sources of a unit (the script stops with the
colliding names when they are not). Nothing here runs at build time: `make amalgamation` and the
ctest `amalgamation` call it.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE_ROOTS = ["include", "src", "generated", "kernels"]

CORE_SOURCES = [
    "src/base/*.c",
    "src/format/*.c",
    "generated/pte_gen/*_gen.c",
    "src/runtime/*.c",
]
CORE_EXCLUDE = re.compile(r"/(fb_json|fb_builder)\.c$|/(xnnpack|etdump)_gen\.c$")
KERNEL_SOURCES = ["kernels/portable/util/*.c", "kernels/portable/*.c"]
EXTRA_PUBLIC = ["pte/portable_kernels.h"]

INC_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
DEFINE_RE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)")
UNDEF_RE = re.compile(r"^\s*#\s*undef\s+([A-Za-z_][A-Za-z0-9_]*)")
FEATURE_RE = re.compile(r"^\s*#\s*define\s+(_POSIX_C_SOURCE|_GNU_SOURCE|_DEFAULT_SOURCE|_XOPEN_SOURCE)\b")
# a file-scope static function or object: `static [const|inline|...] type name(` or `... name =`/`[`/`;`
STATIC_RE = re.compile(
    r"^static\s+(?:(?:const|inline|volatile|_Thread_local|struct|enum|union|unsigned|signed|long|short)\s+)*"
    r"[A-Za-z_][A-Za-z0-9_]*[\s\*]+(?:const\s+)?\**\s*([A-Za-z_][A-Za-z0-9_]*)\s*[\(\[=;]")
TYPEDEF_RE = re.compile(r"^typedef\b.*?\b([A-Za-z_][A-Za-z0-9_]*)\s*;\s*$|^}\s*([A-Za-z_][A-Za-z0-9_]*)\s*;")


CLANG_UNUSED_PUSH = ("#if defined(__clang__)\n#pragma clang diagnostic push\n"
                     "#pragma clang diagnostic ignored \"-Wunused-function\"\n#endif")
CLANG_UNUSED_POP = "#if defined(__clang__)\n#pragma clang diagnostic pop\n#endif"


def expand_glob(patterns, exclude=None):
    import glob
    out = []
    for p in patterns:
        for f in sorted(glob.glob(os.path.join(ROOT, p))):
            rel = os.path.relpath(f, ROOT)
            if exclude and exclude.search("/" + rel):
                continue
            out.append(rel)
    return out


def resolve(name, from_file):
    cands = [os.path.join(os.path.dirname(from_file), name)] + [os.path.join(r, name) for r in INCLUDE_ROOTS]
    for c in cands:
        if os.path.isfile(os.path.join(ROOT, c)):
            return os.path.normpath(c)
    return None


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read().splitlines()


def public_closure(sources):
    """pte/*.h headers the sources include, transitively, in first-use order."""
    order, seen = [], set()

    def visit(rel):
        for line in read(rel):
            m = INC_RE.match(line)
            if not m:
                continue
            r = resolve(m.group(1), rel)
            if r is None or r in seen:
                continue
            seen.add(r)
            visit(r)
            if r.startswith("include/pte/"):
                order.append(r)

    for s in sources:
        visit(s)
    return order


class Unit:
    def __init__(self, done):
        self.out = []
        self.done = set(done)  # headers already in pte.h or earlier in this unit
        self.features = []

    def inline(self, rel, depth=0):
        if depth > 32:
            sys.exit("amalgamate: include nesting too deep at " + rel)
        self.out.append("/* ---- %s ---- */" % rel)
        self.out.append('#line 1 "%s"' % rel)
        for n, line in enumerate(read(rel), 1):
            m = INC_RE.match(line)
            if m:
                r = resolve(m.group(1), rel)
                if r is None:
                    sys.exit("amalgamate: %s:%d: cannot resolve \"%s\"" % (rel, n, m.group(1)))
                if r not in self.done:
                    self.done.add(r)
                    # a header's unused static inline helpers are not a warning in the normal
                    # build (clang exempts headers); inlined here they would be
                    self.out.append(CLANG_UNUSED_PUSH)
                    self.inline(r, depth + 1)
                    self.out.append(CLANG_UNUSED_POP)
                    self.out.append('#line %d "%s"' % (n + 1, rel))
                else:
                    self.out.append("/* (already included) %s */" % line.strip())
                continue
            if FEATURE_RE.match(line):
                self.features.append(line.strip())
                self.out.append("/* (hoisted) %s */" % line.strip())
                continue
            self.out.append(line)

    def add_source(self, rel):
        lines = read(rel)
        defined = []
        for line in lines:
            m = DEFINE_RE.match(line)
            if m and not FEATURE_RE.match(line) and m.group(1) not in defined:
                defined.append(m.group(1))
        pragma = any("#pragma GCC optimize" in l for l in lines)
        if pragma:
            self.out.append("#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC push_options\n#endif")
        self.inline(rel)
        if pragma:
            self.out.append("#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC pop_options\n#endif")
        # the .c file's own macros end with it (header macros stay: they are shared on purpose)
        for d in defined:
            if not re.match(r"^[A-Z0-9_]*_H$", d):
                self.out.append("#undef %s" % d)


def file_statics(rel):
    names = set()
    for line in read(rel):
        m = STATIC_RE.match(line)
        if m:
            names.add(m.group(1))
        m = TYPEDEF_RE.match(line)
        if m:
            names.add(m.group(1) or m.group(2))
    return names


def check_unique(sources, what):
    owner = {}
    clashes = []
    for s in sources:
        for n in sorted(file_statics(s)):
            if n in owner and owner[n] != s:
                clashes.append("%s: %s and %s" % (n, owner[n], s))
            owner.setdefault(n, s)
    return ["%s (%s)" % (c, what) for c in clashes]


BANNER = """/* %s — generated by tools/amalgamate.py from the pte sources; do not edit.
 * %s
 */"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "amalgamation"))
    ap.add_argument("--no-kernels", action="store_true", help="write pte.h and pte.c only")
    ap.add_argument("--keep-going", action="store_true", help="write the files despite repeated names")
    a = ap.parse_args()

    core = expand_glob(CORE_SOURCES, CORE_EXCLUDE)
    kern = [] if a.no_kernels else expand_glob(KERNEL_SOURCES)
    clashes = check_unique(core, "the core") + (check_unique(kern, "the portable kernels") if kern else [])
    if clashes and not a.keep_going:
        sys.exit("amalgamate: file-scope names repeated (prefix them per file):\n  " + "\n  ".join(clashes))

    public = public_closure(core + kern)
    for e in EXTRA_PUBLIC:
        if e not in [p[len("include/"):] for p in public]:
            public.append("include/" + e)

    os.makedirs(a.out, exist_ok=True)
    h = Unit([])
    for p in public:
        if p not in h.done:
            h.done.add(p)
            h.inline(p)
    if h.features:
        sys.exit("amalgamate: a public header defines a feature macro: " + ", ".join(h.features))
    hdr = [BANNER % ("pte.h", "The public API of the pte core runtime (and of pte_kernels.c)."),
           "#ifndef PTE_AMALGAMATION_H", "#define PTE_AMALGAMATION_H"] + h.out + ["#endif"]
    write(os.path.join(a.out, "pte.h"), hdr)

    units = [("pte.c", core, "The core runtime in one translation unit: cc -std=c11 -c pte.c")]
    if kern:
        units.append(("pte_kernels.c", kern, "The portable kernels in one translation unit: cc -std=c11 -c pte_kernels.c"))
    for name, srcs, what in units:
        u = Unit(h.done)
        for s in srcs:
            u.add_source(s)
        body = [BANNER % (name, what)]
        body += sorted(set(u.features))
        body += ['#include "pte.h"'] + u.out
        write(os.path.join(a.out, name), body)
    print("amalgamate: %s: pte.h (%d headers), pte.c (%d files)%s" % (
        a.out, len(public), len(core), ", pte_kernels.c (%d files)" % len(kern) if kern else ""))


def write(path, lines):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
