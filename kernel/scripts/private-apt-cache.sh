#!/usr/bin/env bash
# apt-cache on fetch-source.sh's private lists (source-version.sh's APT_CACHE
# names one command).
exec "$(dirname "$0")/private-apt.sh" apt-cache "$@"
