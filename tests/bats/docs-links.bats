#!/usr/bin/env bats
# The documentation where people look: README.md stays one short page that
# links to the guides in docs/ and the man pages; every relative link in
# README.md and docs/*.md resolves, anchors included (GitHub's heading
# slugs); no file says the word this file looks for (test 5).

load test_helper

# Guides that other branches write (issue 28 links to them); until they are
# merged their links are reported by their own test, skipped with the name.
PENDING_GUIDES=(docs/counters.md docs/peers.md docs/cluster.md)

# links FILE: "target" per relative Markdown link (no scheme, no mailto)
links() {
    grep -o -E '\]\([^)[:space:]]+\)' "$1" | sed -E 's/^\]\(//; s/\)$//' |
        grep -v -E '^[a-z][a-z0-9+.-]*:' || true
}

# slugs FILE: GitHub's anchor of every heading (lower case, punctuation
# dropped except - and _, spaces to -), outside fenced code blocks
slugs() {
    awk '/^```/ { code = !code; next } !code && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
        tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}

pending() { local p; for p in "${PENDING_GUIDES[@]}"; do [ "$1" = "$ROOT/$p" ] && return 0; done; return 1; }

# broken [--pending]: "FILE: target (why)" per link that does not resolve;
# links to PENDING_GUIDES are left out, or with --pending the only ones
broken() {
    local f t path anchor dir want=normal
    [ "${1:-}" = --pending ] && want=pending
    for f in "$ROOT"/README.md "$ROOT"/docs/*.md; do
        [ -f "$f" ] || continue
        dir=$(dirname "$f")
        while IFS= read -r t; do
            path=${t%%#*} anchor=""
            [[ "$t" == *#* ]] && anchor=${t#*#}
            if [ -z "$path" ]; then path=$f; else path=$dir/$path; fi
            path=$(realpath -m "$path")
            if pending "$path"; then [ "$want" = pending ] || continue
            else [ "$want" = normal ] || continue; fi
            if [ ! -e "$path" ]; then
                echo "${f#"$ROOT"/}: $t (no such file)"
            elif [ -n "$anchor" ] && ! slugs "$path" | grep -qxF -- "$anchor"; then
                echo "${f#"$ROOT"/}: $t (no heading with that anchor)"
            fi
        done < <(links "$f")
    done
}

@test "README.md is at most 120 lines and links to every guide and man page" {
    [ "$(wc -l <"$ROOT/README.md")" -le 120 ]
    local g n
    local -a names=()
    for g in "$ROOT"/docs/*.md "$ROOT"/docs/*.1 "${PENDING_GUIDES[@]}"; do names+=("${g##*/}"); done
    for n in "${names[@]}"; do
        grep -qF "](docs/$n)" "$ROOT/README.md" || { echo "README.md does not link docs/$n"; return 1; }
    done
}

@test "every relative link in README.md and docs/*.md resolves, anchors included" {
    run broken
    assert_success
    assert_output ""
}

@test "the links to the guides other branches write resolve once they are merged" {
    local p missing=()
    for p in "${PENDING_GUIDES[@]}"; do [ -e "$ROOT/$p" ] || missing+=("$p"); done
    [ "${#missing[@]}" -eq 0 ] || skip "not merged yet: ${missing[*]}"
    run broken --pending
    assert_success
    assert_output ""
}

@test "the link check itself finds a missing file and a missing anchor" {
    mkdir -p fake/docs
    printf '# T\n\n## A heading, with (punctuation)\n\n[ok](#a-heading-with-punctuation) [bad](#nope) [gone](docs/x.md) [web](https://example.org/x)\n' >fake/README.md
    ROOT=$PWD/fake run broken
    assert_success
    assert_output "$(printf '%s\n' 'README.md: #nope (no heading with that anchor)' 'README.md: docs/x.md (no such file)')"
}

@test "no file an engineer or user reads says 'seed' (a study is named by what it is)" {
    # this file names the word it looks for; the fuzz corpus files are data.
    # xargs: 123 when every grep found nothing (1), 0 when one found a line
    run bash -c "cd '$ROOT' && git ls-files -co --exclude-standard |
        grep -v -e '^tests/fuzz/corpus/' -e '^tests/bats/docs-links.bats\$' | xargs grep -n -i -I -E '[s]eed' --"
    assert_output ""
    [ "$status" -ne 0 ]
}
