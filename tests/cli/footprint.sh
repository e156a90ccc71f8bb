#!/bin/sh
# Core runtime footprint: no heap/stdio/OS references, the size test runs, linked .text within the
# 48 KiB budget (cmake/footprint.sh; docs/footprint.md). Build dir: $1, or the directory of $PTE_CLI.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=${1:-$(dirname "${PTE_CLI:?PTE_CLI or a build dir argument required}")}
exec sh "$HERE/../../cmake/footprint.sh" "$B"
