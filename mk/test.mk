# ---- tests ---------------------------------------------------------------------
# `make test`, the fast loop: every suite on the three presets, then the C
# tests (test-libdomlab) alone on TEST_UNIT_VARIANTS, which build the
# choices no preset makes, so every choice of every axis is compiled and
# unit-tested once.  `make check`, the full matrix: every suite on each of
# TEST_VARIANTS, the threads test under ThreadSanitizer and the fuzz smoke
# run (CI's, .ci/run).  With VARIANT (or an axis variable) both run every
# suite on that one variant.  Each suite prints "N passed, N failed", and
# tests/total.sh sums them into the last line.
#
# TEST_VARIANTS: the presets, what it takes to build every choice of every
# axis once, and each preset with the other parser (and so hash=fixed
# under insitu, hash=keyed under libxml2).
TEST_VARIANTS := doom2010 xerces best \
  best+attrs=hash+userdata=pernode+attrlist=copy+keys=reload+read=eof \
  doom2010+parser=insitu xerces+parser=insitu best+emit=source \
  best+build=direct+parser=libxml2 best+build=direct
# The choices the presets leave out: attrs=hash, emit=source, read=eof.
TEST_UNIT_VARIANTS := best+attrs=hash+emit=source+read=eof
.PHONY: test check test-one test-unit test-threads keys
ifeq ($(origin VARIANT)$(axis_vars),undefined)
test:
	@rm -f $(BUILD_DIR)/test-results.txt
	@for v in $(PRESETS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v test-one || exit 1; \
	done
	@for v in $(TEST_UNIT_VARIANTS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v test-unit || exit 1; \
	done
	@sh tests/total.sh $(BUILD_DIR)/test-results.txt

check:
	@rm -f $(BUILD_DIR)/test-results.txt
	@for v in $(TEST_VARIANTS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v test-one || exit 1; \
	done
	@$(if $(SANITIZE)$(TSAN),,$(MAKE) --no-print-directory VARIANT=$(TSAN_VARIANT) TSAN=1 test-threads)
	@$(MAKE) --no-print-directory fuzz-smoke
	@sh tests/total.sh $(BUILD_DIR)/test-results.txt
else
test check:
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
SHELL_SUITES := cli interop wss4j refpeer gsoap harness attach hostile install http check_plain

# test-libdomlab runs twice: the second time held to SSE2 (util/cpu.h), so
# an AVX2 machine tests both vector paths.
TEST_UNIT = $(TEST_ENV) $(RUN_SUITE) test-libdomlab $(OUT)/test-libdomlab tests/data && \
  $(TEST_ENV) DOMLAB_SIMD=sse2 $(RUN_SUITE) test-libdomlab-sse2 $(OUT)/test-libdomlab tests/data

test-one: all keys
	@mkdir -p $(BUILD_DIR)
	@echo "== variant $(NAME)$(SUFFIX)"
	@$(TEST_UNIT)
	@for s in $(SHELL_SUITES); do \
	  $(TEST_ENV) $(RUN_SUITE) $$s.sh sh tests/$$s.sh $(OUT)/domlab $(OUT)/domlab-bench; \
	done

test-unit: $(OUT)/test-libdomlab keys
	@mkdir -p $(BUILD_DIR)
	@echo "== variant $(NAME)$(SUFFIX): test-libdomlab"
	@$(TEST_UNIT)

# The threads test under ThreadSanitizer, on one variant: the one whose
# keys cache is shared (keys=cached); `make check TSAN=1` runs everything
# under it.  test-libdomlab alone is built, so it costs well under a minute.
TSAN_VARIANT := best
test-threads: $(OUT)/test-libdomlab keys
	@echo "== variant $(NAME)$(SUFFIX): threads"
	@$(TEST_ENV) $(RUN_SUITE) test-libdomlab-threads $(OUT)/test-libdomlab tests/data threads_

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
memcheck: $(call deps_ok,memcheck)
	@rm -f $(BUILD_DIR)/memcheck-results.txt
	@for v in $(PRESETS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v \
	    MEMCHECK_RESULTS=$(BUILD_DIR)/memcheck-results.txt memcheck-one || exit 1; \
	done
	@sh tests/total.sh $(BUILD_DIR)/memcheck-results.txt
else
memcheck: $(call deps_ok,memcheck)
	@rm -f $(MEMCHECK_RESULTS)
	@$(MAKE) --no-print-directory memcheck-one
	@sh tests/total.sh $(MEMCHECK_RESULTS)
endif

memcheck-one: all keys
	@echo "== memcheck $(NAME)$(SUFFIX)"
	@$(TEST_ENV) sh tests/memcheck.sh $(OUT) $(MEMCHECK_RESULTS) \
	  $(SHELL_SUITES)
