#!/usr/bin/env bash
# What the session loop costs: the same games through `run` (or `play`) and
# through the plain loops of `bench`/`match`, which call the same planner and
# the same `Game::step` with no session around them. Each pair runs
# alternately, ROUNDS times; each side's figure is the median of its rounds,
# in CPU time (user + system, what the load does not change much) and wall
# time (which it does: the load average is printed with the table).
# Needs python3 (for CPU times finer than /usr/bin/time's 10 ms).
#
# Usage: scripts/session-vs-bench.sh [ROW...]
#   Rows: snake10 (100 Snake games, 10x10, cycle, --replays none),
#         snake30 (4 Snake games, 30x30, cycle, replays kept),
#         locm    (2,000 LOCM games, ClosetAI vs Icebox drafts, greedy battles,
#                  --replays none; against `match locm` on the same drafts),
#         pipes   (a generated 300x300 board, `play --planner solve --record`;
#                  against the planner alone (`bench pipes`) plus
#                  `replay verify` of the replay, i.e. planning + re-playing).
#   Default: all four. Every side runs one game at a time (--jobs 1,
#   --threads 1) with the default log level and log file.
# Environment:
#   TICKBOT  the binary (default: target/release/tickbot)
#   ROUNDS   alternating rounds per row (default 5)
#   WORK     scratch directory (default: a fresh temporary one, removed)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TICKBOT=${TICKBOT:-$ROOT/target/release/tickbot}
ROUNDS=${ROUNDS:-5}
if [[ -z "${WORK:-}" ]]; then
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
cd "$WORK"
rows=("$@")
[[ ${#rows[@]} -gt 0 ]] || rows=(snake10 snake30 locm pipes)

# Times `"$@"` once; prints "WALL CPU" in seconds (CPU: user + system of
# the command and its children, to the microsecond, from getrusage).
timed() {
    python3 - "$@" 2>"$WORK/stderr" <<'PY' || { cat "$WORK/stderr" >&2; return 1; }
import resource, subprocess, sys, time
# What the interpreter's children cost before this one (a launcher such as
# a pyenv shim runs some, and its exec keeps their time): not the command's.
def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
before = children()
start = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
wall = time.monotonic() - start
print(f"{wall:.4f} {children() - before:.4f}")
PY
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The session side of each row (into a fresh out dir) and its reference.
session_side() {
    rm -rf "$WORK/out" "$WORK/r.tbr"
    case $1 in
    snake10) timed "$TICKBOT" run --games 100 --jobs 1 --replays none --out "$WORK/out" snake --planner cycle --size 10x10 ;;
    snake30) timed "$TICKBOT" run --games 4 --jobs 1 --replays all --out "$WORK/out" snake --planner cycle --size 30x30 ;;
    locm) timed "$TICKBOT" run --games 2000 --jobs 1 --replays none --out "$WORK/out" locm --draft closetai,icebox \
        --battle greedy,greedy ;;
    pipes) timed "$TICKBOT" play pipes --map "$WORK/p300.txt" --planner solve --record "$WORK/r.tbr" ;;
    esac
}

reference_side() {
    case $1 in
    snake10) timed "$TICKBOT" bench snake --planner cycle --size 10x10 --episodes 100 --threads 1 ;;
    snake30) timed "$TICKBOT" bench snake --planner cycle --size 30x30 --episodes 4 --threads 1 ;;
    locm) timed "$TICKBOT" match locm --draft closetai,icebox --battle greedy --games 2000 --threads 1 ;;
    pipes) timed sh -c "'$TICKBOT' bench pipes '$WORK/p300.txt' --planner solve --repeat 1 && \
        '$TICKBOT' replay verify '$WORK/ref.tbr'" ;;
    esac
}

"$TICKBOT" gen pipes --size 300x300 --seed 1 --out "$WORK/p300.txt" >/dev/null
"$TICKBOT" play pipes --map "$WORK/p300.txt" --planner solve --record "$WORK/ref.tbr" >/dev/null 2>&1

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s | %-21s | %-21s | %s\n' row "session wall / CPU s" "reference wall / CPU s" "ratio wall / CPU"
for row in "${rows[@]}"; do
    : >"$WORK/s" && : >"$WORK/b"
    for _ in $(seq "$ROUNDS"); do
        session_side "$row" >>"$WORK/s"
        reference_side "$row" >>"$WORK/b"
    done
    sw=$(cut -d' ' -f1 "$WORK/s" | median) sc=$(cut -d' ' -f2 "$WORK/s" | median)
    bw=$(cut -d' ' -f1 "$WORK/b" | median) bc=$(cut -d' ' -f2 "$WORK/b" | median)
    awk -v row="$row" -v sw="$sw" -v sc="$sc" -v bw="$bw" -v bc="$bc" 'BEGIN {
        printf "%-8s | %8.3f / %-10.3f | %8.3f / %-11.3f | %.2f / %.2f\n", row, sw, sc, bw, bc, sw / bw, sc / bc
    }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
