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
# results/fuzz/record.md from those two files.
# `make fuzz-smoke` (part of `make check`): each target from a fresh corpus
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
FUZZ_REF_OBJ := $(call obj,$(REFPEER_SRC) harness/cli/cli_io.c)
$(OUT)/fuzz/bin/receive_diff: $(FUZZ_REF_OBJ)
$(OUT)/fuzz/bin/receive_diff: FUZZ_LINK := $(FUZZ_REF_OBJ) $(XMLSEC_LIBS)

fuzz-build: $(FUZZ_BIN)

# What tests/fuzz/oss-fuzz/build.sh links a variant's targets from, built
# with the engine's flags.
.PHONY: fuzz-objs
fuzz-objs: $(LIB_DOM) $(LIB_WSS) $(LIB_DATA) $(call obj,$(REFPEER_SRC) harness/cli/cli_io.c)

# The seeds need a plain domlab of the same variant to make messages.
FUZZ_DIR = $(BUILD_DIR)/$(NAME)-fuzz/fuzz
fuzz-seeds:
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
	@$(MAKE) --no-print-directory -s VARIANT=$(NAME) FUZZ=1 fuzz-build
	@mkdir -p $(FUZZ_DIR)/logs $(FUZZ_RECORD)
	@for t in $(FUZZ_TARGETS); do \
	  sh tests/fuzz/replay.sh $(FUZZ_DIR) $(NAME) $$t $(FUZZ_RECORD)/corpus.tsv || exit 1; \
	done

fuzz-record:
	@python3 harness/reports/fuzz_record.py --record $(FUZZ_RECORD) --doc $(FUZZ_RECORD)/record.md

# fuzz-smoke adds its counts to the results `make check` totals.
fuzz fuzz-smoke:
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
	@sh tests/fuzz/oss-fuzz/check.sh
