#!/usr/bin/env bats
# --plan of stream, mbw and mencal: the document (docs/plan.schema.json,
# checked by the real validator), its text form, and the exit code the
# run would have.  Fixture machine llc-1socket: LLC 8 MiB (4x = 32 MiB),
# MemAvailable 3.8 GiB (MemFree + Cached), so a passing size, one under
# the rule and one larger than memory are fixed.

bats_require_minimum_version 1.5.0
load test_helper

PLAN_SCHEMA="$ROOT/docs/plan.schema.json"

local_setup() {
    use_fixture llc-1socket
}

# validate_plan FILE: valid JSON conforming to the plan schema
validate_plan() {
    jq -e . "$1" >/dev/null || { echo "not JSON: $1"; cat "$1"; return 1; }
    /usr/bin/jsonschema -i "$1" "$PLAN_SCHEMA"
}

# plan_json FILE CMD...: CMD's stdout into FILE, its exit code in PLAN_RC,
# its stderr in FILE.err
plan_json() {
    local f="$1"
    shift
    PLAN_RC=0
    "$@" >"$f" 2>"$f.err" || PLAN_RC=$?
}

@test "plan schema: a valid draft-07 schema that rejects broken documents" {
    run python3 -c 'import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(s)
assert s["$schema"] == "http://json-schema.org/draft-07/schema#"
assert s["additionalProperties"] is False' "$PLAN_SCHEMA"
    assert_success
    stream --plan --format json >good.json
    validate_plan good.json
    local bad
    for bad in '.schema = "memsuite/result/1"' 'del(.memory)' '.size_rule.verdict = "ok"' \
               '.exit_code = 7' '.label = "fine"' '.extra = 1' '.refusal = "no"'; do
        jq "$bad" good.json >bad.json
        run /usr/bin/jsonschema -i bad.json "$PLAN_SCHEMA"
        [ "$status" -ne 0 ] || { echo "accepted: $bad"; return 1; }
    done
}

@test "stream --plan: a passing plan, text and JSON; nothing of STREAM's output" {
    run stream --plan
    assert_success
    assert_line "stream plan: the run would proceed (exit 0)"
    assert_line "kernels: copy,scale,add,triad"
    assert_line "size rule: met: at least 4x the last-level cache"
    assert_line --regexp '^  each array 76\.3 MiB; 4x LLC 32\.0 MiB; LLC 8\.0 MiB from sysfs$'
    assert_line "memory: fits"
    assert_line "label: standard"
    refute_output --partial "STREAM version"
    # the output file is the run's, not the plan's: nothing is written there
    run stream --plan -O out.json
    assert_success
    [ ! -e out.json ] && ! ls -A | grep -q "out\.json"
    plan_json p.json stream --plan --format json
    [ "$PLAN_RC" -eq 0 ]
    validate_plan p.json
    run jq -r '[.schema, .tool, .proceed, .exit_code, .refusal, .size_rule.verdict,
                .size_rule.llc.bytes, .size_rule.llc.source, .size_rule.min_bytes,
                .memory.verdict, .memory.need_bytes, .label, (.run.kernels | join(",")),
                .run.elements_per_array, .run.ntimes] | map(tostring) | join(" ")' p.json
    assert_output "memsuite/plan/1 stream true 0 null met 8388608 sysfs 33554432 fits 240000000 standard copy,scale,add,triad 10000000 10"
}

@test "stream --plan: under the rule it runs, warned and labelled not-standard; the run agrees" {
    plan_json p.json stream --plan --format json --array-size 100000 --ntimes 2
    [ "$PLAN_RC" -eq 0 ]
    validate_plan p.json
    run jq -r '.proceed, .size_rule.verdict, .label, (.label_reasons | length), (.warnings[0] | test("under 4x the last-level cache"))' p.json
    assert_output "$(printf 'true\nunder\nnot-standard\n1\ntrue')"
    run stream --plan --array-size 100000
    assert_success
    assert_line --partial "size rule: under the rule: runs, warned, labelled not-standard"
    assert_line "label: not-standard"
    # the same label as the run itself gives
    stream --format json --array-size 100000 --ntimes 2 -q >res.json
    [ "$(jq -r .label res.json)" = "$(jq -r .label p.json)" ]
    [ "$(jq -r '.label_reasons[0]' res.json)" = "$(jq -r '.label_reasons[0]' p.json)" ]
}

@test "stream --plan --strict: refused (exit 2), the document says why, the message on stderr" {
    plan_json p.json stream --plan --format json --array-size 100000 --strict
    [ "$PLAN_RC" -eq 2 ]
    validate_plan p.json
    run jq -r '.proceed, .exit_code, .refusal.check, .size_rule.verdict, .label' p.json
    assert_output "$(printf 'false\n2\nsize_rule\nrefused\nnull')"
    grep -q 'use --array-size 4194304 or more' p.json.err
    [ "$(jq -r .refusal.message p.json)" = "$(sed 's/^stream: error: //' p.json.err)" ]
    run stream --plan --array-size 100000 --strict
    [ "$status" -eq 2 ]
    assert_line --partial "stream plan: the run would be refused (exit 2)"
    # the run refuses the same way
    run stream --array-size 100000 --strict
    [ "$status" -eq 2 ]
}

@test "stream --plan: a size larger than memory is refused (exit 3) at once, nothing allocated" {
    # 3 x 1 TiB against 3.8 GiB: the plan must not touch the arrays
    run /usr/bin/time -f 'maxrss_kb=%M' timeout 20 stream --plan --format json --array-size 1TiB
    [ "$status" -eq 3 ]
    local rss
    rss=$(grep -o 'maxrss_kb=[0-9]*' <<<"$output" | cut -d= -f2)
    [ "$rss" -lt 65536 ] || { echo "max RSS $rss KiB"; return 1; }
    plan_json p.json stream --plan --format json --array-size 1TiB
    [ "$PLAN_RC" -eq 3 ]
    validate_plan p.json
    run jq -r '.refusal.check, .memory.verdict, .memory.need_bytes, .size_rule.verdict' p.json
    assert_output "$(printf 'memory\nrefused\n3298534883328\nnot_checked')"
    grep -q 'nothing was allocated' p.json.err
}

@test "stream --plan: bad values are usage errors without a document" {
    run --separate-stderr stream --plan --format csv
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ "$stderr" == *"--plan --format csv: a plan is written as text or json"* ]]
    run --separate-stderr stream --plan --array-size 12yz
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ "$stderr" == *"12yz"* ]]
    run --separate-stderr stream --plan=yes
    [ "$status" -eq 2 ]
    [ -z "$output" ]
}

@test "mbw --plan: passing, under the rule (label as the run's), --strict refusal" {
    run mbw --plan 64
    assert_success
    assert_line "mbw plan: the run would proceed (exit 0)"
    assert_line "methods: MEMCPY,DUMB,MCBLOCK"
    assert_line "size rule: met: at least 4x the last-level cache"
    assert_line "label: standard"
    refute_output --partial "Long uses"
    plan_json p.json mbw --plan --format json -t0 64
    [ "$PLAN_RC" -eq 0 ]
    validate_plan p.json
    run jq -r '[.tool, .size_rule.verdict, .memory.verdict, .memory.need_bytes, .threads.effective,
                (.run.methods | join(",")), .run.array_mib, .label] | map(tostring) | join(" ")' p.json
    assert_output "mbw met fits 134217728 1 MEMCPY 64 standard"

    plan_json small.json mbw --plan --format json -n 1 -t0 1
    [ "$PLAN_RC" -eq 0 ]
    validate_plan small.json
    [ "$(jq -r '.size_rule.verdict, .label' small.json | paste -sd' ')" = "under not-standard" ]
    mbw -q -n 1 -t0 --format json 1 >res.json 2>/dev/null
    [ "$(jq -r .label res.json)" = "$(jq -r .label small.json)" ]

    plan_json strict.json mbw --plan --strict --format json 1
    [ "$PLAN_RC" -eq 2 ]
    validate_plan strict.json
    [ "$(jq -r '.refusal.check, .size_rule.verdict' strict.json | paste -sd' ')" = "size_rule refused" ]
    grep -q 'an array size of 32 (MiB) or more' strict.json.err
}

@test "mbw --plan: larger than memory refused at once (1, or 3 with --strict); bad values" {
    run /usr/bin/time -f 'maxrss_kb=%M' timeout 20 mbw --plan 4000000
    [ "$status" -eq 1 ]
    local rss
    rss=$(grep -o 'maxrss_kb=[0-9]*' <<<"$output" | cut -d= -f2)
    [ "$rss" -lt 65536 ] || { echo "max RSS $rss KiB"; return 1; }
    assert_line --partial "refused by: memory: array size 4000000 MiB: the 2 arrays need"
    plan_json p.json mbw --plan --strict --format json 4000000
    [ "$PLAN_RC" -eq 3 ]
    validate_plan p.json
    [ "$(jq -r '.exit_code, .refusal.check, .memory.verdict' p.json | paste -sd' ')" = "3 memory refused" ]
    run --separate-stderr mbw --plan --format csv 64
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"--plan --format csv"* ]]
    run --separate-stderr mbw --strict --plan --format csv 64
    [ "$status" -eq 2 ]
    run mbw --plan
    [ "$status" -eq 1 ]
    assert_output --partial "Error: no array size given!"
}

@test "mencal run --plan: passing, under the rule (label as the run's), --strict, too large" {
    run mencal run seqread --size 64M --plan
    assert_success
    assert_line "mencal plan: the run would proceed (exit 0)"
    assert_line "scenarios: seqread"
    assert_line "label: standard"
    plan_json p.json mencal run seqread randread --size 64M --plan --format json
    [ "$PLAN_RC" -eq 0 ]
    validate_plan p.json
    run jq -r '[.size_rule.verdict, .size_rule.subject, .memory.verdict, .memory.need_bytes,
                ([.run.scenarios[].name] | join(",")), .run.size_bytes, .label] | map(tostring) | join(" ")' p.json
    assert_output "met the working set fits 67108864 seqread,randread 67108864 standard"

    plan_json small.json mencal run seqread --size 1M --reps 1 --plan --format json
    [ "$PLAN_RC" -eq 0 ]
    validate_plan small.json
    [ "$(jq -r '.size_rule.verdict, .label' small.json | paste -sd' ')" = "under not-standard" ]
    mencal run seqread --size 1M --reps 1 -q --format json >res.json
    [ "$(jq -r .label res.json)" = "$(jq -r .label small.json)" ]
    [ "$(jq -r '.label_reasons[0]' res.json)" = "$(jq -r '.label_reasons[0]' small.json)" ]

    plan_json strict.json mencal run seqread --size 1M --strict --plan --format json
    [ "$PLAN_RC" -eq 2 ]
    validate_plan strict.json
    [ "$(jq -r '.refusal.check, .size_rule.verdict' strict.json | paste -sd' ')" = "size_rule refused" ]

    run /usr/bin/time -f 'maxrss_kb=%M' timeout 20 mencal run seqread --size 1TiB --plan
    [ "$status" -eq 3 ]
    local rss
    rss=$(grep -o 'maxrss_kb=[0-9]*' <<<"$output" | cut -d= -f2)
    [ "$rss" -lt 65536 ] || { echo "max RSS $rss KiB"; return 1; }
    assert_line --partial "refused by: memory: --size 1.0 TiB: needs 1.0 TiB"
    plan_json big.json mencal run seqread --size 1TiB --plan --format json
    [ "$PLAN_RC" -eq 3 ]
    validate_plan big.json
}

@test "mencal run --plan: bad values are usage errors; --dry-run keeps its text" {
    run --separate-stderr mencal run seqread --plan --format csv
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ "$stderr" == *"--plan --format csv"* ]]
    run --separate-stderr mencal run bogus --plan
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ "$stderr" == *"unknown scenario 'bogus'"* ]]
    run mencal run seqread --size 64M --dry-run
    assert_success
    assert_line "plan: seqread"
    assert_line "size: 67108864 bytes (64.0 MiB; --size)"
    assert_line "cache_resident: no"
}
