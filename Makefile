# domlab - the one entry point.  See README.md.
#
#   make                         build the default preset (best)
#   make VARIANT=doom2010        build a preset
#   make ATTRS=hash BUILD=built  build axis by axis (unnamed axes: best's)
#   make test                    build and test every preset + coverage variants
#   make test VARIANT=x          one variant
#   make bench                   quick benchmark run into results/
#   make compare [FULL=1] [ICOUNT=1]  the thorough one (ICOUNT: callgrind)
#   make compare CASES='^(tokens|attachment)'  only the cases matching
#                                an extended regex (ref/pugixml/floor too)
#   make fuzz [FUZZ_SECONDS=60]  every tests/fuzz/*.c target, that long each
#   make oss-fuzz-check          the OSS-Fuzz build (tests/fuzz/oss-fuzz/), simulated
#   make memcheck                the whole test suite under valgrind, every preset
#   SANITIZE=1                   ASan + UBSan build (build/<variant>-asan/)
#   TSAN=1                       ThreadSanitizer build (build/<variant>-tsan/)

PRESETS := doom2010 xerces best

# The axes, the variable that picks each, and the choices per preset, one
# word per axis in this order.  Each choice is variants/<axis>/<choice>.c.
AXES     := attrs  userdata build  attrlist keys   tokens io         parser  emit
AXISVARS := ATTRS  USERDATA BUILD  ATTRLIST KEYS   TOKENS IO         PARSER  EMIT
preset_doom2010 := vector pernode built copy reload list unbuffered libxml2 tree
preset_xerces   := vector shared direct cached cached hash buffered libxml2 tree
preset_best     := adaptive shared direct cached cached hash buffered insitu canonical

choices_attrs    := vector hash adaptive
choices_userdata := pernode shared
choices_build    := built direct
choices_attrlist := copy cached
choices_keys     := reload cached
choices_tokens   := list hash
choices_io       := unbuffered buffered
choices_parser   := libxml2 insitu
choices_emit     := tree source canonical

NAXES := $(words $(AXES))
AXIS_NUMS := $(wordlist 1,$(NAXES),1 2 3 4 5 6 7 8 9)

# Presets plus what it takes to build every choice of every axis once, and
# each preset with the other parser.
TEST_VARIANTS := doom2010 xerces best hash-pernode-direct-copy-reload \
  vector-pernode-built-copy-reload-list-unbuffered-insitu-tree \
  vector-shared-direct-cached-cached-hash-buffered-insitu-tree \
  adaptive-shared-direct-cached-cached-hash-buffered-insitu-source \
  adaptive-shared-direct-cached-cached-hash-buffered-libxml2

# ---- which variant ----------------------------------------------------------
axis_vars := $(strip $(foreach v,$(AXISVARS),$($(v))))
ifneq ($(axis_vars),)
  ifneq ($(VARIANT),)
    $(error give VARIANT or axis variables, not both)
  endif
  CHOICES := $(foreach i,$(AXIS_NUMS),$(or $($(word $(i),$(AXISVARS))),$(word $(i),$(preset_best))))
  VARIANT := $(subst $(eval) ,-,$(CHOICES))
else
  VARIANT ?= best
  ifneq ($(filter $(VARIANT),$(PRESETS)),)
    CHOICES := $(preset_$(VARIANT))
    PRESET := $(VARIANT)
  else
    # Trailing axes left out take best's choice.
    given := $(subst -, ,$(VARIANT))
    CHOICES := $(given) $(wordlist $(words x $(given)),$(NAXES),$(preset_best))
  endif
endif
ifneq ($(words $(CHOICES)),$(NAXES))
  $(error VARIANT=$(VARIANT) is neither a preset ($(PRESETS)) nor $(NAXES) choices joined by '-' ($(AXES)))
endif
$(foreach i,$(AXIS_NUMS),$(if $(filter $(word $(i),$(CHOICES)),$(choices_$(word $(i),$(AXES)))),,\
  $(error $(word $(i),$(AXES))=$(word $(i),$(CHOICES)) is not one of: $(choices_$(word $(i),$(AXES))))))

# ---- flags ---------------------------------------------------------------------
# shared/ (conformance vectors, the xmlsec1 reference scripts) sits beside
# the checkout, on developers' machines and in CI alike.
SHARED ?= ../shared
CC ?= cc
CXX ?= c++
SUFFIX :=
OPT := -O2
ifeq ($(SANITIZE),1)
  SUFFIX := -asan
  OPT := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
endif
ifeq ($(TSAN),1)
  ifeq ($(SANITIZE),1)
    $(error SANITIZE=1 and TSAN=1 cannot share a build)
  endif
  SUFFIX := -tsan
  OPT := -O1 -fsanitize=thread
endif
# FUZZ=1: the library instrumented for libFuzzer (build/<variant>-fuzz/).
ifeq ($(FUZZ),1)
  SUFFIX := -fuzz
  CC := clang
  CXX := clang++
  OPT := -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
endif
# Everything built goes under BUILD_DIR (default build/), one folder per variant.
BUILD_DIR ?= build
OUT := $(BUILD_DIR)/$(VARIANT)$(SUFFIX)

XML2_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || xml2-config --cflags)
XML2_LIBS := $(shell pkg-config --libs libxml-2.0 2>/dev/null || xml2-config --libs)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -DOPENSSL_API_COMPAT=30000 -DOPENSSL_NO_DEPRECATED $(OPT) -g -fno-omit-frame-pointer $(WARN) \
              -I. $(XML2_CFLAGS) -DDOMLAB_PRESET='"$(PRESET)"' $(CFLAGS)
CXXFLAGS_ALL := -std=c++17 $(OPT) -g -fno-omit-frame-pointer -Wall -Wextra -Werror -I. $(CXXFLAGS)
LIBS := $(XML2_LIBS) -lcrypto -lpthread

VARIANT_SRC := $(foreach i,$(AXIS_NUMS),variants/$(word $(i),$(AXES))/$(word $(i),$(CHOICES)).c)
DOM_SRC := $(wildcard dom/*.c) $(wildcard wss/*.c) $(VARIANT_SRC)
GEN_SRC := $(wildcard datasets/*.c)
CLI_SRC := $(wildcard harness/*.c)
BENCH_CXX := $(wildcard harness/*.cc)
TEST_SRC := $(wildcard tests/*.c)

obj = $(patsubst %.c,$(OUT)/obj/%.o,$(1))
DOM_OBJ := $(call obj,$(DOM_SRC) $(GEN_SRC))
CLI_OBJ := $(call obj,$(CLI_SRC)) $(patsubst %.cc,$(OUT)/obj/%.o,$(BENCH_CXX))
TEST_OBJ := $(call obj,$(TEST_SRC))

.PHONY: all test test-one test-threads bench compare profile clean deps lint keys
all: $(OUT)/domlab $(OUT)/test-dom

$(OUT)/obj/%.o: %.c $(MAKEFILE_LIST)
	@mkdir -p $(@D)
	@echo "  CC  $(OUT): $<"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(OUT)/obj/%.o: %.cc $(MAKEFILE_LIST)
	@mkdir -p $(@D)
	@echo "  CXX $(OUT): $<"
	@$(CXX) $(CXXFLAGS_ALL) -MMD -MP -c $< -o $@

$(OUT)/libdom.a: $(DOM_OBJ)
	@echo "  AR  $@"
	@rm -f $@ && ar rcs $@ $^

$(OUT)/domlab: $(CLI_OBJ) $(OUT)/libdom.a
	@echo "  LD  $@"
	@$(CXX) $(OPT) -o $@ $(CLI_OBJ) $(OUT)/libdom.a $(XMLSEC_LIBS) $(LIBS) -lbenchmark -lpugixml

$(OUT)/test-dom: $(TEST_OBJ) $(OUT)/libdom.a
	@echo "  LD  $@"
	@$(CC) $(OPT) -o $@ $(TEST_OBJ) $(OUT)/libdom.a $(LIBS)

# The reference peer (libxml2 + xmlsec1) compiles with exactly xmlsec's
# flags: they fix xmlSecSize's type (XMLSEC_NO_SIZE_T) to the library's.
# xmlsec 1.2's OpenSSL header names RSA, DSA and EC_KEY, which
# OPENSSL_NO_DEPRECATED hides, so these objects go without it.
XMLSEC_CFLAGS := $(shell pkg-config --cflags xmlsec1-openssl)
XMLSEC_LIBS := $(shell pkg-config --libs xmlsec1-openssl)
REF_OBJ := $(call obj,harness/ref.c harness/cases_ref.c harness/cmd_ref.c)
$(REF_OBJ): CFLAGS_ALL := $(filter-out -DOPENSSL_NO_DEPRECATED,$(CFLAGS_ALL)) $(XMLSEC_CFLAGS)

# The tests read the shared conformance vectors by absolute path.
$(TEST_OBJ): CFLAGS_ALL += -DDOMLAB_SHARED_DIR='"$(abspath $(SHARED))"'

-include $(shell find $(OUT)/obj -name '*.d' 2>/dev/null)

# ---- tests ---------------------------------------------------------------------
# `make test`: every test variant, then one total line.  `make test VARIANT=x`:
# that one.  Each run prints "N passed, N failed"; tests/total.sh sums them.
ifeq ($(origin VARIANT)$(axis_vars),file)
test:
	@sh .ci/deps.sh build
	@rm -f $(BUILD_DIR)/test-results.txt
	@for v in $(TEST_VARIANTS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v test-one || exit 1; \
	done
	@$(if $(SANITIZE)$(TSAN),,$(MAKE) --no-print-directory VARIANT=$(TSAN_VARIANT) TSAN=1 test-threads)
	@$(MAKE) --no-print-directory fuzz-smoke
	@sh tests/total.sh $(BUILD_DIR)/test-results.txt
else
test:
	@sh .ci/deps.sh build
	@rm -f $(BUILD_DIR)/test-results.txt
	@$(MAKE) --no-print-directory test-one
	@sh tests/total.sh $(BUILD_DIR)/test-results.txt
endif

# Test keys are made here, never committed; shared/ (the conformance
# vectors and the xmlsec1 reference scripts) sits beside the checkout.
KEYS_DIR := $(BUILD_DIR)/keys
TEST_ENV := DOMLAB_KEYS=$(KEYS_DIR) DOMLAB_SHARED=$(SHARED)

keys: $(KEYS_DIR)/mallory.cert.pem
$(KEYS_DIR)/mallory.cert.pem: tests/make-keys.sh
	@sh tests/make-keys.sh $(KEYS_DIR)

# Each suite runs through tests/suite.sh, which appends its output to the
# results file; a suite that exits non-zero without reporting a failure of
# its own (a crash, or a sanitizer's report: TSAN makes test-dom exit 66
# after its own line) counts as one more failure.
RUN_SUITE = sh tests/suite.sh $(BUILD_DIR)/test-results.txt

# The shell suites, each tests/<name>.sh taking the domlab binary: one list
# for test-one and for tests/memcheck.sh, so memcheck cannot miss a suite.
SHELL_SUITES := cli interop refpeer harness attach

test-one: all keys
	@mkdir -p $(BUILD_DIR)
	@echo "== variant $(VARIANT)$(SUFFIX)"
	@$(RUN_SUITE) test-dom env $(TEST_ENV) $(OUT)/test-dom tests/data
	@for s in $(SHELL_SUITES); do \
	  $(RUN_SUITE) $$s.sh env $(TEST_ENV) sh tests/$$s.sh $(OUT)/domlab; \
	done

# The threads test under ThreadSanitizer, on one variant: the one whose
# keys cache is shared (keys=cached); `make test TSAN=1` runs everything
# under it.  test-dom alone is built, so it costs well under a minute.
TSAN_VARIANT := best
test-threads: $(OUT)/test-dom keys
	@echo "== variant $(VARIANT)$(SUFFIX): threads"
	@$(RUN_SUITE) test-dom-threads env $(TEST_ENV) $(OUT)/test-dom tests/data threads_

# ---- fuzzing -------------------------------------------------------------------
# Every tests/fuzz/*.c is a libFuzzer target, linked against a library
# built with clang, ASan and UBSan (FUZZ=1, build/<variant>-fuzz/).  The
# first of FUZZ_VARIANTS (best: parser=insitu) runs every target; the
# others run FUZZ_BUILD_TARGETS, the targets whose code differs with them
# (the parser, and the receive path, which parses the message and the
# decrypted content): parser=libxml2 with the tree built from SAX events
# (direct) and through libxml2's own tree (built).
# Seeds: tests/fuzz/corpus/<target>/ plus what tests/fuzz/seeds.sh makes
# from the generators and the test keys.
# `make fuzz FUZZ_SECONDS=N`: each target N seconds, one at a time, growing
# the work corpus build/<variant>-fuzz/fuzz/corpus/<target>/.
# `make fuzz-smoke` (part of `make test`): each target from a fresh corpus
# with a fixed seed for FUZZ_RUNS inputs or FUZZ_SMOKE_SECONDS, whichever
# ends first (only how much is explored depends on the machine, never the
# verdict), then every input under tests/fuzz/regress/<target>/.
FUZZ_VARIANTS := best adaptive-shared-direct-cached-cached-hash-buffered-libxml2 \
  adaptive-shared-built-cached-cached-hash-buffered-libxml2
FUZZ_BUILD_TARGETS := parse receive_struct receive_diff
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 20000
FUZZ_SMOKE_SECONDS ?= 8
FUZZ_NOW := 1796000000
FUZZ_SRC := $(wildcard tests/fuzz/*.c)
FUZZ_TARGETS ?= $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRC))
FUZZ_BIN := $(patsubst %,$(OUT)/fuzz/bin/%,$(FUZZ_TARGETS))
.PHONY: fuzz fuzz-smoke fuzz-build fuzz-run fuzz-list oss-fuzz-check

# libFuzzer's entry points have no header to declare them in.
$(OUT)/fuzz/bin/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(OUT)/libdom.a $(KEYS_DIR)/mallory.cert.pem $(MAKEFILE_LIST)
	@mkdir -p $(@D)
	@echo "  FUZZ $@"
	@$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -fsanitize=fuzzer \
	  -DFUZZ_KEYS_DIR='"$(abspath $(KEYS_DIR))"' -DFUZZ_NOW=$(FUZZ_NOW) \
	  -o $@ $< $(FUZZ_LINK) $(OUT)/libdom.a $(LIBS)

# receive_diff runs the reference peer too: its objects, and xmlsec1.
FUZZ_REF_OBJ := $(call obj,harness/ref.c harness/cli_io.c)
$(OUT)/fuzz/bin/receive_diff: $(FUZZ_REF_OBJ)
$(OUT)/fuzz/bin/receive_diff: FUZZ_LINK := $(FUZZ_REF_OBJ) $(XMLSEC_LIBS)

fuzz-build: $(FUZZ_BIN)

# The seeds need a plain domlab of the same variant to make messages.
fuzz-run:
	@$(MAKE) --no-print-directory -s VARIANT=$(VARIANT) FUZZ= SANITIZE= all keys
	@$(MAKE) --no-print-directory -s VARIANT=$(VARIANT) FUZZ=1 fuzz-build
	@sh tests/fuzz/seeds.sh $(BUILD_DIR)/$(VARIANT)/domlab $(KEYS_DIR) $(FUZZ_NOW) \
	  $(BUILD_DIR)/$(VARIANT)-fuzz/fuzz/seeds
	@sh tests/fuzz/run.sh $(FUZZ_MODE) $(BUILD_DIR)/$(VARIANT)-fuzz/fuzz \
	  $(if $(filter smoke,$(FUZZ_MODE)),$(FUZZ_RUNS)/$(FUZZ_SMOKE_SECONDS),$(FUZZ_SECONDS)) \
	  $(or $(FUZZ_RESULTS),-) $(FUZZ_TARGETS)

# fuzz-smoke adds its counts to the results `make test` totals.
fuzz fuzz-smoke:
	@sh .ci/deps.sh build
	@mkdir -p $(BUILD_DIR)
	@first=1; for v in $(FUZZ_VARIANTS); do \
	  echo "== fuzz $$v"; \
	  targets="$(FUZZ_TARGETS)"; [ $$first = 1 ] || targets="$(FUZZ_BUILD_TARGETS)"; first=0; \
	  $(MAKE) --no-print-directory VARIANT=$$v FUZZ_MODE=$(if $(filter fuzz,$@),fuzz,smoke) \
	    FUZZ_TARGETS="$$targets" \
	    FUZZ_RESULTS=$(if $(filter fuzz-smoke,$@),$(abspath $(BUILD_DIR))/test-results.txt) fuzz-run || exit 1; \
	done

# What tests/fuzz/oss-fuzz/build.sh builds, so the lists live here only:
# "now SECONDS", then one line per variant, its name and its targets.
fuzz-list:
	@echo "now $(FUZZ_NOW)"
	@first=1; for v in $(FUZZ_VARIANTS); do \
	  if [ $$first = 1 ]; then echo "$$v $(FUZZ_TARGETS)"; \
	  else echo "$$v $(FUZZ_BUILD_TARGETS)"; fi; first=0; \
	done

# `make oss-fuzz-check`: tests/fuzz/oss-fuzz/build.sh in a simulated
# OSS-Fuzz environment (temporary $SRC, $WORK and $OUT, clang, ASan and
# UBSan, libFuzzer as the engine), then every fuzzer it made on its seed
# zip and for a short bounded run.  Prints "N passed, N failed".
oss-fuzz-check:
	@sh .ci/deps.sh build
	@sh tests/fuzz/oss-fuzz/check.sh

# ---- memcheck ------------------------------------------------------------------
# `make memcheck`: every preset's test-dom and shell suites with every
# domlab process under valgrind memcheck.  A memcheck error or a definite
# or indirect leak makes the process exit 99, which the suites count as a
# failure; tests/memcheck.sh also fails on any non-empty valgrind log, so a
# check that only asks for "not 0" cannot hide one.  One variant's run
# keeps its tally in its own build directory, so two variants may run at
# once (each takes minutes); the all-presets run keeps one for the total.
.PHONY: memcheck memcheck-one
MEMCHECK_RESULTS ?= $(OUT)/memcheck-results.txt
ifeq ($(origin VARIANT)$(axis_vars),file)
memcheck:
	@sh .ci/deps.sh memcheck
	@rm -f $(BUILD_DIR)/memcheck-results.txt
	@for v in $(PRESETS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v \
	    MEMCHECK_RESULTS=$(BUILD_DIR)/memcheck-results.txt memcheck-one || exit 1; \
	done
	@sh tests/total.sh $(BUILD_DIR)/memcheck-results.txt
else
memcheck:
	@sh .ci/deps.sh memcheck
	@rm -f $(MEMCHECK_RESULTS)
	@$(MAKE) --no-print-directory memcheck-one
	@sh tests/total.sh $(MEMCHECK_RESULTS)
endif

memcheck-one: all keys
	@echo "== memcheck $(VARIANT)$(SUFFIX)"
	@$(TEST_ENV) sh tests/memcheck.sh $(OUT) $(MEMCHECK_RESULTS) \
	  $(SHELL_SUITES)

# ---- benchmark -----------------------------------------------------------------
# The presets and one ablation per axis: best with that axis flipped.
# build applies only under parser=libxml2 (insitu builds the tree itself),
# so its flip is measured there alone: the last variant against the one
# before it (best with build=built would be best's own code again).
BENCH_VARIANTS := doom2010 xerces best \
  hash-shared-direct-cached-cached vector-shared-direct-cached-cached \
  adaptive-pernode-direct-cached-cached \
  adaptive-shared-direct-copy-cached adaptive-shared-direct-cached-reload \
  adaptive-shared-direct-cached-cached-list \
  adaptive-shared-direct-cached-cached-hash-unbuffered \
  adaptive-shared-direct-cached-cached-hash-buffered-insitu-source \
  adaptive-shared-direct-cached-cached-hash-buffered-insitu-tree \
  adaptive-shared-direct-cached-cached-hash-buffered-libxml2 \
  adaptive-shared-built-cached-cached-hash-buffered-libxml2
# make compare [FULL=1] [ICOUNT=1]: them with repetitions, the reference and
# the floor, into results/<run-id>/ (harness/compare.sh, results/README.md).
# make bench: the quick compare.  FULL=1 adds quakes-20m and repetitions;
# ICOUNT=1 adds instructions per iteration under callgrind.  CASES=RE runs
# only the cases whose names (ref:/pugi:/floor: prefix left out) match the
# extended regular expression RE, in every run alike.
FULL ?=
ICOUNT ?=
CASES ?=
compare bench:
	@sh .ci/deps.sh bench
	@$(MAKE) --no-print-directory keys
	@BUILD_DIR=$(BUILD_DIR) QUICK=$(if $(filter bench,$@),1) FULL=$(FULL) \
	  ICOUNT=$(ICOUNT) CASES='$(CASES)' sh harness/compare.sh $(BENCH_VARIANTS)

# make profile VARIANT=x [DATASET=quakes-200k] [STAGE=send]
DATASET ?= quakes-200k
STAGE ?= send
profile:
	@sh .ci/deps.sh profile
	@BUILD_DIR=$(BUILD_DIR) sh harness/profile.sh $(VARIANT) $(DATASET) $(STAGE)

deps:
	@sh .ci/deps.sh

# The fuzz targets take their keys and clock as definitions (see
# FUZZ_BIN's rule), so they are checked with those defined.
LINT := cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability \
  --std=c11 --inline-suppr -I. -D_GNU_SOURCE --suppress=missingIncludeSystem
lint:
	$(LINT) -itests/fuzz dom variants wss datasets harness tests
	$(LINT) -DFUZZ_KEYS_DIR='"keys"' -DFUZZ_NOW=0 tests/fuzz

clean:
	rm -rf $(BUILD_DIR)
