#!/usr/bin/env bats
# Hostile files, environments and machines against the C tools (mencal,
# stream, mbw) and memsuite's enforcement: the third hardening sweep
# (issue 23).  Each case is a defect that once hung, lost data, misread
# the environment or gave a wrong figure; the number is the sweep's.

bats_require_minimum_version 1.5.0
load test_helper

# ---- 26: every sweep sample lasts >= 10 ms and >= 20 clock ticks ------------

@test "26: every sweep sample is checked, lasts >= 10 ms and 20 ticks, and its duration is recorded" {
    run mencal run sweep --size 256K --threads 2 --kernels read,copy --reps 3 -q --format json -O s.json
    assert_success
    validate_json s.json
    # one sample row per counted sample of every measured point
    local points samples
    points=$(jq '[.records[0].tables.mountain[]] | length' s.json)
    samples=$(jq '[.records[0].tables.samples[]] | length' s.json)
    [ "$points" -gt 10 ]
    [ "$samples" -eq $((points * 3)) ]
    # each sample's duration is at least 10 ms (the clock's 20 ticks are far less here)
    run jq -r '[.records[0].tables.samples[] | select(.duration < 1e7)] | length' s.json
    assert_output 0
    run jq -r '[.records[0].tables.mountain[] | select(.shortest < 1e7)] | length' s.json
    assert_output 0
    # a point's bandwidth is the median of its samples' own bandwidths
    run jq -r '.records[0].tables as $t | [$t.mountain[] | . as $p
        | ([$t.samples[] | select(.kernel == $p.kernel and .threads == $p.threads and .size == $p.size)
            | .bandwidth] | sort | .[1]) as $med | select(($med - $p.bandwidth) | fabs > 1e-9 * $med)]
        | length' s.json
    assert_output 0
    # and each sample's bandwidth is its passes' bytes over its duration
    run jq -r '[.records[0].tables.samples[] | select(.kernel == "read")
        | (.size * .passes / .duration) as $b | select((.bandwidth - $b | fabs) > 1e-6 * $b)]
        | length' s.json
    assert_output 0
    # text names the samples table instead of printing a thousand rows
    run mencal run sweep --size 64K --threads 1 --kernels read --reps 2 -q
    assert_success
    assert_line --regexp '^sweep samples: [0-9]+ rows, in --format json or csv$'
}
