# bench/host/: the article's scenario under QEMU (TCG).  host-e2e is the
# small end-to-end check in CHECK_SUITES (256 MiB guest, scenarios a, d, e,
# workload W1: ~2.5 min of guests plus the guest kernel build); bench-host is
# the full set behind docs/host-bench.md (not a check suite: ~15 min).
#
# The guest kernel is the patched tree on a tinyconfig base
# (bench/host/build-guest-kernel.sh, ~6 min on two idle cores, against ~4x
# that for build-kernel.sh's defconfig base).  HOST_KERNEL=PATH boots another
# bzImage instead, e.g. build/kernel/x86_64/bzImage from `make kernel-x86_64`.

BENCH_HOST := $(BUILD)/bench-host
HOSTSAMPLE := $(BENCH_HOST)/hostsample
GUEST_KERNEL := $(BENCH_HOST)/kernel/arch/x86/boot/bzImage
HOST_KERNEL ?= $(GUEST_KERNEL)
export HOST_KERNEL

.PHONY: host-e2e bench-host bench-host-deps bench-host-kernel
CHECK_SUITES += host-e2e

$(HOSTSAMPLE): bench/host/hostsample.c src/cachestat.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -Isrc -o $@ $<

# Always run: the script itself decides (config key + incremental make)
# whether anything needs rebuilding.
bench-host-kernel: deps
	bench/host/build-guest-kernel.sh

# The guest needs the static workload tool, upcd/upcc for scenario (d) and
# the kernel; their rules live in other fragments (10-userspace, 60-bench).
bench-host-deps: deps $(HOSTSAMPLE) $(BUILD)/bench/workload $(BUILD)/static/upcd \
		 $(BUILD)/static/upcc
	@if [ "$(HOST_KERNEL)" = "$(GUEST_KERNEL)" ]; then \
		$(MAKE) --no-print-directory bench-host-kernel; fi

host-e2e: bench-host-deps
	bench/host/run-all.sh small

bench-host: bench-host-deps
	bench/host/run-all.sh full
