# The kernel series' functional suite (tests/kernel/): boots the patched UML
# kernel (mk/20-kernel.mk builds it) with 256M of RAM and checks, from
# inside the guest, that the control bounds unmapped page cache, leaves
# mapped and dirty pages alone, obeys its sysctls and counts what it does.
# The debug suite runs the same on the CONFIG_DEBUG_VM/PROVE_LOCKING build
# and also fails on any kernel splat in the guests' logs.

KTEST := $(BUILD)/tests/kernel/ktest
KTEST_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -iquote src

# The SMP suite boots the x86_64 kernel in QEMU (2 vCPUs, multi-threaded
# TCG) and runs the same cases plus the concurrency ones; its debug twin
# runs the reduced set on the DEBUG_VM/PROVE_LOCKING/KASAN build.
# kernel-cost is the series' cost runs (docs/kernel.md "Cost"), not a check.
# kernel-functional-smp reuses the x86_64 kernel that host-e2e needs; its
# debug twin (a KASAN x86_64 kernel, 13 min of CPU cold) is a documented
# target.
CHECK_SUITES += kernel-functional kernel-functional-debug kernel-functional-smp
.PHONY: kernel-functional kernel-functional-debug kernel-functional-smp \
	kernel-functional-smp-debug kernel-cost

# hostsample --tsc-khz gives the QEMU guest its TSC rate (mk/50-bench-host.mk
# builds it; named by path because that fragment is read after this one).
KTEST_HOSTSAMPLE := $(BUILD)/bench-host/hostsample

# Static: the guest root is busybox and nothing else.  policy.c supplies
# the bound the kernel is checked against.
$(KTEST): tests/kernel/ktest.c src/core/policy.c src/core/policy.h src/sys/cachestat.h
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) -static -o $@ tests/kernel/ktest.c src/core/policy.c

kernel-functional: kernel $(KTEST)
	tests/kernel/run-functional.sh

kernel-functional-debug: kernel-debug $(KTEST)
	tests/kernel/run-functional.sh --debug

kernel-functional-smp: kernel-x86_64 $(KTEST) $(KTEST_HOSTSAMPLE)
	tests/kernel/run-functional.sh --smp

kernel-functional-smp-debug: kernel-x86_64-debug $(KTEST) $(KTEST_HOSTSAMPLE)
	tests/kernel/run-functional.sh --smp --debug

kernel-cost: kernel-x86_64 $(KTEST) $(KTEST_HOSTSAMPLE)
	tests/kernel/run-cost.sh

# `make kernel-check` (README) also takes mk/20-kernel.mk's KUnit suite;
# a rule without a recipe merges with any other fragment's prerequisites.
.PHONY: kernel-check
kernel-check: kernel-functional kernel-functional-debug kernel-functional-smp \
	kernel-functional-smp-debug

# The kernel suites of make check with a busy loop per CPU beside them
# (scripts/with-cpu-hog.sh): their timing checks must not need an idle
# machine.  Not in make check (it would double the kernel suites' time);
# docs/development.md has its measured runs.
.PHONY: check-busy
check-busy: kernel kernel-debug kernel-x86_64 $(KTEST) $(KTEST_HOSTSAMPLE)
	scripts/with-cpu-hog.sh scripts/run-suites.sh kernel-functional \
		kernel-functional-debug kernel-functional-smp
