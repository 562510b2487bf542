# bench/host/: the article's scenario under QEMU (TCG).  host-e2e is the
# small end-to-end check in CHECK_SUITES (256 MiB guest, scenarios a, d, e,
# workload W1, ~6 min plus the x86_64 kernel build); bench-host is the full
# set behind docs/host-bench.md (not a check suite: it takes ~40 min).
#
# HOST_KERNEL overrides the guest kernel (default: the patched x86_64 build).

BENCH_HOST := $(BUILD)/bench-host
HOSTSAMPLE := $(BENCH_HOST)/hostsample
HOST_KERNEL ?= $(BUILD)/kernel/x86_64/bzImage
export HOST_KERNEL

.PHONY: host-e2e bench-host bench-host-deps
CHECK_SUITES += host-e2e

$(HOSTSAMPLE): bench/host/hostsample.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -o $@ $<

# The guest needs the static workload tool, upcd/upcc for scenario (d) and
# the patched x86_64 kernel; their rules live in other fragments.
bench-host-deps: $(HOSTSAMPLE) $(BUILD)/bench/workload
	$(MAKE) --no-print-directory $(BUILD)/static/upcd $(BUILD)/static/upcc
	@if [ "$(HOST_KERNEL)" = "$(BUILD)/kernel/x86_64/bzImage" ]; then \
		$(MAKE) --no-print-directory kernel-x86_64; fi

host-e2e: bench-host-deps
	bench/host/run-all.sh small

bench-host: bench-host-deps
	bench/host/run-all.sh full
