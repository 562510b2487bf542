# guest-backends-6.1: the same guest cases on Debian 12's default kernel
# line (stock 6.1, no series), where upcd must work without cachestat(2)
# (mincore fallback) and without memory.reclaim's "swappiness=" key.  The
# kernel is `make kernel-uml-6.1` (kernel/configs/uml-6.1.config on the
# tree kernel/VERSION-6.1 names).  Cases that must pass there: the path and
# system scopes reach the target through fadvise with mincore, dirty and
# mapped pages kept; memcg acts without the swappiness key (no swap in the
# guest, as documented in src/act/backend_memcg.c) and refuses dirty scopes;
# DAMON refuses (no DAMOS filters before 6.3); auto reaches the target.

KERNEL_61 := $(BUILD)/kernel/uml-6.1/linux
GUEST_61_CASES := fadvise-path fadvise-system memcg-root memcg-child dropcache damon auto memcg-unmaps

CHECK_SUITES += guest-backends-6.1
.PHONY: kernel-uml-6.1 guest-backends-6.1

kernel-uml-6.1: deps
	kernel/scripts/build-kernel.sh um uml-6.1

guest-backends-6.1: kernel-uml-6.1 $(BUILD)/static/upcd $(BUILD)/static/upcc $(BUILD)/bench/workload
	KERNEL=$(KERNEL_61) tests/guest-backends/run.sh $(GUEST_61_CASES)
