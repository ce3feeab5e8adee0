# domlab - the one entry point.  See README.md.
#
#   make                         build the default preset (best)
#   make VARIANT=doom2010        build a preset
#   make VARIANT=best+attrs=vector  a preset and what differs from it
#   make ATTRS=hash BUILD=built  build axis by axis (unnamed axes: best's,
#                                or the named VARIANT's)
#   make variant-name ...        print the variant's name (its build folder)
#   make test                    build and test every preset + coverage variants
#   make test VARIANT=x          one variant
#   make bench                   quick benchmark run into results/
#   make compare [FULL=1] [ICOUNT=1]  the thorough one (ICOUNT: callgrind)
#   make compare CASES='^(tokens|attachment)'  only the cases matching
#                                an extended regex (ref/pugixml/floor too)
#   make bench DATA=PATH         also on your SOAP envelopes (a file or a
#                                folder), each file a dataset
#   make install VARIANT=x PREFIX=dir  the variant as a library (pkg-config
#                                domlab-x; docs/api.md); make uninstall
#   make worst                   hostile inputs at full size, CPU and RSS
#   make scenarios               token store and attachments over HTTP
#   make attack                  attacks on `domlab serve` under open-loop load
#   make oneshot                 one send / receive per process, instructions
#                                (callgrind) into results/oneshot/
#   make reference [FORCE=1]     make compare ICOUNT=1 into results/reference/,
#                                and the README's results table from it
#   make profile-diff A=x B=y STAGE=c14n DATASET=quakes-200k  two variants'
#                                profiles of one case, and their difference
#   make fuzz [FUZZ_SECONDS=60]  every tests/fuzz/*.c target, that long each
#   make oss-fuzz-check          the OSS-Fuzz build (tests/fuzz/oss-fuzz/), simulated
#   make memcheck                the whole test suite under valgrind, every preset
#   SANITIZE=1                   ASan + UBSan build (build/<variant>-asan/)
#   TSAN=1                       ThreadSanitizer build (build/<variant>-tsan/)

PRESETS := doom2010 xerces best

# The axes, one line each, in the order a variant's name spells them: the
# axis, the make variable that picks its choice, the choice of each preset
# (doom2010, xerces, best), then its other choices.  Each choice is
# variants/<axis>/<choice>.c, or every .c file in variants/<axis>/<choice>/
# when it needs several.  A new axis is one more line here.
AXES :=
define axis
AXES += $(strip $(1))
var_$(strip $(1)) := $(strip $(2))
doom2010_$(strip $(1)) := $(strip $(3))
xerces_$(strip $(1)) := $(strip $(4))
best_$(strip $(1)) := $(strip $(5))
choices_$(strip $(1)) := $(sort $(3) $(4) $(5) $(6))
endef
#                   axis      variable  doom2010    xerces    best       others
$(eval $(call axis, attrs,    ATTRS,    vector,     vector,   adaptive,  hash))
$(eval $(call axis, userdata, USERDATA, pernode,    shared,   shared))
$(eval $(call axis, build,    BUILD,    built,      direct,   deferred,  direct))
$(eval $(call axis, attrlist, ATTRLIST, copy,       cached,   cached))
$(eval $(call axis, keys,     KEYS,     reload,     cached,   cached))
$(eval $(call axis, tokens,   TOKENS,   list,       hash,     hash))
$(eval $(call axis, io,       IO,       unbuffered, buffered, buffered))
$(eval $(call axis, parser,   PARSER,   libxml2,    libxml2,  insitu))
$(eval $(call axis, emit,     EMIT,     tree,       tree,     canonical, source))
$(eval $(call axis, hash,     HASH,     fixed,      fixed,    keyed))
$(eval $(call axis, read,     READ,     framed,     framed,   framed,    eof))

# Presets plus what it takes to build every choice of every axis once, and
# each preset with the other parser (and so hash=fixed under insitu,
# hash=keyed under libxml2).
TEST_VARIANTS := doom2010 xerces best \
  best+attrs=hash+userdata=pernode+attrlist=copy+keys=reload+read=eof \
  doom2010+parser=insitu xerces+parser=insitu best+emit=source \
  best+build=direct+parser=libxml2 best+build=direct

# ---- which variant ----------------------------------------------------------
# A variant's name is a preset, then "+axis=choice" for each axis whose
# choice differs from the preset's, in the order of AXES: best,
# best+attrs=vector, doom2010+parser=insitu.  VARIANT may give the
# differing axes in any order, and an axis variable (ATTRS=hash) overrides
# VARIANT's choice for its axis; NAME is the canonical name, the build
# folder's.  Without VARIANT the preset is best.
empty :=
space := $(empty) $(empty)
axis_vars := $(strip $(foreach a,$(AXES),$($(var_$(a)))))
name_words := $(subst +, ,$(or $(VARIANT),best))
PRESET := $(firstword $(name_words))
given := $(wordlist 2,$(words $(name_words)),$(name_words))
ifeq ($(filter $(PRESET),$(PRESETS)),)
  $(error VARIANT=$(VARIANT) is not a preset ($(PRESETS)) followed by +axis=choice for each axis that differs, as in best+attrs=vector)
endif
$(foreach g,$(given),$(if $(and $(filter 2,$(words $(subst =, ,$(g)))),\
  $(filter $(firstword $(subst =, ,$(g))),$(AXES))),,\
  $(error VARIANT=$(VARIANT): '$(g)' is not axis=choice for an axis of: $(AXES))))
choice_of = $(or $($(var_$(1))),$(patsubst $(1)=%,%,$(lastword $(filter $(1)=%,$(given)))),$($(PRESET)_$(1)))
$(foreach a,$(AXES),$(if $(filter $(call choice_of,$(a)),$(choices_$(a))),,\
  $(error $(a)=$(call choice_of,$(a)) is not one of: $(choices_$(a)))))
# build=deferred is the insitu parser's (variants/build/deferred.c).
ifeq ($(call choice_of,build)$(call choice_of,parser),deferredlibxml2)
  $(error build=deferred needs parser=insitu: libxml2 builds every node (best with libxml2: best+build=direct+parser=libxml2))
endif
CHOICES := $(foreach a,$(AXES),$(call choice_of,$(a)))
NAME := $(PRESET)$(subst $(space),,$(foreach a,$(AXES),\
  $(if $(filter-out $($(PRESET)_$(a)),$(call choice_of,$(a))),+$(a)=$(call choice_of,$(a)))))

# ---- flags ---------------------------------------------------------------------
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
OUT := $(BUILD_DIR)/$(NAME)$(SUFFIX)

XML2_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || xml2-config --cflags)
XML2_LIBS := $(shell pkg-config --libs libxml-2.0 2>/dev/null || xml2-config --libs)
XMLSEC_CFLAGS := $(shell pkg-config --cflags xmlsec1-openssl)
XMLSEC_LIBS := $(shell pkg-config --libs xmlsec1-openssl)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -DOPENSSL_API_COMPAT=30000 -DOPENSSL_NO_DEPRECATED $(OPT) -g -fno-omit-frame-pointer $(WARN) \
              -I. $(XML2_CFLAGS) -DDOMLAB_PRESET='"$(PRESET)"' \
              -DDOMLAB_VARIANT='"$(NAME)"' $(CFLAGS)
CXXFLAGS_ALL := -std=c++17 $(OPT) -g -fno-omit-frame-pointer -Wall -Wextra -Werror -I. $(CXXFLAGS)
LIBS := $(XML2_LIBS) -lcrypto -lpthread

# Three libraries, each named for what it holds; an axis's choice goes into
# the one its contract header is in (wss/keys.h: the keys axis is wss's).
#   libdomlab-dom.a   util/, dom/ and the DOM axes' choices
#   libdomlab-wss.a   wss/ (the WS-Security pipeline) and its axes' choices
#   libdomlab-data.a  datasets/ (the generators)
WSS_AXES := $(foreach a,$(AXES),$(if $(wildcard wss/$(a).h),$(a)))
# A choice's sources: its folder's .c files, else its one file.
choice_file = $(or $(wildcard variants/$(1)/$(2)/*.c),variants/$(1)/$(2).c)
choice_src = $(foreach a,$(1),$(call choice_file,$(a),$(call choice_of,$(a))))
DOM_SRC := $(wildcard util/*.c) $(wildcard dom/*.c) $(call choice_src,$(filter-out $(WSS_AXES),$(AXES)))
WSS_SRC := $(wildcard wss/*.c) $(call choice_src,$(WSS_AXES))
DATA_SRC := $(wildcard datasets/*.c)
# harness/ is four components, one folder each: cli/ (the command line,
# libdomlab-cli.a, which domlab and domlab-bench share), bench/ (the cases
# and the Google Benchmark wrapper), refpeer/ (the libxml2 + xmlsec1
# reference peer) and reports/ (the scripts that turn runs into reports).
# bench/ and refpeer/ go into domlab-bench alone, with Google Benchmark,
# pugixml and xmlsec1.
BENCH_SRC := $(wildcard harness/bench/*.c harness/refpeer/*.c)
# harness/http/ is `domlab serve` and `domlab load` (docs/http.md): their
# option tables and the exec of domlab-http (HTTP_SHARED) go into the cli
# library, for domlab's --help; the rest is domlab-http, the one binary
# that links libmicrohttpd and libcurl (with the reference peer).
HTTP_SHARED := harness/http/opts.c harness/http/sibling.c
HTTP_SRC := $(filter-out $(HTTP_SHARED),$(wildcard harness/http/*.c))
CLI_SRC := $(filter-out harness/cli/main.c,$(wildcard harness/cli/*.c)) $(HTTP_SHARED)
BENCH_CXX := $(wildcard harness/bench/*.cc)
TEST_SRC := $(wildcard tests/*.c)

obj = $(patsubst %.c,$(OUT)/obj/%.o,$(1))
LIB_DOM := $(OUT)/libdomlab-dom.a
LIB_WSS := $(OUT)/libdomlab-wss.a
LIB_DATA := $(OUT)/libdomlab-data.a
LIB_CLI := $(OUT)/libdomlab-cli.a
# In link order: each library before the ones it uses.
LIBS_DOMLAB := $(LIB_DATA) $(LIB_WSS) $(LIB_DOM)
BENCH_OBJ := $(call obj,$(BENCH_SRC)) $(patsubst %.cc,$(OUT)/obj/%.o,$(BENCH_CXX))
TEST_OBJ := $(call obj,$(TEST_SRC))

.PHONY: all domlab domlab-bench domlab-http variant-name variant-axes test test-one test-threads bench compare reference worst profile clean deps lint keys
all: $(OUT)/domlab $(OUT)/domlab-bench $(OUT)/domlab-http $(OUT)/test-libdomlab

# One binary alone.  Scripts name them through these targets: a path
# with '=' in it would be a variable assignment on make's command line.
domlab: $(OUT)/domlab
domlab-bench: $(OUT)/domlab-bench
domlab-http: $(OUT)/domlab-http
variant-name:
	@echo $(NAME)
variant-axes:
	@echo $(foreach a,$(AXES),$(a)=$(call choice_of,$(a)))

# Objects depend on the flags they were built with, kept in FLAGS_STAMP
# and rewritten only when they change, not on the Makefile: an edit to a
# comment or a target must not rebuild every variant.
FLAGS_STAMP := $(OUT)/flags.txt
FLAGS_NOW := $(CC) $(CFLAGS_ALL) $(XMLSEC_CFLAGS) | $(CXX) $(CXXFLAGS_ALL) | $(LIBS)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_NOW))
$(shell mkdir -p $(OUT))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif

$(OUT)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC  $(OUT): $<"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -MT '$$(OUT)/obj/$*.o' -c $< -o $@

$(OUT)/obj/%.o: %.cc $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CXX $(OUT): $<"
	@$(CXX) $(CXXFLAGS_ALL) -MMD -MP -MT '$$(OUT)/obj/$*.o' -c $< -o $@

$(LIB_DOM): $(call obj,$(DOM_SRC))
$(LIB_WSS): $(call obj,$(WSS_SRC))
$(LIB_DATA): $(call obj,$(DATA_SRC))
$(LIB_CLI): $(call obj,$(CLI_SRC))
$(OUT)/libdomlab-%.a:
	@echo "  AR  $@"
	@rm -f $@ && ar rcs $@ $^

# domlab links only what its commands use: C, libcrypto, and libxml2 only
# where the variant's parser is libxml2; no C++ runtime, Google Benchmark,
# pugixml or xmlsec1.  Each library a process loads costs its relocations
# at every start.  Under parser=insitu the build axis's choice is linked for
# its name alone (domlab variant): --gc-sections drops its code and the
# libxml2 glue it calls, so nothing left calls libxml2 (a call that is
# left fails the link).  Sanitizer builds (SUFFIX) link libxml2 anyway:
# their module constructors keep every section of an object the link
# pulls in, and their start-up cost is not what they are for.  libcrypto
# is linked from its static archive, so the loader binds none of its
# symbols at start (docs/measuring.md); a libcrypto update then needs
# domlab rebuilt.
DOMLAB_XML2 := $(if $(or $(filter libxml2,$(call choice_of,parser)),$(SUFFIX)),$(XML2_LIBS))
$(OUT)/domlab: $(call obj,harness/cli/main.c) $(LIB_CLI) $(LIBS_DOMLAB)
	@echo "  LD  $@"
	@$(CC) $(OPT) -Wl,--gc-sections -Wl,--as-needed -o $@ $^ $(DOMLAB_XML2) -Wl,-Bstatic -lcrypto -Wl,-Bdynamic -ldl -lpthread

$(OUT)/domlab-bench: $(BENCH_OBJ) $(LIB_CLI) $(LIBS_DOMLAB)
	@echo "  LD  $@"
	@$(CXX) $(OPT) -o $@ $^ $(XMLSEC_LIBS) $(LIBS) -lbenchmark -lpugixml

HTTP_CFLAGS := $(shell pkg-config --cflags libmicrohttpd libcurl)
HTTP_LIBS := $(shell pkg-config --libs libmicrohttpd libcurl)
$(call obj,$(HTTP_SRC)): CFLAGS_ALL += $(HTTP_CFLAGS)
$(OUT)/domlab-http: $(call obj,$(HTTP_SRC) harness/refpeer/ref.c) $(LIB_CLI) $(LIBS_DOMLAB)
	@echo "  LD  $@"
	@$(CC) $(OPT) -o $@ $^ $(HTTP_LIBS) $(XMLSEC_LIBS) $(LIBS)

$(OUT)/test-libdomlab: $(TEST_OBJ) $(LIBS_DOMLAB)
	@echo "  LD  $@"
	@$(CC) $(OPT) -o $@ $^ $(LIBS)

# The reference peer (libxml2 + xmlsec1) compiles with exactly xmlsec's
# flags: they fix xmlSecSize's type (XMLSEC_NO_SIZE_T) to the library's.
# xmlsec 1.2's OpenSSL header names RSA, DSA and EC_KEY, which
# OPENSSL_NO_DEPRECATED hides, so these objects go without it.
REF_OBJ := $(call obj,$(wildcard harness/refpeer/*.c) harness/bench/cases_ref.c)
$(REF_OBJ): CFLAGS_ALL := $(filter-out -DOPENSSL_NO_DEPRECATED,$(CFLAGS_ALL)) $(XMLSEC_CFLAGS)

# The tests read the conformance vectors (tests/vectors/) by absolute path,
# so test-libdomlab runs from any directory.
$(TEST_OBJ): CFLAGS_ALL += -DDOMLAB_VECTORS_DIR='"$(abspath tests/vectors)"'

-include $(shell find $(OUT)/obj -name '*.d' 2>/dev/null)

# ---- tests ---------------------------------------------------------------------
# `make test`: every test variant, then one total line.  `make test VARIANT=x`:
# that one.  Each run prints "N passed, N failed"; tests/total.sh sums them.
ifeq ($(origin VARIANT)$(axis_vars),undefined)
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

# Test keys are made here, never committed (the fuzz targets' are, see
# FUZZ_KEYS); the conformance vectors are tests/vectors/.
KEYS_DIR := $(BUILD_DIR)/keys
# tests/install.sh installs the variant under test with DOMLAB_MAKE and
# builds the examples with DOMLAB_CFLAGS: this build's folder, compiler
# and sanitizers.  tests/wss4j.sh compiles its Java driver into DOMLAB_WSS4J.
TEST_ENV := DOMLAB_KEYS=$(KEYS_DIR) DOMLAB_WSS4J=$(abspath $(BUILD_DIR))/wss4j \
  DOMLAB_MAKE='$(MAKE) --no-print-directory -C $(CURDIR) BUILD_DIR=$(abspath $(BUILD_DIR)) CC=$(CC) SANITIZE=$(SANITIZE) TSAN=$(TSAN)' \
  DOMLAB_CFLAGS='$(OPT) -g'

keys: $(KEYS_DIR)/mallory.cert.pem
$(KEYS_DIR)/mallory.cert.pem: tests/make-keys.sh
	@sh tests/make-keys.sh $(KEYS_DIR)

# Each suite runs through tests/suite.sh, which appends its output to the
# results file; a suite that exits non-zero without reporting a failure of
# its own (a crash, or a sanitizer's report: TSAN makes test-libdomlab exit 66
# after its own line) counts as one more failure.
RUN_SUITE = sh tests/suite.sh $(BUILD_DIR)/test-results.txt

# The shell suites, each tests/<name>.sh taking the domlab and domlab-bench
# binaries (the suites that run no benchmark or reference ignore the second): one list
# for test-one and for tests/memcheck.sh, so memcheck cannot miss a suite.
SHELL_SUITES := cli interop wss4j refpeer harness attach hostile install http

test-one: all keys
	@mkdir -p $(BUILD_DIR)
	@echo "== variant $(NAME)$(SUFFIX)"
	@$(TEST_ENV) $(RUN_SUITE) test-libdomlab $(OUT)/test-libdomlab tests/data
	@$(TEST_ENV) DOMLAB_SIMD=sse2 $(RUN_SUITE) test-libdomlab-sse2 $(OUT)/test-libdomlab tests/data
	@for s in $(SHELL_SUITES); do \
	  $(TEST_ENV) $(RUN_SUITE) $$s.sh sh tests/$$s.sh $(OUT)/domlab $(OUT)/domlab-bench; \
	done

# The threads test under ThreadSanitizer, on one variant: the one whose
# keys cache is shared (keys=cached); `make test TSAN=1` runs everything
# under it.  test-libdomlab alone is built, so it costs well under a minute.
TSAN_VARIANT := best
test-threads: $(OUT)/test-libdomlab keys
	@echo "== variant $(NAME)$(SUFFIX): threads"
	@$(TEST_ENV) $(RUN_SUITE) test-libdomlab-threads $(OUT)/test-libdomlab tests/data threads_

# ---- fuzzing -------------------------------------------------------------------
# Every tests/fuzz/*.c is a libFuzzer target, linked against a library
# built with clang, ASan and UBSan (FUZZ=1, build/<variant>-fuzz/).  The
# first of FUZZ_VARIANTS (best: parser=insitu) runs every target; the
# others run FUZZ_BUILD_TARGETS, the targets whose code differs with them
# (the parser, and the receive path, which parses the message and the
# decrypted content): parser=libxml2 with the tree built from SAX events
# (direct) and through libxml2's own tree (built).  The insitu parser
# building every node at once (build=direct, best's parser without
# deferral) runs FUZZ_DIRECT_TARGETS instead: the parser's.  (The
# `deferred` target, a document read in a random order against the same
# bytes built eagerly, is best's: under direct the two builds are alike.)
# Seeds: tests/fuzz/corpus/<target>/ plus what tests/fuzz/seeds.sh makes
# from the generators and FUZZ_KEYS.
# FUZZ_KEYS: alice's and bob's keys for the receive targets, committed so
# that a message made with them (a seed, a corpus or regression input) is
# a valid message on every machine, OSS-Fuzz included; public, for
# fuzzing only (tests/fuzz/keys/README.md).  The other suites use the
# keys made per build (KEYS_DIR).
# `make fuzz FUZZ_SECONDS=N`: each target N seconds, one at a time, growing
# the work corpus build/<variant>-fuzz/fuzz/corpus/<target>/.
# `make fuzz-campaign [VARIANT=x] [FUZZ_TARGETS=...] [FUZZ_CPU=3600]`: a
# long campaign of each target in turn, FUZZ_CPU seconds of CPU each in
# runs of FUZZ_CHUNK wall seconds at nice 19 (tests/fuzz/campaign.sh),
# each run a line of results/fuzz/runs.tsv.  `make fuzz-merge`: the work
# corpora merged into the committed ones, keeping every edge
# (-use_counters=0).  `make fuzz-replay`: each committed corpus replayed,
# its size and coverage into results/fuzz/corpus.tsv.  `make fuzz-record`:
# SECURITY.md's fuzzing record from those two files.
# `make fuzz-smoke` (part of `make test`): each target from a fresh corpus
# with a fixed seed for FUZZ_RUNS inputs or FUZZ_SMOKE_SECONDS, whichever
# ends first (only how much is explored depends on the machine, never the
# verdict), then every input under tests/fuzz/regress/<target>/.
FUZZ_VARIANTS := best best+build=direct+parser=libxml2 \
  best+build=built+parser=libxml2 best+build=direct
FUZZ_BUILD_TARGETS := parse receive_struct receive_diff
FUZZ_DIRECT_TARGETS := insitu parse c14n receive_struct
FUZZ_SECONDS ?= 60
FUZZ_CPU ?= 3600
FUZZ_CHUNK ?= 900
FUZZ_RECORD := results/fuzz
FUZZ_RUNS ?= 20000
FUZZ_SMOKE_SECONDS ?= 8
FUZZ_NOW := 1796000000
FUZZ_KEYS := tests/fuzz/keys
FUZZ_SRC := $(wildcard tests/fuzz/*.c)
FUZZ_TARGETS ?= $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRC))
FUZZ_BIN := $(patsubst %,$(OUT)/fuzz/bin/%,$(FUZZ_TARGETS))
.PHONY: fuzz fuzz-smoke fuzz-build fuzz-run fuzz-list oss-fuzz-check \
  fuzz-seeds fuzz-campaign fuzz-merge fuzz-replay fuzz-record

# libFuzzer's entry points have no header to declare them in.
$(OUT)/fuzz/bin/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(LIBS_DOMLAB) $(wildcard $(FUZZ_KEYS)/*.pem) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  FUZZ $@"
	@$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -fsanitize=fuzzer \
	  -DFUZZ_KEYS_DIR='"$(abspath $(FUZZ_KEYS))"' -DFUZZ_NOW=$(FUZZ_NOW) \
	  -o $@ $< $(FUZZ_LINK) $(LIBS_DOMLAB) $(LIBS)

# receive_diff runs the reference peer too: its objects, and xmlsec1.
FUZZ_REF_OBJ := $(call obj,harness/refpeer/ref.c harness/cli/cli_io.c)
$(OUT)/fuzz/bin/receive_diff: $(FUZZ_REF_OBJ)
$(OUT)/fuzz/bin/receive_diff: FUZZ_LINK := $(FUZZ_REF_OBJ) $(XMLSEC_LIBS)

fuzz-build: $(FUZZ_BIN)

# What tests/fuzz/oss-fuzz/build.sh links a variant's targets from, built
# with the engine's flags.
.PHONY: fuzz-objs
fuzz-objs: $(LIB_DOM) $(LIB_WSS) $(LIB_DATA) $(call obj,harness/refpeer/ref.c harness/cli/cli_io.c)

# The seeds need a plain domlab of the same variant to make messages.
FUZZ_DIR = $(BUILD_DIR)/$(NAME)-fuzz/fuzz
fuzz-seeds:
	@sh .ci/deps.sh build
	@$(MAKE) --no-print-directory -s VARIANT=$(NAME) FUZZ= SANITIZE= all
	@$(MAKE) --no-print-directory -s VARIANT=$(NAME) FUZZ=1 fuzz-build
	@sh tests/fuzz/seeds.sh $(BUILD_DIR)/$(NAME)/domlab $(FUZZ_KEYS) $(FUZZ_NOW) \
	  $(FUZZ_DIR)/seeds

fuzz-run: fuzz-seeds
	@sh tests/fuzz/run.sh $(FUZZ_MODE) $(BUILD_DIR)/$(NAME)-fuzz/fuzz \
	  $(if $(filter smoke,$(FUZZ_MODE)),$(FUZZ_RUNS)/$(FUZZ_SMOKE_SECONDS),$(FUZZ_SECONDS)) \
	  $(or $(FUZZ_RESULTS),-) $(FUZZ_TARGETS)

fuzz-campaign: fuzz-seeds
	@for t in $(FUZZ_TARGETS); do \
	  FUZZ_CHUNK=$(FUZZ_CHUNK) bash tests/fuzz/campaign.sh $(FUZZ_DIR) $(NAME) $$t \
	    $(FUZZ_CPU) $(FUZZ_RECORD)/runs.tsv || exit 1; \
	done

fuzz-merge:
	@sh .ci/deps.sh build
	@$(MAKE) --no-print-directory -s VARIANT=$(NAME) FUZZ=1 fuzz-build
	@mkdir -p $(FUZZ_DIR)/logs
	@for t in $(FUZZ_TARGETS); do \
	  [ -d $(FUZZ_DIR)/corpus/$$t ] || continue; \
	  mkdir -p tests/fuzz/corpus/$$t; \
	  $(FUZZ_DIR)/bin/$$t -merge=1 -use_counters=0 tests/fuzz/corpus/$$t \
	    $(FUZZ_DIR)/corpus/$$t >$(FUZZ_DIR)/logs/$$t.merge.log 2>&1 || \
	    { echo "FAIL merge: $$t; log: $(FUZZ_DIR)/logs/$$t.merge.log"; exit 1; }; \
	  echo "merge $$t: tests/fuzz/corpus/$$t has $$(ls tests/fuzz/corpus/$$t | wc -l) inputs"; \
	done

fuzz-replay:
	@sh .ci/deps.sh build
	@$(MAKE) --no-print-directory -s VARIANT=$(NAME) FUZZ=1 fuzz-build
	@mkdir -p $(FUZZ_DIR)/logs $(FUZZ_RECORD)
	@for t in $(FUZZ_TARGETS); do \
	  sh tests/fuzz/replay.sh $(FUZZ_DIR) $(NAME) $$t $(FUZZ_RECORD)/corpus.tsv || exit 1; \
	done

fuzz-record:
	@python3 harness/reports/fuzz_record.py --record $(FUZZ_RECORD) --doc SECURITY.md

# fuzz-smoke adds its counts to the results `make test` totals.
fuzz fuzz-smoke:
	@sh .ci/deps.sh build
	@mkdir -p $(BUILD_DIR)
	@first=1; for v in $(FUZZ_VARIANTS); do \
	  echo "== fuzz $$v"; \
	  targets="$(FUZZ_TARGETS)"; \
	  [ $$first = 1 ] || targets="$(FUZZ_BUILD_TARGETS)"; first=0; \
	  case $$v in *build=direct) targets="$(FUZZ_DIRECT_TARGETS)";; esac; \
	  $(MAKE) --no-print-directory VARIANT=$$v FUZZ_MODE=$(if $(filter fuzz,$@),fuzz,smoke) \
	    FUZZ_TARGETS="$$targets" \
	    FUZZ_RESULTS=$(if $(filter fuzz-smoke,$@),$(abspath $(BUILD_DIR))/test-results.txt) fuzz-run || exit 1; \
	done

# What tests/fuzz/oss-fuzz/build.sh builds, so the lists live here only:
# "now SECONDS", "keys FOLDER", then one line per variant, its name and
# its targets.
fuzz-list:
	@echo "now $(FUZZ_NOW)"
	@echo "keys $(FUZZ_KEYS)"
	@first=1; for v in $(FUZZ_VARIANTS); do \
	  if [ $$first = 1 ]; then echo "$$v $(FUZZ_TARGETS)"; \
	  else case $$v in *build=direct) echo "$$v $(FUZZ_DIRECT_TARGETS)";; \
	    *) echo "$$v $(FUZZ_BUILD_TARGETS)";; esac; fi; first=0; \
	done

# `make oss-fuzz-check`: tests/fuzz/oss-fuzz/build.sh in a simulated
# OSS-Fuzz environment (temporary $SRC, $WORK and $OUT, clang, ASan and
# UBSan, libFuzzer as the engine), then every fuzzer it made on its seed
# zip and for a short bounded run.  Prints "N passed, N failed".
oss-fuzz-check:
	@sh .ci/deps.sh build
	@sh tests/fuzz/oss-fuzz/check.sh

# ---- memcheck ------------------------------------------------------------------
# `make memcheck`: every preset's test-libdomlab and shell suites with every
# domlab process under valgrind memcheck.  A memcheck error or a definite
# or indirect leak makes the process exit 99, which the suites count as a
# failure; tests/memcheck.sh also fails on any non-empty valgrind log, so a
# check that only asks for "not 0" cannot hide one.  One variant's run
# keeps its tally in its own build directory, so two variants may run at
# once (each takes minutes); the all-presets run keeps one for the total.
.PHONY: memcheck memcheck-one
MEMCHECK_RESULTS ?= $(OUT)/memcheck-results.txt
ifeq ($(origin VARIANT)$(axis_vars),undefined)
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
	@echo "== memcheck $(NAME)$(SUFFIX)"
	@$(TEST_ENV) sh tests/memcheck.sh $(OUT) $(MEMCHECK_RESULTS) \
	  $(SHELL_SUITES)

# ---- benchmark -----------------------------------------------------------------
# The presets and one ablation per axis: best with that axis flipped
# (read=eof shows only in the load scenario over HTTP, compare.sh's last).
# build=built and direct differ only under parser=libxml2 (insitu builds
# the tree itself), so that flip is measured there: the last variant
# against the one before it (best with build=built would be best's own
# code again); build=direct, the insitu parser building every node at
# once, against best's build=deferred.  build=deferred is the insitu
# parser's, so best's libxml2 variants name build=direct.
BENCH_VARIANTS := doom2010 xerces best \
  best+attrs=hash best+attrs=vector best+userdata=pernode \
  best+attrlist=copy best+keys=reload best+tokens=list best+io=unbuffered \
  best+emit=source best+emit=tree best+hash=fixed best+read=eof \
  best+build=direct+parser=libxml2 best+build=built+parser=libxml2 \
  best+build=direct
# make compare [FULL=1] [ICOUNT=1]: them with repetitions, the reference and
# the floor, into results/<run-id>/ (harness/reports/compare.sh, results/README.md).
# make bench: the quick compare.  FULL=1 adds quakes-20m and repetitions;
# ICOUNT=1 adds instructions per iteration under callgrind (ICOUNT_CASES=RE:
# only the cases whose full names match RE).  CASES=RE runs only the cases
# whose names (ref:/pugi:/floor: prefix left out) match the extended
# regular expression RE, in every run alike.
# DATA=PATH: a SOAP envelope or a folder of them, each file a dataset of its
# own beside the generated ones (domlab-bench bench --data).
# ALTERNATE=K: K more rounds of the variants' runs, one variant after the
# other, for ratios free of drift between runs (FINDINGS.md).
FULL ?=
ALTERNATE ?= 0
ICOUNT ?=
ICOUNT_CASES ?=
CASES ?=
DATA ?=
compare bench:
	@sh .ci/deps.sh bench
	@$(MAKE) --no-print-directory keys
	@BUILD_DIR=$(BUILD_DIR) QUICK=$(if $(filter bench,$@),1) FULL=$(FULL) \
	  ICOUNT=$(ICOUNT) ICOUNT_CASES='$(ICOUNT_CASES)' CASES='$(CASES)' \
	  ALTERNATE=$(ALTERNATE) DATA='$(if $(DATA),$(abspath $(DATA)))' \
	  sh harness/reports/compare.sh $(BENCH_VARIANTS)

# make stall [STALL_SECONDS=5]: the socket-read stall alone, read=eof
# against read=framed with kept-alive clients over HTTP, into
# results/stall-<time>/ (load/, and stall.md: FINDINGS.md's row);
# make compare measures it too, best+read=eof being an ablation.
STALL_SECONDS ?= 5
.PHONY: stall
stall:
	@sh .ci/deps.sh bench
	@$(MAKE) --no-print-directory keys
	@for v in best best+read=eof; do \
	  $(MAKE) --no-print-directory VARIANT=$$v domlab domlab-http || exit 1; \
	done
	@out=results/stall-$$(date -u +%Y%m%dT%H%M%SZ) && \
	  BUILD_DIR=$(BUILD_DIR) sh harness/reports/load.sh $$out $(STALL_SECONDS) \
	    best best+read=eof && \
	  python3 harness/reports/loadreport.py --dir $$out --stall >$$out/stall.md && \
	  cat $$out/stall.md

# make scenarios: the original reports' two scenarios through `domlab
# serve` alone -- RAMPART-298's token store (tokens=list against hash,
# TOKEN_REQUESTS requests each with a fresh token) and SwA attachments
# over multipart/related HTTP (io=unbuffered against buffered) -- into
# results/scenarios-<time>/ (harness/reports/scenarios.sh); results/scenarios/
# is the committed one FINDINGS.md falls back to.
SCENARIO_VARIANTS := best best+tokens=list best+io=unbuffered
TOKEN_REQUESTS ?= 600
.PHONY: scenarios
scenarios:
	@sh .ci/deps.sh bench
	@$(MAKE) --no-print-directory keys
	@for v in $(SCENARIO_VARIANTS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v domlab domlab-http || exit 1; \
	done
	@BUILD_DIR=$(BUILD_DIR) TOKEN_REQUESTS=$(TOKEN_REQUESTS) sh harness/reports/scenarios.sh \
	  results/scenarios-$$(date -u +%Y%m%dT%H%M%SZ) $(SCENARIO_VARIANTS)

# make attack: each attack (slow connections, many large bodies,
# ambiguous framing, and the receiver attacks as requests) against
# `domlab serve` on every preset while `domlab load --rate` sends valid
# traffic, against the unattacked run: valid throughput, p99 and the
# server's peak RSS into results/attack-<time>/summary.md
# (harness/reports/attack.sh; results/attack/ is the committed run).
ATTACK_PRESETS := best xerces doom2010
.PHONY: attack
attack:
	@sh .ci/deps.sh bench
	@$(MAKE) --no-print-directory keys
	@for v in $(ATTACK_PRESETS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v domlab domlab-http || exit 1; \
	done
	@BUILD_DIR=$(BUILD_DIR) sh harness/reports/attack.sh \
	  results/attack-$$(date -u +%Y%m%dT%H%M%SZ) $(ATTACK_PRESETS)

# make reference: the run the documentation quotes, committed.  A whole
# compare, with instruction counts for the pipeline's ends and c14n (the
# stages the README's table quotes; counting every case of every variant
# under callgrind would take hours) and the floor; its summary, findings,
# plots, machine.txt and the raw files they are made from (each JSON
# gzipped, the counts, variants.txt, commands.tsv, the load scenario's
# JSON) replace results/reference/, so its reports can be made again from
# what is committed, and the README's results table is rewritten from its
# summary.json (results/README.md).  It refuses to start above a load of
# REFERENCE_LOAD (harness/reports/quiet.sh) unless FORCE=1, and machine.txt
# records the load it started at and whether it was forced.
REFERENCE_DIR := results/reference
REFERENCE_ICOUNT := ^((ref|pugi):)?(send|receive|c14n)/|^floor:
REFERENCE_LOAD := 1.0
FORCE ?=
reference:
	@mkdir -p $(BUILD_DIR) && FORCE=$(FORCE) sh harness/reports/quiet.sh $(REFERENCE_LOAD) >$(BUILD_DIR)/.reference-load
	@$(MAKE) --no-print-directory ICOUNT=1 FULL= CASES= ALTERNATE=0 \
	  ICOUNT_CASES='$(REFERENCE_ICOUNT)' compare
	@run=results/$$(readlink results/latest) && \
	  rm -rf $(REFERENCE_DIR) && mkdir -p $(REFERENCE_DIR)/load && \
	  cp $$run/summary.md $$run/summary.json $$run/FINDINGS.md \
	    $$run/machine.txt $$run/variants.txt $$run/commands.tsv \
	    $$run/*.icount.tsv $(REFERENCE_DIR)/ && \
	  for j in $$run/*.json; do gzip -9n <$$j >$(REFERENCE_DIR)/$${j##*/}.gz; done && \
	  rm -f $(REFERENCE_DIR)/summary.json.gz && \
	  cp $$run/load/*.json $$run/load/commands.tsv $(REFERENCE_DIR)/load/ && \
	  cp -R $$run/plots $(REFERENCE_DIR)/plots && \
	  sed 's/^load average: /load average when make reference started: /' \
	    $(BUILD_DIR)/.reference-load >>$(REFERENCE_DIR)/machine.txt && \
	  rm -f $(BUILD_DIR)/.reference-load
	@python3 harness/reports/readme_results.py --run $(REFERENCE_DIR) --readme README.md
	@echo "reference: $(REFERENCE_DIR)/ and README.md's results table; commit them together"

# make worst [WORST_VARIANTS=...]: each hostile shape at the size the
# acceptance criteria name beside a friendly input of that size, one
# process each, CPU and peak RSS, into results/worst-<date>/worst.md
# (harness/reports/worst.sh).  WORST_PIPE_LIMIT: the endless pipe's
# --max-input (default: domlab's own).
WORST_VARIANTS := doom2010 xerces best
WORST_PIPE_LIMIT ?=
worst: keys
	@for v in $(WORST_VARIANTS); do \
	  $(MAKE) -s --no-print-directory VARIANT=$$v domlab || exit 1; done
	@BUILD_DIR=$(BUILD_DIR) WORST_PIPE_LIMIT=$(WORST_PIPE_LIMIT) \
	  sh harness/reports/worst.sh $(WORST_VARIANTS)

# make oneshot [ONESHOT_VARIANTS=...]: one `domlab send` and one `domlab
# receive` per process at 2 KB and 200 KB, whole-process instructions under
# callgrind, for each variant and the reference peer (domlab-bench ref), into
# results/oneshot/ (committed) and docs/measuring.md's one-shot table
# (harness/reports/oneshot.sh); the first variant's 2 KB send is profiled.
ONESHOT_VARIANTS := best doom2010 xerces
.PHONY: oneshot
oneshot: keys
	@sh .ci/deps.sh bench && sh .ci/deps.sh profile
	@for v in $(ONESHOT_VARIANTS); do \
	  $(MAKE) -s --no-print-directory VARIANT=$$v domlab || exit 1; done
	@$(MAKE) -s --no-print-directory \
	  VARIANT=$(firstword $(ONESHOT_VARIANTS)) domlab-bench
	@BUILD_DIR=$(BUILD_DIR) sh harness/reports/oneshot.sh $(ONESHOT_VARIANTS)

# ---- install --------------------------------------------------------------------
# make install VARIANT=v PREFIX=dir [DESTDIR=stage]: the variant as a static
# library an application links through pkg-config (docs/api.md);
# make uninstall with the same VARIANT and PREFIX removes what it wrote.
# Everything is named after the pkg-config module, domlab-<variant> with
# each '=' made '-': `pkg-config 'm = 1'` and CMake's pkg_check_modules
# (even unspaced, 'm=1') read '=' in a module list as a version
# constraint; '+' is a name's, as in gtk+-3.0; no axis or choice has a '-'.
#   lib/libdomlab-<v>.a         dom/, wss/ and the variant's choices
#   lib/pkgconfig/domlab-<v>.pc
#   include/domlab-<v>/         the public headers, by their source paths
# so variants sit side by side under one prefix.  Static only: the
# application then runs the code the benchmark measured, and the headers'
# structs carry no ABI promise that a shared library's soname would make.
# The library needs libcrypto and libxml2 whatever the parser: dom_init
# sets libxml2 up, and the build axis's choice is in the archive for its
# name (dom_variant_axes) and calls it; domlab's own link drops that code
# with --gc-sections, which pkg-config cannot ask of an application.
PREFIX ?= /usr/local
DESTDIR ?=
PC_NAME := domlab-$(subst =,-,$(NAME))
PC_PREFIX := $(abspath $(PREFIX))
INSTALL_HEADERS := util/buf.h util/err.h util/alloc.h dom/dom.h \
  wss/wss.h wss/caps.h wss/crypto.h wss/c14n.h
LIB_INSTALL := $(OUT)/lib$(PC_NAME).a
INSTALL_ROOT := $(DESTDIR)$(PC_PREFIX)
INSTALL_INC := include/$(PC_NAME)
INSTALLED := lib/lib$(PC_NAME).a lib/pkgconfig/$(PC_NAME).pc \
  $(addprefix $(INSTALL_INC)/,$(INSTALL_HEADERS))

# One archive of both libraries' objects ('q': a member name two objects
# share, variants/attrs/hash.o and variants/tokens/hash.o, stays twice).
$(LIB_INSTALL): $(call obj,$(DOM_SRC) $(WSS_SRC))
	@echo "  AR  $@"
	@rm -f $@ && ar qc $@ $^ && ranlib $@

# The .pc file names the prefix, so install writes it for the PREFIX given.
PC_LINES := 'prefix=$(PC_PREFIX)' 'libdir=$${prefix}/lib' \
  'includedir=$${prefix}/$(INSTALL_INC)' 'variant=$(NAME)' '' \
  'Name: $(PC_NAME)' \
  'Description: domlab DOM and WS-Security pipeline, variant $(NAME)' \
  'Version: 0' 'Requires.private: libcrypto libxml-2.0' \
  'Libs: -L$${libdir} -l$(PC_NAME)' 'Libs.private: -lpthread' \
  'Cflags: -I$${includedir}'

.PHONY: install uninstall install-name
install: $(LIB_INSTALL)
	@install -d $(INSTALL_ROOT)/lib/pkgconfig
	@install -m 644 $(LIB_INSTALL) $(INSTALL_ROOT)/lib/
	@printf '%s\n' $(PC_LINES) >$(INSTALL_ROOT)/lib/pkgconfig/$(PC_NAME).pc
	@for h in $(INSTALL_HEADERS); do \
	  install -D -m 644 $$h $(INSTALL_ROOT)/$(INSTALL_INC)/$$h || exit 1; \
	done
	@echo "installed $(NAME) as pkg-config module $(PC_NAME) in $(INSTALL_ROOT)"

# The files install wrote, then the folders under include/ it made.
uninstall:
	@rm -f $(addprefix $(INSTALL_ROOT)/,$(INSTALLED))
	@for d in $(sort $(dir $(INSTALL_HEADERS))); do \
	  [ ! -d $(INSTALL_ROOT)/$(INSTALL_INC)/$$d ] || rmdir $(INSTALL_ROOT)/$(INSTALL_INC)/$$d || exit 1; \
	done
	@[ ! -d $(INSTALL_ROOT)/$(INSTALL_INC) ] || rmdir $(INSTALL_ROOT)/$(INSTALL_INC)
	@echo "uninstalled $(PC_NAME) from $(INSTALL_ROOT)"

# The pkg-config module a variant installs as, for scripts.
install-name:
	@echo $(PC_NAME)

# make profile VARIANT=x [DATASET=quakes-200k] [STAGE=send]
DATASET ?= quakes-200k
STAGE ?= send
profile:
	@sh .ci/deps.sh profile
	@BUILD_DIR=$(BUILD_DIR) sh harness/reports/profile.sh $(NAME) $(DATASET) $(STAGE)

# make profile-diff A=doom2010 B=best [STAGE=send] [DATASET=quakes-200k]:
# one case on two variants, one report of where they differ
# (harness/reports/profile_diff.sh, docs/measuring.md).
.PHONY: profile-diff
profile-diff:
	@sh .ci/deps.sh profile
	@[ -n '$(A)' ] && [ -n '$(B)' ] || { echo "make profile-diff needs A=<variant> B=<variant>" >&2; exit 1; }
	@BUILD_DIR=$(BUILD_DIR) sh harness/reports/profile_diff.sh '$(A)' '$(B)' $(STAGE) $(DATASET)

deps:
	@sh .ci/deps.sh

# The fuzz targets take their keys and clock as definitions (see
# FUZZ_BIN's rule), so they are checked with those defined.
LINT := cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability \
  --std=c11 --inline-suppr -I. -D_GNU_SOURCE --suppress=missingIncludeSystem
lint:
	$(LINT) -itests/fuzz util dom variants wss datasets harness tests examples
	$(LINT) -DFUZZ_KEYS_DIR='"keys"' -DFUZZ_NOW=0 tests/fuzz

clean:
	rm -rf $(BUILD_DIR)
