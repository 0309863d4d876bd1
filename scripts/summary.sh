#!/usr/bin/env bash
# Summary: print one human summary of a directory of memsuite result documents.
# Usage: scripts/summary.sh DIR
#
# The environment block comes from the first document's sysinfo; then one
# line per record with its headline figures (bandwidth and latency units),
# the run label, and every warning the tools raised.  Facts the tools could
# not read are shown as "unavailable: why", never dropped; a document that
# is no result, or whose figures cannot be trusted, is named with why.
# Computed by the analyser (memsuite-analyse docs-summary:
# scripts/analysis/memsuite_analysis/docs_summary.py).
# Exit 0 printed; 1 no document, or one not summarised (named); 2 usage.
set -euo pipefail
dir=${1:?usage: summary.sh DIR}
root=$(cd "$(dirname "$0")" && pwd)
py=${MEMSUITE_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=python3
exec "$py" "$root/analysis/memsuite-analyse" docs-summary --prefix=summary -- "$dir"
