# The stock 7.3 UML kernel (kernel/configs/uml-7.3.config on the tree
# kernel/VERSION-7.3 names, fetched from trixie-backports by
# kernel/scripts/fetch-source.sh without touching apt's sources).

KERNEL_73 := $(BUILD)/kernel/uml-7.3/linux
.PHONY: kernel-uml-7.3

kernel-uml-7.3: deps
	kernel/scripts/build-kernel.sh um uml-7.3
