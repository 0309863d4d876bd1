# shellcheck shell=bash
# Scenario: memsuite cluster over every host through sbatch/srun: one verdict per host, the aggregate
#
# The reference is recorded on node1 as an operator would (srun on one
# node, memsuite check --record; 64 MiB arrays, MEMSUITE_LLC 16M, 5 repetitions).  One
# run, so the tolerance is the floor: the machine under the lab is shared
# and several runs may spread beyond any cap.  Four hosts time-share two
# CPUs, so when they run together each reaches a fifth to a half of what
# node1 reached alone: --floor 90, a host passes above 10% of the
# reference.  The lab checks structure and verdicts, never speed.

# Outliers: four hosts time-share two CPUs, so one host's figure may be
# a third of another's by chance; the lab widens the outlier fence (MAD
# taken as at least 10% of the median, 10 MADs) so that only verdicts and
# real slowness show.  The outlier rule itself is tested on fixture
# reports (tests/bats/memsuite-cluster.bats).
LAB_OUTLIERS=(--k 10 --mad-floor 10)

record_ref() {
    ctl timeout 120 srun -N1 -w node1 memsuite check --record --ref "$LAB/ref.json" \
        --runs 1 --threads 1 --reps 5 --size 64M --floor 90 --cap 100
    jq -e '.schema == "memsuite/ref/1" and (.metrics | length) == 4 and .made_with.env.cpus_online > 0' "$LAB/ref.json"
}
lab_check "memsuite check --record on node1 (srun): a reference with its fingerprint" record_ref

# lab_cluster NAME [CLUSTER OPTIONS]: sbatch over every host running
# memsuite cluster; its JSON report in $LAB/NAME.json, text in NAME.txt.
# LAB_CLUSTER_TIMEOUT: the launch's --timeout in seconds (default 90).
lab_cluster() {
    local name="$1" tmo="${LAB_CLUSTER_TIMEOUT:-90}"
    shift
    mkdir -p "$LAB/results/$name"
    cat >"$LAB/$name.sbatch" <<EOS
#!/bin/bash
#SBATCH --nodes=$LAB_HOSTS --ntasks-per-node=1 --output=$LAB/$name.out --time=5
memsuite cluster --ref "\${REF:-$LAB/ref.json}" --results "$LAB/results/$name" --retries 0 --timeout $tmo --format json ${LAB_OUTLIERS[*]} $* >"$LAB/$name.json"
memsuite cluster --aggregate "$LAB/results/$name" --ref "\${REF:-$LAB/ref.json}" --drain-suggest --all ${LAB_OUTLIERS[*]} >"$LAB/$name.txt" || true
EOS
    ctl timeout "$((tmo + 60))" sbatch --wait --quiet "$LAB/$name.sbatch" || true
}

all_hosts() {
    lab_cluster all
    cat "$LAB/all.txt"
    jq -e --argjson n "$LAB_HOSTS" '.expected == $n and .reported == $n and (.nodes | length) == $n' "$LAB/all.json"
    expect "every host PASS, each by its own name" \
        test "$(jq -r '[.nodes[] | "\(.node) \(.status)"] | sort | join(",")' "$LAB/all.json")" = \
             "$(seq -f 'node%g PASS' 1 "$LAB_HOSTS" | paste -sd, -)"
    for i in $(seq 1 "$LAB_HOSTS"); do
        jq -e --arg h "node$i" '.node == $h and .verdict == "PASS" and (.metrics | length) == 4' "$LAB/results/all/node$i.json"
    done
    expect "no jobs left" test -z "$(ctl squeue -h)"
}
lab_check "memsuite cluster via sbatch + srun: $LAB_HOSTS hosts, one PASS report each, the aggregate counts them" all_hosts
