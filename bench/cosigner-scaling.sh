#!/usr/bin/env bash
# cosigner-scaling.sh BUILD_DIR [ROUNDS] — the co-signer's shapes measured in one run, each
# with bench/cosigner.sh (8 clients, 500 signatures, approve latency): one instance on SQLite,
# one instance on PostgreSQL, one on PostgreSQL behind HAProxy, and two instances on that
# PostgreSQL behind HAProxy. The shapes are interleaved ROUNDS times (default 3) so that the
# shared machine's noise falls on all of them, and the medians are compared as ratios, with the
# CPU each signature cost and where it went (instances, HAProxy, clients, the rest). It starts its own PostgreSQL 15 (initdb into a
# temporary folder as the postgres user, a Unix socket only, default durability: fsync and
# synchronous_commit on, as SQLite's synchronous=FULL) and stops it by its PID.
# Targets: PostgreSQL ≥ 0.8× SQLite's throughput with approve ≤ 40 ms median; two
# instances behind HAProxy no less than one instance's throughput.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?usage: cosigner-scaling.sh BUILD_DIR (e.g. .build/release) [ROUNDS]}
ROUNDS=${2:-3}
PGBIN=/usr/lib/postgresql/15/bin
for tool in "$PGBIN/initdb" haproxy curl; do command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install postgresql haproxy curl)" >&2; exit 1; }; done
WORK=$(mktemp -d)
chown postgres: "$WORK"
PG=""
cleanup() { if [ -n "$PG" ]; then kill -INT "$PG" 2>/dev/null; wait "$PG" 2>/dev/null || true; fi; rm -rf "$WORK"; }
trap cleanup EXIT
runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/data" -U postgres --auth=trust --no-locale -E UTF8 > "$WORK/initdb.log"
/usr/bin/python3 scripts/postgres-launch.py postgres -- "$PGBIN/postgres" -D "$WORK/data" -k "$WORK" -c listen_addresses= \
    -c max_connections=100 > "$WORK/postgres.log" 2>&1 &
PG=$!
for _ in $(seq 300); do "$PGBIN/pg_isready" -q -h "$WORK" -U postgres && break; sleep 0.1; done
results=$WORK/results
: > "$results"
for round in $(seq "$ROUNDS"); do
  for shape in sqlite postgresql haproxy1 haproxy; do
    db=""
    if [ "$shape" != sqlite ]; then
      name=bench_${round}_$shape
      "$PGBIN/createdb" -h "$WORK" -U postgres "$name"
      db="postgresql:///$name?host=$WORK&user=postgres"
    fi
    instances=$([ "$shape" = haproxy ] && echo 2 || echo 1)
    front=$([ "$shape" = haproxy1 ] && echo 1 || true)
    out=$(COSIGNER_DB="$db" COSIGNER_INSTANCES=$instances COSIGNER_HAPROXY=$front bench/cosigner.sh "$BUILD" 30)
    approve=$(printf '%s\n' "$out" | awk -F'|' '/^SUMMARY.*approve median/ {print $4}' | tr -d ' ms')
    rate=$(printf '%s\n' "$out" | awk -F'|' '/^SUMMARY.*signatures\/s/ {print $4}' | tr -d ' /s')
    cpu=$(printf '%s\n' "$out" | awk -F'|' '/^CPU\|/ {print $2, $3, $4, $5, $6}')
    echo "$shape $approve $rate $cpu" >> "$results"
    echo "round $round, $shape: approve median $approve ms, $rate signatures/s with 8 clients; $(printf '%s\n' "$out" | sed -n 's/^  CPU per signature *//p')"
  done
done
/usr/bin/python3 - "$results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    shape, *numbers = line.split()
    runs.setdefault(shape, []).append([float(x) for x in numbers])
# approve ms, signatures/s, then CPU ms per signature: all, instances, HAProxy, clients, rest
med = {shape: [statistics.median(column) for column in zip(*xs)] for shape, xs in runs.items()}
print()
print(f"{'shape':<38} {'approve':>9} {'sig/s':>7}   CPU ms per signature: all = instances + HAProxy + clients + rest")
labels = {"sqlite": "1 instance, SQLite", "postgresql": "1 instance, PostgreSQL", "haproxy1": "1 instance, PostgreSQL, behind HAProxy",
          "haproxy": "2 instances, PostgreSQL, behind HAProxy"}
for shape in ("sqlite", "postgresql", "haproxy1", "haproxy"):
    a, r, *c = med[shape]
    cpu = f"{c[0]:5.1f} = {c[1]:4.1f} + {c[2]:4.2f} + {c[3]:4.1f} + {c[4]:4.1f}" if len(c) == 5 else "(no breakdown)"
    print(f"{labels[shape]:<38} {a:>6.1f} ms {r:>7.1f}   {cpu}")
pg_ratio = med["postgresql"][1] / med["sqlite"][1]
two_ratio = med["haproxy"][1] / med["postgresql"][1]
behind_ratio = med["haproxy"][1] / med["haproxy1"][1]
def verdict(ok): return "met" if ok else "NOT met"
print(f"SUMMARY|co-signer scaling|PostgreSQL / SQLite throughput, 8 clients|{med['postgresql'][1]:.1f}/s|{med['sqlite'][1]:.1f}/s|{pg_ratio:.2f}|{verdict(pg_ratio >= 0.8)} (target >= 0.8)")
print(f"SUMMARY|co-signer scaling|PostgreSQL approve median / 40 ms|{med['postgresql'][0]:.1f} ms|40 ms|{med['postgresql'][0] / 40:.2f}|{verdict(med['postgresql'][0] <= 40)}")
print(f"SUMMARY|co-signer scaling|2 instances behind HAProxy / 1 instance, PostgreSQL|{med['haproxy'][1]:.1f}/s|{med['postgresql'][1]:.1f}/s|{two_ratio:.2f}|{verdict(two_ratio >= 1.0)} (target >= 1.0)")
print(f"SUMMARY|co-signer scaling|2 instances / 1 instance, both behind HAProxy|{med['haproxy'][1]:.1f}/s|{med['haproxy1'][1]:.1f}/s|{behind_ratio:.2f}|(the second instance alone)")
PY
