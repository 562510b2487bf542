#!/usr/bin/env bash
# Run an apt command (apt-get, apt-cache) on the private sources list, lists
# and archive cache in $APT_PRIVATE_DIR (fetch-source.sh makes them), never
# on the machine's own: usage: private-apt.sh apt-get|apt-cache ARGS...
set -euo pipefail
dir=${APT_PRIVATE_DIR:?APT_PRIVATE_DIR names the private apt folder}
cmd=$1
shift
exec "$cmd" \
	-o "Dir::Etc::sourcelist=$dir/sources.list" \
	-o Dir::Etc::sourceparts=/dev/null \
	-o "Dir::State::lists=$dir/lists" \
	-o "Dir::Cache::archives=$dir/archives" \
	-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
	-o APT::Sandbox::User=root \
	"$@"
