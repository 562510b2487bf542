# The stock 7.3 UML kernel (kernel/configs/uml-7.3.config on the tree
# kernel/VERSION-7.3 names, fetched from trixie-backports by
# kernel/scripts/fetch-source.sh without touching apt's sources).

KERNEL_73 := $(BUILD)/kernel/uml-7.3/linux
.PHONY: kernel-uml-7.3

kernel-uml-7.3: deps
	kernel/scripts/build-kernel.sh um uml-7.3

# guest-backends-7.3: the guest cases on that stock 7.3, where DAMOS has
# the "unmapped" filter (6.15) and the damon backend probes usable: its
# cases run for real there (damon, damon-busy), beside fadvise with
# cachestat, memcg with "swappiness=", dropcache and auto.
GUEST_73_CASES := fadvise-path fadvise-system memcg-root memcg-child dropcache damon damon-busy \
	damon-wset fadvise-wset auto memcg-unmaps

CHECK_SUITES += guest-backends-7.3
.PHONY: guest-backends-7.3

guest-backends-7.3: kernel-uml-7.3 $(BUILD)/static/upcd $(BUILD)/static/upcc $(BUILD)/bench/workload
	KERNEL=$(KERNEL_73) tests/guest-backends/run.sh $(GUEST_73_CASES)
