# help-options.awk: the options a --help text names, one per line (sorted
# by the caller).  The reference for the man page and completion tests.
#   long options (--name): in the Usage block (from "Usage:" to the first
#     blank line) and in the option column of option lines;
#   short options (-x): at the start of an option line.
# An option line starts (after blanks) with "-"; its option column is the
# text before the first run of two blanks (or a tab), and counts only when
# every word there is an option, "[...]", or a metavariable (starts with
# a capital, bare or quoted, or holds a "|"): a prose line that happens to start with
# "--ref FILE` (one task ..." names no option.
/^Usage:/ { usage = 1 }
usage && NF == 0 { usage = 0 }
function longs(s) {
    while (match(s, /--[a-zA-Z][a-zA-Z0-9-]*/)) {
        print substr(s, RSTART, RLENGTH)
        s = substr(s, RSTART + RLENGTH)
    }
}
usage { longs($0) }
/^[ \t]*-/ {
    col = $0
    sub(/^[ \t]+/, "", col)
    if (match(col, /(  |\t)/)) col = substr(col, 1, RSTART - 1)
    if (match(col, /^-[a-zA-Z0-9]([ ,:0-9]|$)/)) print substr(col, 1, 2)
    n = split(col, w, / +/)
    ok = 1
    for (i = 1; i <= n; i++) {
        if (w[i] ~ /^-/ || w[i] ~ /^\[/ || w[i] ~ /^"?[A-Z]/ || w[i] ~ /\|/) continue
        ok = 0
    }
    if (ok && !usage) longs(col)
}
