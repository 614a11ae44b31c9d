#!/usr/bin/env bash
# Side by side: our `solve` planner against Simon Tatham's own Net solver
# (`net_solver` in net.c of his Portable Puzzle Collection), run alternately
# on the same puzzles. His source is fetched and compiled here, beside our
# small harness (scripts/tatham_net_harness.c); none of it is committed.
#
# Usage: scripts/tatham-net-compare.sh [PUZZLE_FILE...]
#   Default puzzles: maps/pipes/*.txt and generated --unique boards 40x40,
#   60x60, 80x80 and 100x100, flat and wrapping, seeds 1-3.
# Environment:
#   PUZZLES_DIR   a git clone holding the commit below (else one is cloned)
#   PUZZLES_GIT   where to clone from (default: his repository)
#   TICKBOT       our binary (default: target/release/tickbot, built if absent)
#   ROUNDS        alternating rounds per puzzle (default 7); each side's
#                 time is the median of its rounds
#
# The commit is his "Fix homology bug (!) in Net's loop highlighter",
# 2014-12-29, whose net_solver(w, h, tiles, barriers, wrapping) the harness
# calls; later commits moved the build to CMake and changed the dsf API.
# Times are each solver's own: ours is the planning call `bench pipes`
# measures (build the solver, solve, make the plan), his the net_solver call.
# His solver is deduction only: where deduction stalls (boards with several
# solutions) it returns with tiles undecided, shown as "stuck".
set -euo pipefail

COMMIT=79874f18e41cbbe796c0252dc96a85e150af1a15
PUZZLES_GIT=${PUZZLES_GIT:-https://git.tartarus.org/simon/puzzles.git}
ROUNDS=${ROUNDS:-7}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TICKBOT=${TICKBOT:-$ROOT/target/release/tickbot}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [[ -z "${PUZZLES_DIR:-}" ]]; then
    PUZZLES_DIR=$WORK/puzzles
    git clone --quiet "$PUZZLES_GIT" "$PUZZLES_DIR"
fi
if ! git -C "$PUZZLES_DIR" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
    echo "error: $PUZZLES_DIR does not hold commit $COMMIT of Tatham's puzzles" >&2
    exit 2
fi
mkdir -p "$WORK/build"
for file in net.c nullfe.c misc.c malloc.c random.c tree234.c tree234.h dsf.c puzzles.h version.c version.h; do
    git -C "$PUZZLES_DIR" show "$COMMIT:$file" > "$WORK/build/$file"
done
cp "$ROOT/scripts/tatham_net_harness.c" "$WORK/build/"
(cd "$WORK/build" && cc -O2 -w -I. -include time.h tatham_net_harness.c nullfe.c misc.c malloc.c random.c \
    tree234.c dsf.c version.c -lm -o harness)

if [[ ! -x "$TICKBOT" ]]; then
    (cd "$ROOT" && cargo build --release --quiet)
fi

puzzles=("$@")
if [[ ${#puzzles[@]} -eq 0 ]]; then
    puzzles=("$ROOT"/maps/pipes/*.txt)
    mkdir -p "$WORK/generated"
    for size in 40x40 60x60 80x80 100x100; do
        for wrap in "" --wrap; do
            for seed in 1 2 3; do
                out="$WORK/generated/$size${wrap:+-wrap}-unique-seed$seed.txt"
                "$TICKBOT" gen pipes --size "$size" $wrap --unique --seed "$seed" --out "$out"
                puzzles+=("$out")
            done
        done
    done
fi

# One line per round and puzzle: name, ours ms, his ms, his verdict.
for ((round = 1; round <= ROUNDS; round++)); do
    for puzzle in "${puzzles[@]}"; do
        ours=$("$TICKBOT" bench pipes --repeat 1 --json "$puzzle" | grep -o '"median_ms":[0-9.e+-]*' | head -1 | cut -d: -f2)
        read -r his solved < <("$WORK/build/harness" "$puzzle" 1)
        echo "$(basename "$puzzle") $ours $his $solved"
    done
done > "$WORK/rounds.txt"

# Medians per puzzle, then the median of the ratios (ours / his).
awk -v rounds="$ROUNDS" '
function median(list, n,    sorted, i, j, t) {
    for (i = 1; i <= n; i++) sorted[i] = list[i]
    for (i = 2; i <= n; i++) for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) {
        t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t
    }
    return n % 2 ? sorted[(n + 1) / 2] : (sorted[n / 2] + sorted[n / 2 + 1]) / 2
}
{
    if (!($1 in count)) order[++n_puzzles] = $1
    count[$1]++
    ours[$1, count[$1]] = $2; his[$1, count[$1]] = $3; solved[$1] = $4
}
END {
    printf "%-34s %12s %12s %8s  %s\n", "puzzle", "ours ms", "Tatham ms", "ratio", "Tatham"
    for (p = 1; p <= n_puzzles; p++) {
        name = order[p]
        for (r = 1; r <= count[name]; r++) { a[r] = ours[name, r]; b[r] = his[name, r] }
        o = median(a, count[name]); t = median(b, count[name])
        ratio = t > 0 ? o / t : 0
        printf "%-34s %12.3f %12.3f %8.3f  %s\n", name, o, t, ratio, solved[name] ? "solved" : "stuck"
        if (solved[name]) ratios[++n_ratios] = ratio; else stuck++
    }
    printf "median ratio ours/Tatham over the %d puzzles he solves: %.3f (%d rounds each); he is stuck on %d\n",
        n_ratios, median(ratios, n_ratios), rounds, stuck + 0
}' "$WORK/rounds.txt"
