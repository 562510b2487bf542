# upcc - unmapped page cache control.
#
#   make            build the userspace programs into build/ (upcd, upcc)
#   make run        the main job: upcd with the defaults (dry run), then upcc status
#   make check      every test: unit, integration, kernel (UML), end to end
#   make kernel     fetch linux-source-6.12, apply kernel/patches, build UML
#   make kernel-check  KUnit + functional suites on the patched UML kernel
#   make bench      userspace backend benchmark (bench/)
#   make bench-host the article's scenario under QEMU (bench/host/)
#   make install    PREFIX=/usr/local DESTDIR=; make uninstall (mk/70-install.mk)
#   make deb        the Debian package in build/deb/ (debian/, mk/75-package.mk)
#   make check-systemd  the package under a real systemd in a Debian 12 guest
#
# Each concern keeps its rules in mk/*.mk; a fragment adds its test suites
# to CHECK_SUITES (make targets that end on an "N passed, N failed" line).

BUILD ?= build
CHECK_SUITES :=

.PHONY: all run check deps deps-build deps-deb
all:

include mk/*.mk

# What make check needs; deps-build only what building the programs needs,
# so that make run on a bare machine installs its compiler and json-c;
# deps-deb that plus what make deb needs (dpkg-dev, debhelper, git).
deps:
	scripts/install-deps.sh
deps-build:
	scripts/install-deps.sh build
deps-deb:
	scripts/install-deps.sh deb

# Suites run in order; a failing suite does not stop the next, and the last
# line is the sum of every suite's "N passed, N failed".
check: deps
	scripts/run-suites.sh $(CHECK_SUITES)
