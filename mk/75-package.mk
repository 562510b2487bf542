# The Debian package (debian/, native): `make deb` builds it under
# build/deb/ with dpkg-buildpackage -b -us -uc, after installing what that
# needs (install-deps.sh deb), and ends on the .deb's path (the README's
# ./build/deb/upcc_0.1_amd64.deb); package-check builds it with make deb and
# checks it with lintian and systemd-analyze (tests/package/run.sh, ~2 min
# on two shared cores).  Installing, upgrading and purging it under a real
# systemd is mk/80-systemd.mk's check-systemd.

DEB_DIR := $(BUILD)/deb

.PHONY: deb package-check
deb: deps-deb
	scripts/build-deb.sh $(DEB_DIR)

CHECK_SUITES += package-check
package-check:
	tests/package/run.sh $(DEB_DIR)
