# check-systemd: the Debian package under a real systemd (tests/systemd/):
# a Debian 12 image made with mmdebstrap (Debian's stock 6.1 kernel, cached
# under build/systemd-image/ by its recipe), booted under QEMU, installs,
# upgrades, removes and purges the package and checks the service on the
# way.  Not in CHECK_SUITES: see docs/development.md for its measured time.
# make check keeps the offline parts: systemd-analyze verify of the unit
# (unit, install-check) and the package build with lintian (package-check).

.PHONY: check-systemd systemd-image
check-systemd: deps
	tests/systemd/run.sh

systemd-image: deps
	tests/systemd/mkimage.sh $(BUILD)/systemd-image
