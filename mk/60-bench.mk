# bench/: the workload programs (static, so a busybox-only guest can run
# them) and `make bench`, the userspace backend benchmark.  Not a check
# suite: it takes minutes and its figures are for docs/bench.md.

BENCH_BUILD := $(BUILD)/bench
BENCH_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -iquote src
WORKLOAD := $(BENCH_BUILD)/workload
INVENTORY_COST := $(BENCH_BUILD)/inventory-cost

.PHONY: bench bench-workload bench-programs
bench-workload: $(WORKLOAD)
# Not part of `make` (all): the suites and bench targets that use them
# name them as prerequisites.
bench-programs: $(WORKLOAD) $(INVENTORY_COST)

# policy.c is linked for upcc_unmapped_file_pages(): the sampler's unmapped
# figure is the kernel's arithmetic, not a second copy of it.
$(WORKLOAD): bench/backends/workload.c src/core/policy.c src/core/policy.h src/sys/cachestat.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -static -o $@ bench/backends/workload.c src/core/policy.c

# The inventory's costs: walk, refresh, mount table (docs/backends.md).
$(INVENTORY_COST): bench/inventory/cost.c $(call usr_archives,$(BUILD),inventory)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -D_GNU_SOURCE -o $@ $^

# BENCH_ARGS is passed through, e.g. make bench BENCH_ARGS="--interval 100".
# The kernel target is mk/20-kernel.mk's, the static builds mk/10-userspace.mk's.
bench: kernel $(WORKLOAD) $(BUILD)/static/upcd $(BUILD)/static/upcc
	bench/backends/run.sh $(BENCH_ARGS)
