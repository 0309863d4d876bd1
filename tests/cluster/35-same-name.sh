# shellcheck shell=bash
# Scenario: two hosts claiming one host name: each report is under the name Slurm knows the node by
#
# node2 is restarted with the host name "node1" (its UTS namespace), so
# two hosts answer `hostname` with node1.  Under srun a node's report is
# named by SLURMD_NODENAME, never by `hostname`: four reports, none
# overwriting another, node2's own "host" field saying what it claimed.
# node2 gets its own name back after the scenario.

same_name() {
    lab_host_restart node2 'hostname node1'
    expect "node2 claims to be node1" test "$(on node2 hostname)" = node1
    lab_cluster twins
    lab_host_restart node2
    expect "four reports, one per Slurm node name" test \
        "$(jq -r '[.nodes[] | "\(.node) \(.status)"] | sort | join(",")' "$LAB/twins.json")" = \
        "$(seq -f 'node%g PASS' 1 "$LAB_HOSTS" | paste -sd, -)"
    jq -e '.node == "node2" and .host == "node1"' "$LAB/results/twins/node2.json"
    jq -e '.node == "node1" and .host == "node1"' "$LAB/results/twins/node1.json"
}
lab_check "node2 with host name node1: reports by Slurm's node names, none lost, node2's report records the name it claimed" same_name
