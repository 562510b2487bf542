# integration: the acting half on the host, against an ext4 image on a loop
# device that the suite creates, mounts and removes (tests/integration/run.sh).
# Needs root; touches nothing it did not create.

CHECK_SUITES += integration
.PHONY: integration

$(BUILD)/integration/probe: tests/integration/probe.c src/sys/cachestat.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -iquote src -o $@ $<

$(BUILD)/integration/inventory-probe: tests/integration/inventory-probe.c $(call usr_archives,$(BUILD),inventory)
	@mkdir -p $(@D)
	$(CC) $(USR_CFLAGS) -iquote src -o $@ $^

# Runs a program as on a kernel without file handles (seccomp: ENOSYS).
$(BUILD)/integration/no-fhandle: tests/integration/no-fhandle.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -o $@ $<

# The integration suite's upcd (tests/integration/hooked_main.c): upcd's own
# main, renamed, behind one that takes the mount-table hooks from the
# environment.  Never installed; the installed upcd reads no test hook.
define integration_hooked
$(1)/integration/upcd_main.o: src/upcd/upcd.c
	@mkdir -p $$(@D)
	$$(CC) $$(USR_CFLAGS) $(2) -Dmain=upcd_main -MMD -MP -c -o $$@ $$<

$(1)/integration/hooked_main.o: tests/integration/hooked_main.c src/lib/hooks.h
	@mkdir -p $$(@D)
	$$(CC) $$(USR_CFLAGS) $(2) -iquote src -c -o $$@ $$<

$(1)/integration/upcd-hooked: $(1)/integration/hooked_main.o $(1)/integration/upcd_main.o $(call usr_archives,$(1),upcd)
	$$(CC) $$(USR_CFLAGS) $(2) $$(LDFLAGS) -o $$@ $$^ $$(USR_LIBS)
endef

$(eval $(call integration_hooked,$(BUILD),))
$(eval $(call integration_hooked,$(BUILD)/asan,$(USR_ASAN_FLAGS)))
# upcd.c's headers (struct upcd) change under upcd_main.o too.
-include $(wildcard $(BUILD)/integration/*.d $(BUILD)/asan/integration/*.d)

# Once with the plain programs, once with the ASan/UBSan builds; then the
# working set and the tick (tests/integration/wset.sh, ~1 min per build).
integration: $(BUILD)/upcd $(BUILD)/upcc $(BUILD)/asan/upcd $(BUILD)/asan/upcc \
		$(BUILD)/integration/upcd-hooked $(BUILD)/asan/integration/upcd-hooked \
		$(BUILD)/integration/probe $(BUILD)/integration/inventory-probe \
		$(BUILD)/bench/wsetload $(BUILD)/integration/no-fhandle
	PROBE=$(BUILD)/integration/probe INVENTORY_PROBE=$(BUILD)/integration/inventory-probe \
		tests/integration/run.sh $(BUILD) $(BUILD)/asan
	PROBE=$(BUILD)/integration/probe LOAD=$(BUILD)/bench/wsetload \
		NO_FHANDLE=$(BUILD)/integration/no-fhandle tests/integration/wset.sh $(BUILD)
	PROBE=$(BUILD)/integration/probe LOAD=$(BUILD)/bench/wsetload \
		NO_FHANDLE=$(BUILD)/integration/no-fhandle tests/integration/wset.sh $(BUILD)/asan

# Not in make check (issue 32; ~7 min): does upcd take pages of a file
# outside its path scope?  RUNS runs with upcd and as many without (the
# negative control), interleaved; every page an outside file loses is
# split into reclaimed (a shadow entry: the kernel's reclaim) and dropped
# (none: an invalidation, what upcd would leave), and only a drop fails.
# RUNS=N ARMS="upcd none dryrun" HOLD=S PERF=1: tests/integration/outside-loop.sh.
# check-damon-pageout (~3.5 min, no upcd at all): each page that four
# freshly read files lose, matched by its PFN with the regions the host's
# own DAMON pageout scheme took meanwhile (tests/integration/damon-pageout.sh;
# perf -a, root).
.PHONY: check-outside-loop check-damon-pageout
check-outside-loop: $(BUILD)/integration/upcd-hooked $(BUILD)/integration/probe
	PROBE=$(BUILD)/integration/probe tests/integration/outside-loop.sh $(BUILD)

check-damon-pageout: $(BUILD)/integration/probe
	PROBE=$(BUILD)/integration/probe tests/integration/damon-pageout.sh $(BUILD)
