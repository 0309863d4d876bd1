#!/usr/bin/env bats
# docs/node-validation.md's steps, word for word: the block between
# <!-- node-validation:begin --> and <!-- node-validation:end --> is run
# line by line (memsuite on PATH is scripts/memsuite; fake benchmarks and
# an idle fixture /proc), from the record to the drain suggestion.

load test_helper
load ../fixtures/memsuite-bats/helpers

@test "docs/node-validation.md: record, check, JSON, Prometheus, node report, aggregate with drain suggestion" {
    ln -s "$MS" "$STUBS/memsuite"
    local -a steps
    mapfile -t steps < <(sed -n '/<!-- node-validation:begin -->/,/<!-- node-validation:end -->/p' "$ROOT/docs/node-validation.md" |
        grep -v -e '^<!--' -e '^```')
    [ "${#steps[@]}" -eq 7 ]
    local i statuses=""
    for i in "${!steps[@]}"; do
        run bash -c "${steps[$i]}"
        statuses+="$status "
        case "$i" in
            0) assert_line --regexp '^  Triad\.best_rate_mbps expected 20713\.4 MB/s -5%/\+inf ' ;;
            1) assert_line --regexp '^memsuite: PASS 4/4 metrics within tolerance on ' ;;
            5) assert_line --regexp '^memsuite: cluster: node node01: PASS ' ;;
            6) assert_line --regexp '^scontrol update nodename=node02 state=drain reason="memsuite: no report"$'
               refute_line --regexp '^scontrol update nodename=node01 ' ;;
        esac
    done
    # the aggregate exits 1: node02 sent no report
    [ "$statuses" = "0 0 0 0 0 0 1 " ]
    run jq -r '"\(.schema) \(.verdict)"' verdict.json
    assert_output "memsuite/check/1 PASS"
    grep -q '^memsuite_check_pass{.*} 1$' memsuite.prom
    if command -v promtool >/dev/null; then promtool check metrics <memsuite.prom; fi
    [ -s results/node01.json ]
}
