# shellcheck shell=bash
# dimms: memory modules from `dmidecode -t memory`, and the theoretical
# peak bandwidth they allow: channels x MT/s x 8 bytes.
#
# Socket and channel come from the Locator / Bank Locator text, which
# vendors spell differently: "CPU1_DIMM_A1", "P0_Node0_Channel0_Dimm0",
# "PROC 1 DIMM 3", "NODE 1 CHANNEL B".  When a channel cannot be read, each
# populated DIMM is counted as its own channel and the summary says so.

# ms_dimm_table < dmidecode output -> TSV per slot:
#   socket channel size_mb type speed_mts locator
# (socket/channel "?" when unknown; size_mb 0 for an empty slot)
ms_dimm_table() {
    awk '
    function flush() {
        if (!dev) return
        s = "?"; ch = "?"; t = loc " " bank; u = toupper(t)
        if (match(u, /(CPU|PROC|SOCKET|NODE|P)[ _-]*[0-9]+/)) {
            x = substr(u, RSTART, RLENGTH); gsub(/[^0-9]/, "", x); s = x + 0
        }
        if (match(u, /CHANNEL[ _-]*[0-9A-Z]+/)) {
            x = substr(u, RSTART, RLENGTH); sub(/CHANNEL[ _-]*/, "", x); ch = x
        } else if (match(u, /DIMM[ _-]*[A-Z][0-9]/)) {
            x = substr(u, RSTART, RLENGTH); sub(/DIMM[ _-]*/, "", x); ch = substr(x, 1, 1)
        }
        sp = (cspeed != "" ? cspeed : speed)
        printf "%s\t%s\t%d\t%s\t%s\t%s\n", s, ch, size, (type == "" ? "?" : type), (sp == "" ? "?" : sp), loc
        dev = 0
    }
    function num_speed(v) {
        if (v ~ /^[0-9]+ *(MT\/s|MHz)/) { split(v, a, " "); return a[1] }
        return ""
    }
    /^Handle / { flush(); next }
    /^Memory Device/ { flush(); dev = 1; size = 0; type = ""; speed = ""; cspeed = ""; loc = ""; bank = ""; next }
    !dev { next }
    /^[ \t]+Size:/ {
        v = $0; sub(/^[ \t]+Size:[ \t]*/, "", v)
        split(v, a, " ")
        if (a[1] ~ /^[0-9]+$/) {
            size = a[1]
            if (a[2] == "GB") size *= 1024; else if (a[2] == "TB") size *= 1024 * 1024
            else if (a[2] == "kB" || a[2] == "KB") size /= 1024
        }
        next
    }
    /^[ \t]+Type:/ { v = $0; sub(/^[ \t]+Type:[ \t]*/, "", v); type = v; next }
    /^[ \t]+Speed:/ { v = $0; sub(/^[ \t]+Speed:[ \t]*/, "", v); speed = num_speed(v); next }
    /^[ \t]+Configured (Memory|Clock) Speed:/ {
        v = $0; sub(/^[ \t]+Configured (Memory|Clock) Speed:[ \t]*/, "", v); cspeed = num_speed(v); next
    }
    /^[ \t]+Locator:/ { v = $0; sub(/^[ \t]+Locator:[ \t]*/, "", v); loc = v; next }
    /^[ \t]+Bank Locator:/ { v = $0; sub(/^[ \t]+Bank Locator:[ \t]*/, "", v); bank = v; next }
    END { flush() }'
}

# ms_dimm_summary TABLE_FILE: sets
#   MS_DIMM_TEXT       one-line description
#   MS_DIMM_VERDICT    ok | warn | unavailable
#   MS_DIMM_WHY        the reason for warn/unavailable
#   MS_PEAK_MBPS       theoretical peak in MB/s (empty when unknown)
#   MS_PEAK_TEXT       how it was computed, or why not
ms_dimm_summary() {
    local out
    out=$(awk -F '\t' '
        { slots++; sock[$1]++
          if ($3 > 0) {
              pop++; psock[$1]++; sizes[$3]++; types[$4]++
              if ($5 != "?") { speeds[$5]++; if (minsp == "" || $5 + 0 < minsp) minsp = $5 + 0 } else nospeed++
              if ($2 == "?") nochan++; else chans[$1 "/" $2]++
          } }
        END {
            if (slots == 0) { print "none"; exit }
            ns = 0; for (s in sizes) ns++
            nt = 0; tl = ""; for (t in types) { nt++; tl = tl (tl == "" ? "" : "/") t }
            nsp = 0; for (s in speeds) nsp++
            nch = 0; for (c in chans) nch++
            per = ""; mn = -1; mx = -1; nk = 0
            for (s in sock) keys[++nk] = s
            for (i = 2; i <= nk; i++) for (j = i; j > 1 && keys[j] < keys[j - 1]; j--) { x = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = x }
            for (i = 1; i <= nk; i++) {
                s = keys[i]; p = psock[s] + 0
                per = per (per == "" ? "" : ", ") "socket " s " " p "/" sock[s]
                if (mn < 0 || p < mn) mn = p
                if (p > mx) mx = p
            }
            unb = ""
            if (mx != mn) unb = unb "populated DIMMs differ between sockets; "
            if (ns > 1) unb = unb "mixed DIMM sizes; "
            if (nsp > 1) unb = unb "mixed DIMM speeds (all run at the slowest); "
            if (pop == 0) { print "empty\037" slots; exit }
            sz = ""; for (s in sizes) sz = sz (sz == "" ? "" : "/") (s + 0 >= 1024 ? s / 1024 " GB" : s " MB")
            text = pop "/" slots " slots populated, " tl ", " sz " each"
            if (minsp != "") text = text ", " minsp " MT/s"
            text = text " (" per ")"
            if (nochan > 0 || nch == 0) { channels = pop; chnote = "channels not named in the locators; counted one per DIMM" }
            else { channels = nch; chnote = "" }
            printf "ok\037%s\037%s\037%s\037%s\037%s\037%s\n", text, unb, (minsp == "" || nospeed > 0 ? "" : minsp), channels, chnote, pop
        }' "$1")
    MS_DIMM_TEXT="" MS_DIMM_WHY="" MS_PEAK_MBPS="" MS_PEAK_TEXT=""
    case "$out" in
        none)
            MS_DIMM_VERDICT=unavailable MS_DIMM_WHY="dmidecode lists no memory devices (VM?)"
            MS_PEAK_TEXT="no DIMM data"
            return 0 ;;
        empty*)
            MS_DIMM_VERDICT=unavailable MS_DIMM_WHY="dmidecode lists ${out#*$'\037'} slots but none populated (VM?)"
            MS_PEAK_TEXT="no populated DIMM data"
            return 0 ;;
    esac
    local ok text unb speed channels chnote
    IFS=$'\037' read -r ok text unb speed channels chnote _ <<<"$out"
    MS_DIMM_TEXT="$text"
    if [ -n "$unb" ]; then
        MS_DIMM_VERDICT=warn MS_DIMM_WHY="unbalanced: ${unb%; }"
    else
        MS_DIMM_VERDICT=ok
    fi
    if [ -n "$speed" ]; then
        MS_PEAK_MBPS=$((channels * speed * 8))
        MS_PEAK_TEXT="$channels channel(s) x $speed MT/s x 8 bytes"
        if [ -n "$chnote" ]; then MS_PEAK_TEXT+=" ($chnote)"; fi
    else
        MS_PEAK_TEXT="DIMM speed unknown in dmidecode"
    fi
}
