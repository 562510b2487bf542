#!/usr/bin/env bash
# w5.sh - workload W5: PostgreSQL 15 (Debian's postgresql-15) driven by its own
# pgbench with a skewed select-only script (w5.sql).  Beyond shared_buffers
# (16 MB here) the database's working set is unmapped page cache inside a few
# large relation files, hot at page granularity.  One driver for every
# harness: bench/wset (this machine's kernel, a loop mount) and bench/host
# (inside the QEMU guest's Debian userland).
#
#   w5.sh deps                      apt-get install postgresql-15 if missing
#   w5.sh init DATADIR SCALE        initdb + pgbench -i -s SCALE, vacuumed, checkpointed, stopped
#   w5.sh start DATADIR             start the server (unix socket in DATADIR only, no TCP)
#   w5.sh stop DATADIR              stop it (fast)
#   w5.sh run DATADIR SECONDS       pgbench -T SECONDS with w5.sql; prints "w5 tps X"
#   w5.sh relfiles DATADIR          the files of pgbench_accounts and its primary key, one a line
#   w5.sh blksread DATADIR          blocks read from the kernel so far (pg_stat_database)
#   w5.sh hot99 DATADIR             MiB of the pages that serve 99% of the reads (below)
#
# Env: W5_CLIENTS (2: one per vCPU), W5_SKEW (25, see w5.sql), PGBIN
# (/usr/lib/postgresql/15/bin), W5_USER (postgres).  Runs the server as
# W5_USER (PostgreSQL refuses root); DATADIR must be where that user can own it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
user=${W5_USER:-postgres}
clients=${W5_CLIENTS:-2}
skew=${W5_SKEW:-25}

die() { echo "w5.sh: $*" >&2; exit 1; }
as_pg() { runuser -u "$user" -- "$@"; }
need_bin() { [ -x "$PGBIN/postgres" ] || die "no $PGBIN/postgres (w5.sh deps installs postgresql-15)"; }

# psql on the server's own socket, unaligned, tuples only.
sql() {
	local d=$1; shift
	as_pg "$PGBIN/psql" -X -q -At -h "$d" -d postgres "$@"
}

cmd_deps() {
	[ -x "$PGBIN/pgbench" ] && return 0
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends postgresql-15 postgresql-client-15
}

# Settings that make the run what W5 says: a small shared_buffers so that
# the page cache holds the working set; no TCP; nothing in the background
# that writes (autovacuum) or reads (stats) relation files during a run;
# SysV dynamic shared memory (no /dev/shm needed, no mmapped file in DATADIR).
write_conf() {
	cat >>"$1/postgresql.conf" <<CONF
shared_buffers = 16MB
listen_addresses = ''
max_connections = 20
autovacuum = off
dynamic_shared_memory_type = sysv
huge_pages = off
logging_collector = off
jit = off
# a small WAL: the database is copied into images (bench/host/mkpgdata.sh),
# and pgbench -i's WAL would otherwise stay behind as recycled segments
max_wal_size = 64MB
min_wal_size = 32MB
CONF
}

cmd_init() {
	local d=${1:?DATADIR} scale=${2:?SCALE}
	need_bin
	mkdir -p "$d"
	chown "$user:" "$d"
	chmod 700 "$d"
	# --locale=C: the same database wherever it is booted (the QEMU guest
	# has no locales but C and C.UTF-8)
	as_pg "$PGBIN/initdb" -A trust -U postgres --no-sync --locale=C -E UTF8 -D "$d" >/dev/null
	write_conf "$d"
	cmd_start "$d"
	as_pg "$PGBIN/pgbench" -q -i -s "$scale" -h "$d" -U postgres postgres 2>&1 | tail -n 1
	sql "$d" -c 'VACUUM ANALYZE' -c 'CHECKPOINT'
	cmd_stop "$d"
	sync
}

cmd_start() {
	local d=${1:?DATADIR}
	need_bin
	# The socket's directory on the command line, not in postgresql.conf:
	# the database is made in one place and booted in another (bench/host).
	as_pg "$PGBIN/pg_ctl" -D "$d" -l "$d/server.log" -o "-k $d" -w -t 300 start >/dev/null
}

cmd_stop() {
	local d=${1:?DATADIR}
	as_pg "$PGBIN/pg_ctl" -D "$d" -m fast -w -t 300 stop >/dev/null
}

cmd_run() {
	local d=${1:?DATADIR} secs=${2:?SECONDS} scale out tps
	scale=$(sql "$d" -c 'SELECT count(*) FROM pgbench_branches')
	out=$(as_pg "$PGBIN/pgbench" -n -h "$d" -U postgres -c "$clients" -j "$clients" -T "$secs" \
		-s "$scale" -D skew="$skew" -f "$here/w5.sql" postgres 2>&1) || { echo "$out" >&2; die "pgbench failed"; }
	tps=$(sed -nE 's/^tps = ([0-9.]+) .*without initial connection time.*/\1/p' <<<"$out")
	[ -n "$tps" ] || { echo "$out" >&2; die "no tps in pgbench's output"; }
	echo "w5 tps $tps"
}

cmd_relfiles() {
	local d=${1:?DATADIR} rel
	for rel in pgbench_accounts pgbench_accounts_pkey; do
		sql "$d" -c "SELECT pg_relation_filepath('$rel')" | while read -r f; do
			# Segments past 1 GiB are FILE.1, FILE.2, ...
			for seg in "$d/$f" "$d/$f".[0-9]*; do
				if [ -f "$seg" ]; then echo "$seg"; fi
			done
		done
	done
}

cmd_blksread() {
	sql "${1:?DATADIR}" -c 'SELECT sum(blks_read) FROM pg_stat_database'
}

# The pages that serve 99% of the reads, from the key's distribution: with
# random_exponential(1, n, s) the first n ln(100)/s rows take 99% of them,
# and with rows in aid order (pgbench -i, vacuumed) that is the same share
# of pgbench_accounts' heap and of its primary key.  The server must run.
cmd_hot99() {
	sql "${1:?DATADIR}" -c "SELECT round(least(1, ln(100) / $skew) *
		(pg_relation_size('pgbench_accounts') + pg_relation_size('pgbench_accounts_pkey'))
		/ 1048576.0)"
}

case "${1:-}" in
deps|init|start|stop|run|relfiles|blksread|hot99) c=$1; shift; "cmd_$c" "$@" ;;
*) sed -n '2,22p' "$0" >&2; exit 2 ;;
esac
