# bench/host/: the article's scenario under QEMU (TCG).  host-e2e is the
# small end-to-end check in CHECK_SUITES (256 MiB guest, scenarios a, d, e,
# workload W1: ~2.5 min of guests plus the guest kernel build); bench-host is
# the full set behind docs/host-bench.md (not a check suite: ~15 min).
#
# The guest kernel is `make kernel-x86_64`: the patched tree on a tinyconfig
# base (kernel/configs/x86_64.config; ~6 min on two idle cores, a quarter of
# a defconfig base), at build/kernel/x86_64/bzImage.  HOST_KERNEL=PATH boots
# another bzImage instead.

BENCH_HOST := $(BUILD)/bench-host
HOSTSAMPLE := $(BENCH_HOST)/hostsample
GUEST_KERNEL := $(BUILD)/kernel/x86_64/bzImage
HOST_KERNEL ?= $(GUEST_KERNEL)
export HOST_KERNEL

.PHONY: host-e2e bench-host bench-host-deps bench-host-kernel
CHECK_SUITES += host-e2e

$(HOSTSAMPLE): bench/host/hostsample.c src/cachestat.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -Isrc -o $@ $<

# Always run: build-kernel.sh decides (config key + incremental make)
# whether anything needs rebuilding.
bench-host-kernel: kernel-x86_64

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
