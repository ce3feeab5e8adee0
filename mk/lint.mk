# ---- lint ---------------------------------------------------------------------
# make lint: cppcheck over the C, then the documentation checks: the axis
# tables in README.md, docs/dom.md and docs/design.md against the axis
# list (tests/doc_axes.py; `make axes-docs` rewrites them), and every path,
# make target and option README.md and docs/ name (tests/doc_check.py).
# The fuzz targets take their keys and clock as definitions (see
# FUZZ_BIN's rule), so they are checked with those defined.
LINT := cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability \
  --std=c11 --inline-suppr -I. -D_GNU_SOURCE --suppress=missingIncludeSystem
.PHONY: lint doc-check axes-docs axes-list
lint: $(call deps_ok,lint)
	$(LINT) -itests/fuzz util dom variants wss datasets harness tests examples
	$(LINT) -DFUZZ_KEYS_DIR='"keys"' -DFUZZ_NOW=0 tests/fuzz
	@$(MAKE) --no-print-directory doc-check

doc-check:
	@$(MAKE) -s --no-print-directory axes-list | python3 tests/doc_axes.py --check
	@python3 tests/doc_check.py

axes-docs:
	@$(MAKE) -s --no-print-directory axes-list | python3 tests/doc_axes.py --write

# The axis list as the scripts read it: the presets, then per axis its
# name, its make variable, the presets' choices and the others.
axes-list:
	@echo presets $(PRESETS)
	@$(foreach a,$(AXES),echo axis $(a) $(row_$(a));)
