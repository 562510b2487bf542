# bench/wset: the working-set benchmark on this machine's kernel (no guest),
# a path scope on a loop-mounted ext4 image (bench/wset/run.sh; needs root).
# "before" is upcd as main had it at WSET_BEFORE, built from `git archive`
# into $(BUILD)/before (no worktree, nothing of this tree touched).

WSETLOAD := $(BENCH_BUILD)/wsetload
WSET_BEFORE ?= bd14bb0

.PHONY: bench-wset bench-wset-before bench-wset-w5
$(WSETLOAD): bench/wset/wsetload.c src/sys/cachestat.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ bench/wset/wsetload.c

$(BUILD)/before/upcd:
	rm -rf $(BUILD)/before.src && mkdir -p $(BUILD)/before.src $(BUILD)/before
	git archive $(WSET_BEFORE) | tar -x -C $(BUILD)/before.src
	$(MAKE) -C $(BUILD)/before.src build/upcd
	cp $(BUILD)/before.src/build/upcd $@

bench-wset-before: $(BUILD)/before/upcd

# W1-W4's hot set and stream, then W5 (PostgreSQL, bench/wset/w5.sh).
bench-wset: $(WSETLOAD) $(BUILD)/upcd $(BUILD)/before/upcd $(BUILD)/upcc
	bench/wset/run.sh $(BUILD)/before/upcd $(BUILD)/upcd
	bench/wset/w5.sh $(BUILD)/before/upcd $(BUILD)/upcd

bench-wset-w5: $(WSETLOAD) $(BUILD)/upcd $(BUILD)/before/upcd $(BUILD)/upcc
	bench/wset/w5.sh $(BUILD)/before/upcd $(BUILD)/upcd
