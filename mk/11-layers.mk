# layers: src/'s floors (USR_LAYERS and USR_BELOW_<folder>, mk/10-userspace.mk)
# are a build error, with the negative control that shows it
# (tests/layers/run.sh, a few seconds): a file standing in core/ that calls
# into sys/ stops core's own layering check on that symbol, and links once
# sys is put below core; every folder's check passes; and no file under
# src/X/ or tests/unit/X/ includes a header of a folder X may not call.
#
#   make layers          the suite
#   make -s print-layers one line per folder, "FOLDER: the folders below it"

LAYERS_TEST := $(BUILD)/layers-test

.PHONY: layers print-layers
CHECK_SUITES += layers

# The suite reads the floors from here, so that they are written down once.
print-layers:
	@$(foreach l,$(USR_LAYERS),echo '$(strip $(l): $(USR_BELOW_$(l)))';)

# The fixture is compiled as a file of src/ is, with the same flags.
$(LAYERS_TEST)/%.o: tests/layers/%.c
	@mkdir -p $(@D)
	$(CC) $(USR_CFLAGS) -c -o $@ $<

# The suite runs make itself (on copies of the archives, under
# $(LAYERS_TEST)/build, and on $(BUILD)/layers/X.ok): "+" lets it share
# this make's job slots.
layers: $(USR_LAYERS:%=$(BUILD)/layers/%.a) $(LAYERS_TEST)/up-a-floor.o
	+BUILD=$(BUILD) LAYERS_TEST=$(LAYERS_TEST) AR=$(AR) tests/layers/run.sh
