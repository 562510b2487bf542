# bench/host/: the article's scenario under QEMU (TCG, 2 vCPUs per guest).
# host-e2e is the small end-to-end check in CHECK_SUITES (256 MiB guest,
# scenarios a, d, e, workload W1); bench-host is the full set behind
# docs/host-bench.md (scenarios a..i x workloads W1..W5, W1-W3 three times;
# not a check suite, see docs/host-bench.md for its wall time).  Scenario g
# makes an ext4 loop mount of its own under build/bench-host/ (root).  W5
# (PostgreSQL) boots the image tests/systemd/mkimage.sh builds, with
# postgresql-15, under build/bench-host/pg-image/ (mmdebstrap from Debian's
# archive, ~2 min), and a database bench/host/mkpgdata.sh makes (~20 s).
#
# The guest kernel is `make kernel-x86_64`: the patched tree on a tinyconfig
# base (kernel/configs/x86_64.config; ~6 min on two idle cores, a quarter of
# a defconfig base), at build/kernel/x86_64/bzImage.  HOST_KERNEL=PATH boots
# another bzImage instead.

BENCH_HOST := $(BUILD)/bench-host
HOSTSAMPLE := $(BENCH_HOST)/hostsample
PSI_AGENT := $(BENCH_HOST)/psi-agent
GUEST_KERNEL := $(BUILD)/kernel/x86_64/bzImage
HOST_KERNEL ?= $(GUEST_KERNEL)
export HOST_KERNEL

.PHONY: host-e2e bench-host bench-host-deps bench-host-kernel
CHECK_SUITES += host-e2e

$(HOSTSAMPLE): bench/host/hostsample.c src/sys/cachestat.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -iquote src -o $@ $<

# Scenario (h)'s agent runs in the guest's busybox initramfs: static.
$(PSI_AGENT): bench/host/psi-agent.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -static -o $@ $<

# Always run: build-kernel.sh decides (config key + incremental make)
# whether anything needs rebuilding.
bench-host-kernel: kernel-x86_64

# The guest needs the static workload tool, upcd/upcc for scenario (d) and
# the kernel; their rules live in other fragments (10-userspace, 60-bench).
bench-host-deps: deps $(HOSTSAMPLE) $(PSI_AGENT) $(BUILD)/bench/workload \
		 $(BUILD)/static/upcd $(BUILD)/static/upcc
	@if [ "$(HOST_KERNEL)" = "$(GUEST_KERNEL)" ]; then \
		$(MAKE) --no-print-directory bench-host-kernel; fi

host-e2e: bench-host-deps
	bench/host/run-all.sh small

bench-host: bench-host-deps
	bench/host/run-all.sh full
