# shellcheck shell=bash
# Scenario: a host of another kind (one CPU online instead of two) is refused, not compared
#
# node2 boots with /sys/devices/system/cpu/online reading "0" in its own
# mount namespace (slurmd keeps its configured CPUs: config_overrides),
# so every tool on it reports cpus_online 1: a different fingerprint
# from the reference's (recorded on node1 with 2).  node2 is restarted
# as it was after the scenario.

fingerprint() {
    # shellcheck disable=SC2016  # expanded by the host's init
    lab_host_restart node2 'mount --bind "$LAB/one-cpu" /sys/devices/system/cpu/online'
    on node2 cat /sys/devices/system/cpu/online
    lab_cluster kind
    lab_host_restart node2
    cat "$LAB/kind.txt"
    jq -e '.nodes[] | select(.node == "node2") | .status == "ERROR"' "$LAB/kind.json"
    jq -e '.exit == 2 and .verdict == "ERROR" and (.summary | test("reference .* was made with other settings: cpus_online 2 in the reference, 1 here"))' \
        "$LAB/results/kind/node2.json"
    expect "no metric of node2 compared" test "$(jq '[.metrics[] | select(.value != null)] | length' "$LAB/results/kind/node2.json")" = 0
    expect "the other hosts PASS" test "$(jq '[.nodes[] | select(.node != "node2" and .status == "PASS")] | length' "$LAB/kind.json")" = $((LAB_HOSTS - 1))
}
lab_check "node2 with one CPU online: ERROR 'made with other settings: cpus_online', nothing compared; the others PASS" fingerprint
