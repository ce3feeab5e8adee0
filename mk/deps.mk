# ---- packages -------------------------------------------------------------------
# The one place .ci/deps.sh runs: $(DEPS_DIR)/<set>.ok is made by checking
# the Debian packages of that set (.ci/deps.sh says what each holds); the
# missing ones are installed when make runs as root, otherwise the one
# apt-get line is printed and make stops.  A target that needs a set names
# $(call deps_ok,<set>) as a prerequisite.  The build set is an included
# makefile, so every goal that builds checks it first, plain `make`
# included: a fresh machine stops at the package line instead of at a
# missing header, and after an install as root make starts again and
# reads the packages' pkg-config flags anew.  The files sit in the build
# folder, so a check is made once per folder (make clean forgets them).
DEPS_DIR := $(BUILD_DIR)/deps
deps_ok = $(DEPS_DIR)/$(1).ok
$(DEPS_DIR)/%.ok:
	@sh .ci/deps.sh $*
	@mkdir -p $(@D) && touch $@

# Goals that build nothing need no packages; DEPS=none skips the check
# where the packages come some other way (tests/fuzz/oss-fuzz/build.sh,
# in an image that installs its own).
NO_DEPS_GOALS := clean deps variant-name variant-axes install-name axes-list \
  lint doc-check axes-docs fuzz-list
ifneq ($(DEPS),none)
ifneq ($(filter-out $(NO_DEPS_GOALS) $(DEPS_DIR)/%,$(or $(MAKECMDGOALS),all)),)
include $(call deps_ok,build)
endif
endif

# Every package development uses, checked again each time.
.PHONY: deps
deps:
	@rm -f $(call deps_ok,all)
	@$(MAKE) --no-print-directory $(call deps_ok,all)
