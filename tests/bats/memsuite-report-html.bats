#!/usr/bin/env bats
# memsuite report --html: one self-contained file (no script, no network,
# plots as data: URIs) with the environment, the health checks, a table
# per benchmark and every plot; rendered in headless Chromium (Debian's
# chromium, from make deps): no console message, every plot decoded and
# shown, every table laid out, and a screenshot.  The results come from
# the fake tools (tests/fixtures/memsuite-bin).

bats_require_minimum_version 1.5.0
load test_helper
load ../fixtures/memsuite-bats/helpers

setup_file() {
    local root="$BATS_FILE_TMPDIR/env"
    mkdir -p "$root"
    ms_test_env "$root" "$root/stubs"
    cd "$BATS_FILE_TMPDIR"
    "$MS" run --bench stream,mbw,mencal:randread,mencal:randread-sweep --sizes 1x,4x --threads 1,2 --reps 3 \
        --cooldown 0 --out res --stream-args "--nt-stores" 2>/dev/null
}

use_res() { cp -r "$BATS_FILE_TMPDIR/res" res; }

# The browser: MEMSUITE_CHROMIUM, else Debian's chromium (or Ubuntu's
# chromium-browser).  Headless, no sandbox (CI runs as root), no GPU, a
# private profile, and a hard time limit.
chromium_bin() {
    local c
    for c in "${MEMSUITE_CHROMIUM:-}" chromium chromium-browser; do
        [ -n "$c" ] && command -v "$c" >/dev/null && { command -v "$c"; return 0; }
    done
    return 1
}
browse() {
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --no-default-browser-check --mute-audio --hide-scrollbars \
        --user-data-dir="$BATS_TEST_TMPDIR/profile" --virtual-time-budget=5000 "$@"
}
need_chromium() {
    CHROMIUM=$(chromium_bin) || skip "chromium is not installed (make deps installs it)"
}

# console_messages LOG: the page's console lines in Chromium's log (a
# blocked load, a decoding error or a script message all land there).
console_messages() { grep -E ':CONSOLE[:(]' "$1" || true; }

# check_page HTML: a copy of HTML with a checker script (its CSP opened
# for inline script only) that writes what the browser shows into
# <body data-check>, read back with --dump-dom.
check_page() {
    local in="$1" out="$BATS_TEST_TMPDIR/check.html" js="$BATS_TEST_TMPDIR/check.js"
    cat >"$js" <<'EOF'
<script>
addEventListener("load", () => {
  const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const imgs = [...document.images];
  const okImgs = imgs.filter(i => i.complete && i.naturalWidth > 100 && i.naturalHeight > 100 && shown(i));
  const tables = [...document.querySelectorAll("table.bench")];
  const okTables = tables.filter(t => t.rows.length > 1 && shown(t));
  document.body.dataset.check = ["plots " + okImgs.length + "/" + imgs.length,
    "tables " + okTables.length + "/" + tables.length,
    "health " + (document.querySelectorAll("table.health tr").length - 1),
    "env " + (document.querySelectorAll("table.env tr").length - 1),
    "figures " + [...document.querySelectorAll("section#summary table.figures tr[data-figure]")].filter(shown).length,
    "bars " + [...document.querySelectorAll("svg.figures rect.bar")].filter(shown).length].join(", ");
});
</script>
EOF
    sed -e "s|default-src 'none';|default-src 'none'; script-src 'unsafe-inline';|" "$in" |
        awk -v js="$js" '/<\/body>/ { while ((getline l < js) > 0) print l } { print }' >"$out"
    browse --dump-dom "file://$out" 2>/dev/null | grep -o 'data-check="[^"]*"'
}

# rows_of CLASS HTML: the data rows of <table class="CLASS"> in HTML
rows_of() {
    sed -n "/<table class=\"$1\"/,/<\/table>/p" "$2" | grep -c '^<tr><td'
}

@test "--html writes one self-contained file: CSP, no script, no remote URL, every section" {
    use_res
    run "$MS" report --html res
    assert_success
    assert_output "html: res/report.html"
    local f=res/report.html
    [ "$(head -n 1 "$f")" = "<!DOCTYPE html>" ]
    grep -q "Content-Security-Policy\" content=\"default-src 'none'; img-src data:;" "$f"
    ! grep -qi '<script' "$f"
    ! grep -Eqi '(src|href)="(https?:|//|/|file:)' "$f"
    # a section per part, a table per benchmark, an image per plot
    for id in run environment health results plots; do grep -q "id=\"$id\"" "$f"; done
    [ "$(grep -c '<table class="bench"' "$f")" = 4 ]   # stream, mbw, mencal:randread, mencal:randread-sweep
    grep -q '<tr><td>tool arguments</td><td>stream: --nt-stores</td>' "$f"
    grep -q '<tr><td>thp_enabled</td><td>' "$f"
    # the THP policy the cells ran under (run.json cell_env)
    grep -q "<tr><td>THP policy during the cells</td><td>$(jq -r '[.cell_env[].thp_policy] | unique | join(", ")' res/run.json)</td>" "$f"
    # how each tool was built, from its cells (the fakes give none)
    grep -q '<tr><td>build: stream</td><td>unknown</td>' "$f"
    grep -q '<tr><td>build: mencal</td><td>unknown</td>' "$f"
    # the same PNGs --plots writes, embedded
    [ -f "$ROOT/scripts/analysis/memsuite_analysis/plots.py" ] || return 0
    run "$MS" report --plots res
    local n
    n=$(grep -c '^  res/plots/.*\.png$' <<<"$output")
    [ "$n" -ge 5 ]
    [ "$(grep -o '<img class="plot"' "$f" | wc -l)" = "$n" ]
    [ ! -e res/plots/report.html ]
}

# plot_series NAME: the series the analyser computes for chart NAME of res/
# (memsuite-analyse plot --run --series: the PNG's pixels say little, its
# series say what is drawn)
plot_series() {
    /usr/bin/python3 "$ROOT/scripts/analysis/memsuite-analyse" plot --run res --series |
        jq -c --arg n "$1" '.[] | select(.name == $n)'
}

@test "plots: a panel per kernel, a line per size or thread count, integer ticks, one bandwidth unit, min..max bars, in-cache rings" {
    use_res
    run plot_series stream-threads
    assert_success
    local f="$output"
    [ "$(jq -r .title <<<"$f")" = "stream: headline metric against threads, a line per array size" ]
    [[ "$(jq -r .caption <<<"$f")" == "Error bars: minimum to maximum of the repetitions."* ]]
    [ "$(jq -c '[.panels[].title]' <<<"$f")" = '["Copy","Scale","Add","Triad"]' ]
    [ "$(jq -r '.panels[0].ylabel' <<<"$f")" = "Bandwidth (GB/s)" ]
    [ "$(jq -c '.panels[0].xticks' <<<"$f")" = '[[1,"1"],[2,"2"]]' ]
    # every size is a line; the bars are min..max (lo <= y <= hi)
    [ "$(jq -c '[.panels[0].series[] | select(.style == "line") | .label]' <<<"$f")" = '["32 MiB per array","128 MiB per array"]' ]
    jq -e '[.panels[].series[] | select(.style == "line") | range(0; .y | length) as $i
            | select(.lo[$i] != null) | (.lo[$i] <= .y[$i] and .y[$i] <= .hi[$i])] | all' <<<"$f"
    run plot_series stream-size
    [ "$(jq -r '.panels[0].xlabel' <<<"$output")" = "Array size per array (MiB, log scale)" ]
    [ "$(jq -c '[.panels[0].xticks[][1]]' <<<"$output")" = '["32","128"]' ]
    [ "$(jq -c '[.panels[0].series[] | select(.style == "line") | .label]' <<<"$output")" = '["1 thread","2 threads"]' ]
    # mbw in MiB/s, as it prints, and said in the caption
    run plot_series mbw-size
    assert_success
    [ "$(jq -r '.panels[0].ylabel' <<<"$output")" = "Bandwidth (MiB/s)" ]
    [[ "$(jq -r .caption <<<"$output")" == *"MiB/s (2^20 bytes per second)"* ]]
    run plot_series mbw-threads
    [ -n "$output" ]
    run plot_series mencal-randread-threads
    [ "$(jq -r '.panels[0].ylabel' <<<"$output")" = "Latency (ns)" ]
}

@test "--html: text from the results directory is escaped" {
    use_res
    local c=res/cells/stream-s134217728-t1.json
    jq '.records[0].name = "<b onclick=x>&Copy"' "$c" >t && mv t "$c"
    jq '.host = "<i>h</i>"' res/run.json >t && mv t res/run.json
    run "$MS" report --html --output out.html res
    assert_success
    assert_output "html: out.html"
    grep -q '&lt;b onclick=x&gt;&amp;Copy' out.html
    grep -q '<b>&lt;i&gt;h&lt;/i&gt;</b>' out.html
    ! grep -q '<b onclick' out.html
}

@test "--html: --output -, bad combinations, unwritable target" {
    use_res
    run "$MS" report --html --output - res
    assert_success
    assert_line --index 0 "<!DOCTYPE html>"
    run "$MS" report --html --markdown res
    assert_failure 2
    assert_output --partial "--html and --markdown do not go together"
    run "$MS" report --output x.html res
    assert_failure 2
    assert_output --partial "--output needs --html"
    mkdir d.html
    run "$MS" report --html --output d.html res
    assert_failure 3
    assert_output --partial "cannot write the HTML report"
    [ ! -e res/report.html ]
}

@test "--html without matplotlib: the report still, and why it has no plots" {
    use_res
    # an interpreter whose matplotlib cannot be imported
    mkdir nompl
    echo 'raise ImportError("no matplotlib here")' >nompl/matplotlib.py
    stub_python "PYTHONPATH='$PWD/nompl' exec /usr/bin/python3 \"\$@\""
    run "$MS" report --html res
    assert_success
    assert_output --partial "plots unavailable: matplotlib is not installed (Debian: python3-matplotlib)"
    grep -q '<p class="warn">plots unavailable: matplotlib is not installed' res/report.html
    [ "$(grep -c '<table class="bench"' res/report.html)" = 4 ]
    ! grep -q '<img' res/report.html
}

@test "headless Chromium: no console message, every plot shown, every table laid out; screenshot" {
    need_chromium
    use_res
    "$MS" report --html res >/dev/null
    local nimg
    nimg=$(grep -o '<img class="plot"' res/report.html | wc -l)
    browse --enable-logging=stderr --v=0 --window-size=1100,1600 \
        --screenshot="$PWD/shot.png" "file://$PWD/res/report.html" 2>chromium.log
    run console_messages chromium.log
    assert_output ""
    run file -b shot.png
    assert_output --regexp '^PNG image data, 1100 x 1600'
    [ "$(stat -c %s shot.png)" -gt 20000 ]     # not a blank page
    run check_page res/report.html
    # the summary page: three figures (seqread unavailable: not in the run), one bar (Triad)
    assert_output "data-check=\"plots $nimg/$nimg, tables 4/4, health $(rows_of health res/report.html), env $(rows_of env res/report.html), figures 3, bars 1\""
}

@test "headless Chromium: the checks see a broken plot and a blocked remote load" {
    need_chromium
    use_res
    "$MS" report --html res >/dev/null
    # a remote image: the CSP blocks it and the console says so
    sed 's|</body>|<img src="http://127.0.0.1:9/x.png"></body>|' res/report.html >remote.html
    browse --enable-logging=stderr --v=0 --dump-dom "file://$PWD/remote.html" >/dev/null 2>chromium.log
    run console_messages chromium.log
    assert_output --partial "violates the following Content Security Policy directive"
    local nimg
    nimg=$(grep -o '<img class="plot"' res/report.html | wc -l)
    # one image's PNG signature spoilt: the page check counts one plot less
    grep -q 'base64,iVBORw0KGgo' res/report.html
    sed '0,/base64,iVBORw0KGgo/s//base64,AAAAAAAAAAA/' res/report.html >broken.html
    run check_page broken.html
    assert_output --regexp "^data-check=\"plots $((nimg - 1))/$nimg, "
}

@test "--html summary page: the machine, the sustained figures with units and cells, a verdict per stated requirement; exit 1 on FAIL, 2 on a bad requirements file" {
    use_res
    # no requirement stated: no verdict, exit 0
    run "$MS" report --html res
    assert_success
    grep -q '<section id="summary">' res/report.html
    grep -q '<p class="verdict none">No requirement stated: no verdict' res/report.html
    grep -q '<tr data-figure="stream_triad"><td>STREAM Triad' res/report.html
    # the fake stream's Triad at 128 MiB and 2 threads, in GB/s, and its cell
    grep -q '<td class="num">20.71 GB/s</td>' res/report.html
    grep -q '<code>stream-s134217728-t2 (128.0 MiB per array, 2 threads)</code>' res/report.html
    grep -q '<tr data-figure="idle_latency"><td>idle latency (mencal randread, one thread)</td><td class="num">110.0 ns</td>' res/report.html
    # a stated peak: Triad 20.71 GB/s is 51.8% of 40 (>= 50%: PASS), 41.4% of 50 (FAIL)
    run "$MS" report --html --peak-gbps 40 res
    assert_success
    grep -q '<p class="verdict PASS">Overall verdict: PASS</p>' res/report.html
    grep -q 'Peak: 40.00 GB/s, stated: --peak-gbps 40.00.' res/report.html
    run --separate-stderr "$MS" report --html --peak-gbps 50 res
    assert_failure 1
    grep -q '<p class="verdict FAIL">Overall verdict: FAIL</p>' res/report.html
    [[ "$stderr" == *"1 stated requirement(s) not met (verdict FAIL): stream_triad >= 50 % of peak"* ]]
    # the text report too
    run --separate-stderr "$MS" report --peak-gbps 50 res
    assert_failure 1
    assert_line --regexp '^  FAIL +stream_triad >= 50 % of peak: found 20\.71 GB/s = 41\.4% of 50\.00 GB/s'
    # a requirements file
    printf '{"schema": "memsuite/requirements/1", "requirements": [{"metric": "idle_latency", "max_ns": 100}]}\n' >req.json
    run "$MS" report --requirements req.json res
    assert_failure 1
    assert_line --regexp '^  FAIL +idle_latency <= 100 ns: found 110\.0 ns'
    printf '{"schema": "memsuite/requirements/1", "requirements": [{"metric": "idle_latency", "max_ns": "fast"}]}\n' >bad.json
    run "$MS" report --html --requirements bad.json res
    assert_failure 2
    assert_output --partial 'bad.json: requirements[0].max_ns is "fast", not a positive number'
    run "$MS" report --requirements nothere.json res
    assert_failure 2
    assert_output --partial "--requirements: no such file: nothere.json"
    run "$MS" report --peak-gbps 0 res
    assert_failure 2
    run "$MS" report --peak-gbps lots res
    assert_failure 2
    assert_output "memsuite: report: --peak-gbps: invalid number 'lots'; use e.g. 10 or 7.5"
}
