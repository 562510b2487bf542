# The v7 series (issue 34): kernel/patches-7.3/ on Debian's 7.3 tree
# (kernel/VERSION-7.3-v7), developed beside the 6.12 series, whose targets
# (mk/20-kernel.mk, mk/30-kernel-tests.mk) are unchanged.  The tree is
# build/kernel/v7/src/ and the kernel build/kernel/v7/uml-v7/: the same
# relative layout as the stock uml-7.3 build, so ccache shares its objects
# (52 s for a uml-v7 build after a stock uml-7.3 one).

KERNEL_V7 := $(BUILD)/kernel/v7/uml-v7/linux
V7PROBE := $(BUILD)/tests/kernel-v7/v7probe
V7SELFTEST := $(BUILD)/tests/kernel-v7/test_memcontrol
V7SELFTEST_DIR := $(BUILD)/kernel/v7/src/linux-source-7.3/tools/testing/selftests

.PHONY: kernel-v7-source kernel-v7 kernel-v7-debug kernel-v7-checkpatch \
	kernel-v7-functional kernel-v7-functional-debug

kernel-v7-source: deps
	kernel/scripts/fetch-source.sh kernel/VERSION-7.3-v7
	kernel/scripts/prepare-source.sh kernel/VERSION-7.3-v7

# UML, MGLRU built in and switched per check (tests/kernel/v7/guest.sh).
kernel-v7: kernel-v7-source
	kernel/scripts/build-kernel.sh um uml-v7

# The same with DEBUG_VM, lockdep and KASAN (VM_WARN_ON_ONCE() is empty
# without DEBUG_VM).
kernel-v7-debug: kernel-v7-source
	kernel/scripts/build-kernel.sh um uml-v7-debug

kernel-v7-checkpatch: kernel-v7-source
	kernel/scripts/checkpatch.sh kernel/VERSION-7.3-v7

$(V7PROBE): tests/kernel/v7/v7probe.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -static -o $@ $<

# The cgroup selftest as patched by the series (0003), static for the
# busybox guest (rebuilt on every run: 2 s).  -Wno-maybe-uninitialized:
# two stock inotify cases warn with Debian 12's gcc.
$(V7SELFTEST): kernel-v7-source
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wno-maybe-uninitialized -pthread -static \
		-I$(V7SELFTEST_DIR) -I$(V7SELFTEST_DIR)/cgroup/lib/include -o $@ \
		$(V7SELFTEST_DIR)/cgroup/test_memcontrol.c \
		$(V7SELFTEST_DIR)/cgroup/lib/cgroup_util.c

# memory.reclaim "unmapped" on both LRUs, each check with its negative
# control (about 15 s of guest time).
kernel-v7-functional: kernel-v7 $(V7PROBE) $(V7SELFTEST)
	tests/kernel/v7/run.sh

# The same checks on the debug kernel, whose log must also be clean.
kernel-v7-functional-debug: kernel-v7-debug $(V7PROBE) $(V7SELFTEST)
	tests/kernel/v7/run.sh --debug

# The 6.12 port (kernel/patches-6.12-v7/, kernel/VERSION-6.12-v7): the
# same guest checks on Linux 6.12.  Its tree and kernel are in
# build/kernel/v7-612/.
.PHONY: kernel-v7-6.12 kernel-v7-6.12-checkpatch kernel-v7-6.12-functional
kernel-v7-6.12: deps
	kernel/scripts/build-kernel.sh um uml-v7-6.12

kernel-v7-6.12-checkpatch: deps
	kernel/scripts/checkpatch.sh kernel/VERSION-6.12-v7

kernel-v7-6.12-functional: kernel-v7-6.12 $(V7PROBE) $(V7SELFTEST)
	tests/kernel/v7/run.sh --kernel $(BUILD)/kernel/v7-612/uml-v7-6.12/linux --tag 6.12 --no-control

CHECK_SUITES += kernel-v7-checkpatch kernel-v7-functional
