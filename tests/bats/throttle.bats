#!/usr/bin/env bats
# The frequency sampler memsuite run keeps beside each cell
# (scripts/lib/throttle.sh): started and stopped many times in a row under
# set -e, as memsuite run does per cell.  Its TERM trap once misfired under
# bash 5.2 when the signal arrived while the loop parsed a command
# substitution ("trap: line 2: unexpected EOF while looking for matching
# `)'"), and memsuite run failed the cell; a short interval makes that
# window common.

bats_require_minimum_version 1.5.0
load test_helper

@test "the sampler starts and stops 60 times under set -e: no trap error, no sampler left, samples taken" {
    cat >loop.sh <<'EOF2'
set -euo pipefail
MS_LIB="$1"
. "$MS_LIB/common.sh"
. "$MS_LIB/cleanup.sh"
ms_use throttle
export MEMSUITE_THROTTLE_INTERVAL=0.01
for i in $(seq 60); do
    ms_throttle_start "$PWD/s$i.tsv"
    sleep 0.0$((i % 5 + 1))
    ms_throttle_stop
done
echo "stopped cleanly"
EOF2
    run --separate-stderr bash loop.sh "$ROOT/scripts/lib"
    assert_success
    assert_output "stopped cleanly"
    [[ "$stderr" != *"unexpected EOF"* ]] || { echo "$stderr"; return 1; }
    # every run took its first sample; no sampler survived its stop
    [ "$(cat s*.tsv | wc -l)" -ge 60 ]
    run pgrep -f "loop.sh $ROOT/scripts/lib"
    assert_failure
}
