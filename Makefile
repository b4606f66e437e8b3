# patchyard — see README.md.  `make` builds everything; `make check` is
# what CI runs (docs/STYLE.md): a -Werror build, layer and format checks, every
# test, then every test again under AddressSanitizer + UBSan.

PROG    = patchyard
BUILD  ?= build
OPT    ?= -O2 -g
PKGS    = libgit2 libcurl sqlite3 libmicrohttpd jansson nettle hogweed libpsl zlib \
	  gnutls libdeflate opendkim

WARN    = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes \
	  -Wmissing-prototypes -Wformat=2 -Wvla
HARDEN  = -fstack-protector-strong -D_FORTIFY_SOURCE=2
# libetpan's .pc file asks for a non-PIE link (docs/PLATFORM.md): link plainly.
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -letpan -lpthread
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)
ALL_CFLAGS = $(WARN) $(HARDEN) $(OPT) -I. $(PKG_CFLAGS) $(SANFLAGS) $(WERROR) $(CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)

LIB_SRC  := $(sort $(wildcard util/*.c parsers/*.c storage/*.c bot/*.c bot/*/*.c))
LIB_SRC  := $(filter-out bot/main.c,$(LIB_SRC))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
# The default mail templates are compiled in (bot/mailout/template.h), so the
# binary works from any directory.
TMPL_SRC := $(sort $(wildcard templates/mail/*.txt))
TMPL_GEN := $(BUILD)/gen/templates.c
LIB_OBJ  += $(BUILD)/gen/templates.o
# The web pages' templates and stylesheet (bot/web/webpage.h), likewise.
WEB_SRC  := $(sort $(wildcard templates/web/*))
WEB_GEN  := $(BUILD)/gen/web_templates.c
LIB_OBJ  += $(BUILD)/gen/web_templates.o
MAIN_OBJ := $(BUILD)/bot/main.o
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
REPLAY_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/replay/%)
LIBYARD  := $(BUILD)/libyard.a
BINARY   := $(if $(filter build,$(BUILD)),$(PROG),$(BUILD)/$(PROG))

SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: corpus-git all check test unit integration replay check-layers format format-check \
	asan-check asan-build asan-test bench demo fuzz fuzz-smoke valgrind soak clean deps
.DEFAULT_GOAL := all
.SECONDARY:

all: $(BINARY) $(TEST_BIN) $(REPLAY_BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(TMPL_GEN): $(TMPL_SRC) scripts/embed-templates
	@mkdir -p $(dir $@)
	scripts/embed-templates $(TMPL_SRC) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/templates.o: $(TMPL_GEN)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(WEB_GEN): $(WEB_SRC) scripts/embed-templates
	@mkdir -p $(dir $@)
	scripts/embed-templates -n web_builtins $(WEB_SRC) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/web_templates.o: $(WEB_GEN)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIBYARD): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BINARY): $(MAIN_OBJ) $(LIBYARD)
	$(CC) $(ALL_LDFLAGS) -o $@ $(MAIN_OBJ) $(LIBYARD) $(PKG_LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBYARD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBYARD) $(CMOCKA_LIBS) $(PKG_LIBS)

# Fuzz targets, linked with a main that replays tests/fixtures/regress/.
$(BUILD)/replay/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/replay_main.o $(LIBYARD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/tests/fuzz/replay_main.o $(LIBYARD) $(PKG_LIBS)

# Benchmarks: tests/bench/NAME.c becomes $(BUILD)/bench/NAME.
$(BUILD)/bench/%: $(BUILD)/tests/bench/%.o $(LIBYARD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBYARD) $(PKG_LIBS)

deps:
	scripts/install-deps

# What CI runs.  Keep it self-contained: it installs what it needs.
# Each step uses every core: the builds by -j, the tests and the fuzz
# smoke by running JOBS at a time or more.  The plain tests wait on
# servers and processes about half of the time, so the sanitizer and
# fuzz builds run meanwhile; their output is kept in
# build/side-builds.log and shown when they fail.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: deps
	$(MAKE) -j$(JOBS) WERROR=-Werror all
	$(MAKE) check-layers format-check
	@($(MAKE) -s asan-build && JOBS=$(JOBS) scripts/build-fuzz) \
	    >$(BUILD)/side-builds.log 2>&1 & side=$$!; \
	$(MAKE) test; t=$$?; \
	wait $$side; s=$$?; \
	if [ $$s != 0 ]; then cat $(BUILD)/side-builds.log; \
	    echo "check: the sanitizer or fuzz build failed"; fi; \
	[ $$t = 0 ] && [ $$s = 0 ]
	$(MAKE) asan-test
	$(MAKE) fuzz-smoke

test: all
	@JOBS=$(JOBS) tests/run-tests $(BUILD) $(abspath $(BINARY))

# The same tests from an ASan+UBSan build; the checks of the sources
# themselves (layers, man pages) ran once already (NO_LINT).
asan-check: asan-build
	$(MAKE) asan-test

asan-build:
	$(MAKE) -j$(JOBS) BUILD=build-asan OPT="-O1 -g" SANFLAGS="$(SAN)" WERROR=-Werror all

asan-test:
	@NO_LINT=1 JOBS=$(JOBS) ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	LSAN_OPTIONS=suppressions=$(abspath tests/fuzz/lsan.supp):print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	tests/run-tests build-asan $(abspath build-asan/$(PROG))

check-layers:
	@scripts/check-layers

format-check:
	@scripts/format-check

format:
	clang-format -i $$(find util parsers storage bot tests -name '*.[ch]')

bench: all
	@tests/bench/run $(abspath $(BINARY))

# Patch mails of the corpus against git mailinfo + patch-id (about a
# minute; docs/ORACLES.md has the figures).
corpus-git: all
	@PATCHYARD=$(abspath $(BINARY)) sh tests/integration/corpus_git.sh

# Sub-makes, so that the pkg-config flags are read after install-deps.
demo: deps
	@$(MAKE) -s all
	@scripts/demo $(abspath $(BINARY))

# libFuzzer builds of every target (clang); check runs each for
# FUZZ_SECONDS from its regressions (scripts/fuzz-smoke).
FUZZ_SECONDS ?= 10
fuzz:
	@scripts/build-fuzz

fuzz-smoke:
	@JOBS=$(JOBS) scripts/fuzz-smoke $(FUZZ_SECONDS)

# The daemon for SOAK_SECONDS (600) against a growing archive and an
# SMTP sink: memory and descriptors flat, nothing lost (tests/soak/).
soak: all
	@PATCHYARD=$(abspath $(BINARY)) /usr/bin/python3 tests/soak/soak.py

# The unit tests under valgrind: 0 errors, 0 definite leaks.
valgrind: all
	@scripts/valgrind-unit

clean:
	rm -rf build build-asan build-fuzz $(PROG)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
