# Userspace: build/upcd and build/upcc from every src/*.c (the two mains
# aside, each file is one module in build/libupcc.a), an ASan/UBSan variant
# under build/asan/, static builds for busybox guests under build/static/,
# and the cmocka unit suites.
#
#   make                 build/upcd, build/upcc
#   make run             build, upcd --once --dry-run with the defaults, upcc status
#   make unit            unit tests, plain and under ASan/UBSan
#   make unit-valgrind   unit tests under valgrind
#   make asan static     the variants

# CPPFLAGS, CFLAGS and LDFLAGS from the environment come last, so that a
# distribution's hardening flags (dpkg-buildflags, debian/rules) apply.
USR_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE $(CPPFLAGS) $(CFLAGS)
# json-c reads the state file; its -dev ships libjson-c.a for the static build.
USR_LIBS := -ljson-c
USR_ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
USR_MAINS := src/upcd.c src/upcc.c
# Wildcard, not a list: the acting half's modules join the library as they land.
USR_LIB_SRCS := $(filter-out $(USR_MAINS),$(wildcard src/*.c))
USR_UNIT_SRCS := $(wildcard tests/unit/test_*.c)
USR_UNIT_SUPPORT := $(filter-out $(USR_UNIT_SRCS),$(wildcard tests/unit/*.c))
USR_UNIT_NAMES := $(patsubst tests/unit/%.c,%,$(USR_UNIT_SRCS))
USR_FIXTURES := $(CURDIR)/tests/unit/fixtures

# $(call usr_variant,DIR,EXTRA_CFLAGS,EXTRA_LDFLAGS): objects, library and
# programs of one build variant under DIR.
define usr_variant
$(1)/obj/%.o: src/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(USR_CFLAGS) $(2) -MMD -MP -c -o $$@ $$<

$(1)/libupcc.a: $$(patsubst src/%.c,$(1)/obj/%.o,$$(USR_LIB_SRCS))
	@rm -f $$@
	$$(AR) rcs $$@ $$^

$(1)/upcd: $(1)/obj/upcd.o $(1)/libupcc.a
	$$(CC) $$(USR_CFLAGS) $(2) $$(LDFLAGS) $(3) -o $$@ $$^ $$(USR_LIBS)

$(1)/upcc: $(1)/obj/upcc.o $(1)/libupcc.a
	$$(CC) $$(USR_CFLAGS) $(2) $$(LDFLAGS) $(3) -o $$@ $$^ $$(USR_LIBS)

-include $$(wildcard $(1)/obj/*.d)
endef

$(eval $(call usr_variant,$(BUILD),,))
$(eval $(call usr_variant,$(BUILD)/asan,$(USR_ASAN_FLAGS),))
$(eval $(call usr_variant,$(BUILD)/static,,-static))

# Unit tests: one binary per tests/unit/test_*.c, linked against the library;
# tests/unit/*.c without the test_ prefix are shared helpers and stubs.
define usr_unit_variant
$(1)/unit/%.o: tests/unit/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(USR_CFLAGS) $(2) -Isrc -DUPCC_FIXTURES='"$$(USR_FIXTURES)"' -MMD -MP -c -o $$@ $$<

$(1)/unit/test_%: $(1)/unit/test_%.o $$(patsubst tests/unit/%.c,$(1)/unit/%.o,$$(USR_UNIT_SUPPORT)) $(1)/libupcc.a
	$$(CC) $$(USR_CFLAGS) $(2) -o $$@ $$^ -lcmocka $$(USR_LIBS)

-include $$(wildcard $(1)/unit/*.d)
endef

$(eval $(call usr_unit_variant,$(BUILD),))
$(eval $(call usr_unit_variant,$(BUILD)/asan,$(USR_ASAN_FLAGS)))

# Objects are kept (not removed as intermediates): `make unit` then
# rebuilds only what changed.
.SECONDARY:

USR_UNIT_BINS := $(addprefix $(BUILD)/unit/,$(USR_UNIT_NAMES))
USR_UNIT_ASAN_BINS := $(addprefix $(BUILD)/asan/unit/,$(USR_UNIT_NAMES))

.PHONY: upcd upcc asan static unit unit-valgrind run check-stop-200k
all: $(BUILD)/upcd $(BUILD)/upcc
upcd: $(BUILD)/upcd
upcc: $(BUILD)/upcc
asan: $(BUILD)/asan/upcd $(BUILD)/asan/upcc
static: $(BUILD)/static/upcd $(BUILD)/static/upcc

CHECK_SUITES += unit unit-valgrind

# tests/unit/daemon.sh runs the ASan builds of the programs themselves;
# tests/unit/unit-file.sh checks systemd/upcd.service.in against them.
unit: $(USR_UNIT_BINS) $(USR_UNIT_ASAN_BINS) $(BUILD)/asan/upcd $(BUILD)/asan/upcc $(BUILD)/upcd
	UPCD=$(BUILD)/asan/upcd UPCC=$(BUILD)/asan/upcc UPCD_RELEASE=$(BUILD)/upcd \
		tests/unit/run.sh plain $(USR_UNIT_BINS) -- asan $(USR_UNIT_ASAN_BINS) \
		-- script tests/unit/daemon.sh tests/unit/hostile.sh tests/unit/stop-latency.sh \
		tests/unit/golden.sh \
		tests/unit/unit-file.sh

unit-valgrind: $(USR_UNIT_BINS) $(BUILD)/upcd $(BUILD)/upcc
	UPCD=$(BUILD)/upcd UPCC=$(BUILD)/upcc \
		tests/unit/run.sh valgrind $(USR_UNIT_BINS) -- script tests/unit/programs-valgrind.sh

# The main job.  A dry run reads /proc and /sys and writes only under
# build/run/: on the host it changes nothing.
USR_RUN_DIR := $(BUILD)/run
# Its build dependencies are installed first, in their own make, so that a
# parallel make cannot start compiling before the compiler is there.
run: deps-build
	$(MAKE) --no-print-directory $(BUILD)/upcd $(BUILD)/upcc
	@mkdir -p $(USR_RUN_DIR)
	$(BUILD)/upcd --once --dry-run --state $(CURDIR)/$(USR_RUN_DIR)/state.json \
		--metrics $(CURDIR)/$(USR_RUN_DIR)/upcc.prom
	$(BUILD)/upcc status --state $(CURDIR)/$(USR_RUN_DIR)/state.json

# Not in make check (a few minutes, most of it making the files): the
# adversarial test's case of upcd on 200k cached files, past the
# inventory's 65536 entries, stopped by SIGTERM and pinging the watchdog
# mid-walk.  make unit runs the same script on 10000 files.
check-stop-200k: $(BUILD)/upcd
	tests/unit/stop-latency.sh $(BUILD)/upcd 200000

# Fuzz targets (tests/fuzz/): libFuzzer through Debian's clang, with
# ASan/UBSan, over the config, value, state, /proc and fanotify event
# parsers.  make check replays each committed corpus and runs FUZZ_RUNS
# executions from it.
FUZZ_CC ?= clang
FUZZ_RUNS ?= 50000
FUZZ_CFLAGS := -std=c11 -Wall -Wextra -Werror -O1 -g -D_GNU_SOURCE -Isrc \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(addprefix $(BUILD)/fuzz/,$(FUZZ_NAMES))

$(BUILD)/fuzz/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/fuzz/libupcc.a: $(patsubst src/%.c,$(BUILD)/fuzz/obj/%.o,$(USR_LIB_SRCS))
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(BUILD)/fuzz/libupcc.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/fuzz/libupcc.a $(USR_LIBS)

-include $(wildcard $(BUILD)/fuzz/obj/*.d)

.PHONY: fuzz
CHECK_SUITES += fuzz
fuzz: $(FUZZ_BINS)
	tests/fuzz/run.sh $(FUZZ_RUNS) $(FUZZ_BINS)
