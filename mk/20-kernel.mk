# The kernel half: the patch series in kernel/patches/ on the pinned
# linux-source-6.12 (kernel/VERSION), built into build/kernel/NAME/.
# kernel/scripts/build-kernel.sh reuses what is built: a rerun with the same
# series and config is an incremental make, and ccache covers rebuilds.

KERNEL_DIR := $(BUILD)/kernel

.PHONY: kernel kernel-debug kernel-x86_64 kernel-x86_64-debug kernel-x86_64-7.3 kernel-source kernel-checkpatch \
	kernel-kunit kernel-archive

kernel-source: deps
	kernel/scripts/prepare-source.sh

# UML kernel for the functional suite (option on, MGLRU built in).
kernel: deps
	kernel/scripts/build-kernel.sh um uml

# Same plus DEBUG_VM, lockdep and KASAN.
kernel-debug: deps
	kernel/scripts/build-kernel.sh um uml-debug

# For the QEMU bench; kernel/configs/x86_64.config belongs to the bench.
kernel-x86_64: deps
	kernel/scripts/build-kernel.sh x86_64 x86_64
	cp $(KERNEL_DIR)/x86_64/arch/x86/boot/bzImage $(KERNEL_DIR)/x86_64/bzImage

# The same plus DEBUG_VM, lockdep and KASAN, for the SMP suite's reduced
# debug set (kernel/configs/x86_64-debug.config; docs/kernel.md has its
# cold build time).
kernel-x86_64-debug: deps
	kernel/scripts/build-kernel.sh x86_64 x86_64-debug
	cp $(KERNEL_DIR)/x86_64-debug/arch/x86/boot/bzImage $(KERNEL_DIR)/x86_64-debug/bzImage

# The stock 7.3 tree (kernel/VERSION-7.3, no series) as the bench's guest:
# the same guest (kernel/configs/x86_64-guest.config) for HOST_KERNEL=,
# where upcd's damon backend and DAMOS pageout have the unmapped filter.
kernel-x86_64-7.3: deps
	kernel/scripts/build-kernel.sh x86_64 x86_64-7.3
	cp $(KERNEL_DIR)/x86_64-7.3/arch/x86/boot/bzImage $(KERNEL_DIR)/x86_64-7.3/bzImage

kernel-checkpatch: deps
	kernel/scripts/checkpatch.sh

# The pinned tree leaves the archive with each point release: the fallback
# to the newest 6.12 (kernel/scripts/source-version.sh) and the series
# applied to whatever tree is in use, its version named.
kernel-archive: deps
	tests/kernel/source-version.sh

# The KUnit suite is built into the UML kernel (uml.config) and run at boot.
kernel-kunit: kernel
	kernel/scripts/kunit.sh

CHECK_SUITES += kernel-archive kernel-checkpatch kernel-kunit
