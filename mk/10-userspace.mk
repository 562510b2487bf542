# Userspace: build/upcd and build/upcc from src/, a folder an archive
# (build/layers/FOLDER.a, the two mains aside), an ASan/UBSan variant
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
USR_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -iquote src $(CPPFLAGS) $(CFLAGS)
# json-c reads the state file; its -dev ships libjson-c.a for the static build.
USR_LIBS := -ljson-c
USR_ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
USR_FIXTURES := $(CURDIR)/tests/unit/fixtures

# src/ is in floors (docs/development.md, "src/, by layer"): each folder
# is one archive, and each may call only the folders USR_BELOW_<folder>
# names.  The programs' folders sit side by side on top.  A call up a
# floor fails the build: every archive is linked whole against the
# archives below it alone (BUILD/layers/X.ok), and a unit test under
# tests/unit/X/ links X and what is below it, nothing else.
USR_LAYERS := lib core sys inventory act control report upcd upcc
USR_BELOW_lib :=
USR_BELOW_core := lib
USR_BELOW_sys := core lib
USR_BELOW_inventory := sys core lib
USR_BELOW_act := inventory sys core lib
USR_BELOW_control := act inventory sys core lib
USR_BELOW_report := control act inventory sys core lib
USR_BELOW_upcd := report control act inventory sys core lib
USR_BELOW_upcc := report control act inventory sys core lib
USR_MAINS := src/upcd/upcd.c src/upcc/upcc.c
usr_srcs = $(filter-out $(USR_MAINS),$(wildcard src/$(1)/*.c))
# $(call usr_archives,DIR,FOLDER): FOLDER's archive and those below it, in
# link order (callers first).
usr_archives = $(foreach l,$(2) $(USR_BELOW_$(2)),$(1)/layers/$(l).a)
USR_UNIT_SRCS := $(wildcard tests/unit/*/test_*.c)
USR_UNIT_NAMES := $(patsubst tests/unit/%.c,%,$(USR_UNIT_SRCS))

# $(call usr_variant,DIR,CC,CFLAGS,EXTRA_LDFLAGS): objects, the folders'
# archives, their layering check and the programs of one build variant.
define usr_variant
$(1)/obj/%.o: src/%.c
	@mkdir -p $$(@D)
	$(2) $(3) -MMD -MP -c -o $$@ $$<

$(foreach l,$(USR_LAYERS),
$(1)/layers/$(l).a: $$(patsubst src/%.c,$(1)/obj/%.o,$$(call usr_srcs,$(l)))
	@mkdir -p $$(@D)
	@rm -f $$@
	$$(AR) rcs $$@ $$^

$(1)/layers/$(l).ok: tests/layers/main.c $$(call usr_archives,$(1),$(l))
	$(2) $(3) -o $$(@:.ok=.link) $$< \
		-Wl,--whole-archive $$(word 2,$$^) -Wl,--no-whole-archive \
		$$(wordlist 3,99,$$^) $$(USR_LIBS)
	@rm -f $$(@:.ok=.link)
	@touch $$@
)

$(1)/upcd: $(1)/obj/upcd/upcd.o $$(call usr_archives,$(1),upcd) | $$(USR_LAYERS:%=$(1)/layers/%.ok)
	$(2) $(3) $$(LDFLAGS) $(4) -o $$@ $$^ $$(USR_LIBS)

$(1)/upcc: $(1)/obj/upcc/upcc.o $$(call usr_archives,$(1),upcc) | $$(USR_LAYERS:%=$(1)/layers/%.ok)
	$(2) $(3) $$(LDFLAGS) $(4) -o $$@ $$^ $$(USR_LIBS)

-include $$(wildcard $(1)/obj/*/*.d)
endef

$(eval $(call usr_variant,$(BUILD),$$(CC),$$(USR_CFLAGS),))
$(eval $(call usr_variant,$(BUILD)/asan,$$(CC),$$(USR_CFLAGS) $$(USR_ASAN_FLAGS),))
$(eval $(call usr_variant,$(BUILD)/static,$$(CC),$$(USR_CFLAGS),-static))

# Unit tests: one binary per tests/unit/FOLDER/test_*.c, linked against
# FOLDER's archive and those below it only (see USR_LAYERS).
define usr_unit_variant
$(1)/unit/%.o: tests/unit/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(USR_CFLAGS) $(2) -Itests/unit -DUPCC_FIXTURES='"$$(USR_FIXTURES)"' -MMD -MP -c -o $$@ $$<

$(foreach t,$(USR_UNIT_NAMES),
$(1)/unit/$(t): $(1)/unit/$(t).o $$(call usr_archives,$(1),$(patsubst %/,%,$(dir $(t))))
	$$(CC) $$(USR_CFLAGS) $(2) -o $$@ $$^ -lcmocka $$(USR_LIBS)
)

-include $$(wildcard $(1)/unit/*/*.d)
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

# tests/unit/programs/daemon.sh runs the ASan builds of the programs
# themselves; unit-file.sh checks systemd/upcd.service.in against them.
# rollout.sh tells upcd's drops from the kernel's by the integration
# suite's cachestat probe (mk/40-integration.mk); journal.sh points the
# integration suite's hooked upcd at a journal socket of its own.
unit: $(USR_UNIT_BINS) $(USR_UNIT_ASAN_BINS) $(BUILD)/asan/upcd $(BUILD)/asan/upcc $(BUILD)/upcd \
		$(BUILD)/integration/probe $(BUILD)/asan/integration/upcd-hooked
	UPCD=$(BUILD)/asan/upcd UPCC=$(BUILD)/asan/upcc UPCD_RELEASE=$(BUILD)/upcd \
		PROBE=$(BUILD)/integration/probe UPCD_HOOKED=$(BUILD)/asan/integration/upcd-hooked \
		tests/unit/run.sh plain $(USR_UNIT_BINS) -- asan $(USR_UNIT_ASAN_BINS) \
		-- script tests/unit/programs/daemon.sh tests/unit/programs/hostile.sh \
		tests/unit/programs/hostile-3.sh tests/unit/programs/stop-latency.sh \
		tests/unit/programs/golden.sh tests/unit/programs/unit-file.sh \
		tests/unit/programs/operator.sh tests/unit/programs/rollout.sh \
		tests/unit/programs/exclude.sh tests/unit/programs/journal.sh \
		tests/unit/programs/top.sh

unit-valgrind: $(USR_UNIT_BINS) $(BUILD)/upcd $(BUILD)/upcc
	UPCD=$(BUILD)/upcd UPCC=$(BUILD)/upcc \
		tests/unit/run.sh valgrind $(USR_UNIT_BINS) -- script tests/unit/programs/programs-valgrind.sh

# The main job.  A dry run reads /proc and /sys and writes only under
# build/run/: on the host it changes nothing.
USR_RUN_DIR := $(BUILD)/run
# Its build dependencies are installed first, in their own make, so that a
# parallel make cannot start compiling before the compiler is there.  The
# --once upcd has exited when upcc status looks: it shows the scopes and
# says upcd is not running, exit 3, which is right here.
run: deps-build
	$(MAKE) --no-print-directory $(BUILD)/upcd $(BUILD)/upcc
	@mkdir -p $(USR_RUN_DIR)
	$(BUILD)/upcd --once --dry-run --state $(CURDIR)/$(USR_RUN_DIR)/state.json \
		--metrics $(CURDIR)/$(USR_RUN_DIR)/upcc.prom
	$(BUILD)/upcc status --state $(CURDIR)/$(USR_RUN_DIR)/state.json || [ $$? -eq 3 ]

# Not in make check (a few minutes, most of it making the files): the
# adversarial test's case of upcd on 200k cached files, past the
# inventory's 65536 entries, stopped by SIGTERM and pinging the watchdog
# mid-walk.  make unit runs the same script on 10000 files.
check-stop-200k: $(BUILD)/upcd
	tests/unit/programs/stop-latency.sh $(BUILD)/upcd 200000

# Fuzz targets (tests/fuzz/): libFuzzer through Debian's clang, with
# ASan/UBSan, over the config, value, state, /proc and fanotify event
# parsers.  make check replays each committed corpus and runs FUZZ_RUNS
# executions from it.
FUZZ_CC ?= clang
FUZZ_RUNS ?= 50000
FUZZ_CFLAGS := -std=c11 -Wall -Wextra -Werror -O1 -g -D_GNU_SOURCE -iquote src \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(addprefix $(BUILD)/fuzz/,$(FUZZ_NAMES))

$(eval $(call usr_variant,$(BUILD)/fuzz,$$(FUZZ_CC),$$(FUZZ_CFLAGS),))

# The parsers fuzzed are in report/ (the state file) and below.
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(call usr_archives,$(BUILD)/fuzz,report)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(call usr_archives,$(BUILD)/fuzz,report) $(USR_LIBS)

.PHONY: fuzz
CHECK_SUITES += fuzz
fuzz: $(FUZZ_BINS)
	tests/fuzz/run.sh $(FUZZ_RUNS) $(FUZZ_BINS)
