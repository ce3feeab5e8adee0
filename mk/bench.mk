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
  best+emit=source best+emit=tree best+hash=fixed best+read=eof best+pass=staged \
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
# ALTERNATE=K: K rounds of each pair of variants FINDINGS.md and the
# ablation chart compare, the two one right after the other, for ratios
# free of drift between runs, with the interval one more round lands in
# (harness/reports/rounds.py).
# PAIRED_RUNS=K: the side-by-side run (best, ref and the floor in one
# process) in K processes; with 3 or more each of its ratios carries the
# interval one more process lands in (docs/measuring.md).  The rounds
# and the paired processes run spread across the variants' runs, so
# their intervals hold the machine's drift over the whole run.
# PAIRED_NOISE=X: stop the run after the first paired process whose
# cases' repetitions vary by a median coefficient of variation above X
# (0.03: 3%), unless FORCE=1; `make reference` sets it.
# PAIRED_RETRIES=N: instead, set such a process aside (noisy/,
# noisy.txt) and make it again after PAIRED_PAUSE seconds (300), up to N
# times in the run.  PAIRED_WAIT=M: make it again only once the noise
# check before `make reference` passes, run again every PAIRED_PAUSE
# seconds for up to M minutes; the run stops when it never does.
FULL ?=
ALTERNATE ?= 0
PAIRED_RUNS ?= 1
PAIRED_NOISE ?=
PAIRED_RETRIES ?= 0
PAIRED_PAUSE ?= 300
PAIRED_WAIT ?=
ICOUNT ?=
ICOUNT_CASES ?=
CASES ?=
DATA ?=
# make bench QUICK=1: the first look, within minutes: the presets and ref,
# send and receive alone, on the three quakes sizes and every DATA file
# (its name made a literal in the case pattern), without the ablations,
# the floor and the HTTP load; summary.md and the headline plot as ever.
QUICK ?=
QUICK_VARIANTS := best xerces doom2010
quick_data := $(if $(DATA),$(notdir $(if $(wildcard $(DATA)/.),$(wildcard $(DATA)/*),$(DATA))))
QUICK_CASES := ^(send|receive)/(quakes-(2k|200k|2m)$(subst $(space),,$(foreach f,$(quick_data),|$(subst .,[.],$(f)))))$$
ifeq ($(QUICK),1)
bench: BENCH_VARIANTS := $(QUICK_VARIANTS)
bench: CASES := $(QUICK_CASES)
endif
.PHONY: bench compare reference worst profile
compare bench: $(call deps_ok,bench)
	@$(MAKE) --no-print-directory keys
	@BUILD_DIR=$(BUILD_DIR) QUICK=$(if $(filter bench,$@),1) FULL=$(FULL) \
	  ICOUNT=$(ICOUNT) ICOUNT_CASES='$(ICOUNT_CASES)' CASES='$(CASES)' \
	  ALTERNATE=$(ALTERNATE) PAIRED_RUNS=$(PAIRED_RUNS) \
	  PAIRED_NOISE=$(PAIRED_NOISE) PAIRED_RETRIES=$(PAIRED_RETRIES) \
	  PAIRED_PAUSE=$(PAIRED_PAUSE) PAIRED_WAIT=$(PAIRED_WAIT) \
	  FORCE=$(FORCE) DATA='$(if $(DATA),$(abspath $(DATA)))' \
	  sh harness/reports/compare.sh $(BENCH_VARIANTS)

# make stall [STALL_SECONDS=5] [STALL_ROUNDS=3]: the socket-read stall
# alone, read=eof against read=framed with kept-alive clients over HTTP,
# in rounds (harness/reports/load.sh's LOAD_ROUNDS), into
# results/stall-<time>/ (load/, round.K/, and stall.md: FINDINGS.md's
# row); make compare measures it too, best+read=eof being an ablation.
STALL_SECONDS ?= 5
STALL_ROUNDS ?= 3
.PHONY: stall
stall: $(call deps_ok,bench)
	@$(MAKE) --no-print-directory keys
	@for v in best best+read=eof; do \
	  $(MAKE) --no-print-directory VARIANT=$$v domlab domlab-http || exit 1; \
	done
	@out=results/stall-$$(date -u +%Y%m%dT%H%M%SZ) && \
	  BUILD_DIR=$(BUILD_DIR) LOAD_ROUNDS=$(STALL_ROUNDS) \
	    sh harness/reports/load.sh $$out $(STALL_SECONDS) best best+read=eof && \
	  python3 harness/reports/loadreport.py --dir $$out --stall >$$out/stall.md && \
	  cat $$out/stall.md

# make scenarios: the original reports' two scenarios through `domlab
# serve` alone -- RAMPART-298's token store (tokens=list against hash,
# TOKEN_REQUESTS requests each with a fresh token) and SwA attachments
# over multipart/related HTTP (io=unbuffered against buffered) -- into
# results/scenarios-<time>/ (harness/reports/scenarios.sh), in
# SCENARIO_ROUNDS rounds so that each ratio has the interval one more
# round lands in; results/scenarios/ is the committed one FINDINGS.md
# falls back to.
SCENARIO_VARIANTS := best best+tokens=list best+io=unbuffered
TOKEN_REQUESTS ?= 600
SCENARIO_ROUNDS ?= 5
.PHONY: scenarios
scenarios: $(call deps_ok,bench)
	@$(MAKE) --no-print-directory keys
	@for v in $(SCENARIO_VARIANTS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v domlab domlab-http || exit 1; \
	done
	@BUILD_DIR=$(BUILD_DIR) TOKEN_REQUESTS=$(TOKEN_REQUESTS) \
	  SCENARIO_ROUNDS=$(SCENARIO_ROUNDS) sh harness/reports/scenarios.sh \
	  results/scenarios-$$(date -u +%Y%m%dT%H%M%SZ) $(SCENARIO_VARIANTS)

# make attack: each attack (slow connections, many large bodies,
# ambiguous framing, and the receiver attacks as requests) against
# `domlab serve` on every preset while `domlab load --rate` sends valid
# traffic, against the unattacked run: valid throughput, p99 and the
# server's peak RSS into results/attack-<time>/summary.md
# (harness/reports/attack.sh; results/attack/ is the committed run), in
# ATTACK_ROUNDS rounds (each ratio then with the interval one more round
# lands in; about 5 minutes a round).
ATTACK_PRESETS := best xerces doom2010
ATTACK_ROUNDS ?= 3
.PHONY: attack
attack: $(call deps_ok,bench)
	@$(MAKE) --no-print-directory keys
	@for v in $(ATTACK_PRESETS); do \
	  $(MAKE) --no-print-directory VARIANT=$$v domlab domlab-http || exit 1; \
	done
	@BUILD_DIR=$(BUILD_DIR) ATTACK_ROUNDS=$(ATTACK_ROUNDS) \
	  sh harness/reports/attack.sh \
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
# REFERENCE_LOAD (harness/reports/quiet.sh), or when the paired process
# (harness/reports/paired.sh's cases, without the 2 MB message) is
# noisier than REFERENCE_NOISE (harness/reports/preflight.py), unless
# FORCE=1, and machine.txt records the load it started at, that
# process's noise and whether it was forced.  REFERENCE_WAIT=M checks
# again every PAIRED_PAUSE seconds (300), for up to M minutes, before it
# refuses (harness/reports/until_quiet.sh), so that the run can be left
# to start in the next quiet window; machine.txt records how long each
# check waited.  A host can turn noisy
# later: the run stops after the first paired process noisier than
# REFERENCE_NOISE (compare.sh's PAIRED_NOISE), unless FORCE=1, once
# REFERENCE_RETRIES such processes have been set aside and made again
# (noisy.txt and noisy/ are published with the run, and machine.txt
# counts them); each is made again once the noise check passes, which
# runs again every PAIRED_PAUSE seconds for up to REFERENCE_RETRY_WAIT
# minutes (compare.sh's PAIRED_WAIT), so that a burst longer than the
# pause does not spend the retries.  Once
# measured, the run is published only when it is steady
# (harness/reports/steady.py): every interval of the paired run's ratios
# at most REFERENCE_SPREAD times as high as it is low, no paired process
# whose cases' repetitions varied by a median coefficient of variation
# above REFERENCE_NOISE, and no number under its floor, unless FORCE=1;
# a refused run stays in results/.  The
# side-by-side run goes REFERENCE_PAIRED_RUNS times, and the pairs
# FINDINGS.md compares REFERENCE_ROUNDS rounds (ALTERNATE), so that each
# ratio the README and FINDINGS.md quote has the interval a rerun lands
# in.
REFERENCE_DIR := results/reference
REFERENCE_ICOUNT := ^((ref|gsoap|pugi):)?(send|receive|c14n)/|^floor:
REFERENCE_LOAD := 1.0
REFERENCE_SPREAD := 1.35
REFERENCE_NOISE := 0.03
REFERENCE_PAIRED_RUNS := 5
REFERENCE_ROUNDS := 5
REFERENCE_RETRIES := 3
REFERENCE_RETRY_WAIT := 30
REFERENCE_WAIT ?= 0
FORCE ?=
reference: $(call deps_ok,bench)
	@mkdir -p $(BUILD_DIR) && FORCE=$(FORCE) PAUSE=$(PAIRED_PAUSE) \
	  sh harness/reports/until_quiet.sh $(REFERENCE_WAIT) load \
	  sh harness/reports/quiet.sh $(REFERENCE_LOAD) \
	  >$(BUILD_DIR)/.reference-load
	@$(MAKE) --no-print-directory keys
	@$(MAKE) --no-print-directory VARIANT=best domlab-bench
	@BUILD_DIR=$(BUILD_DIR) KEYS_DIR=$(KEYS_DIR) FORCE=$(FORCE) \
	  PAUSE=$(PAIRED_PAUSE) sh harness/reports/until_quiet.sh $(REFERENCE_WAIT) noise \
	  sh harness/reports/preflight.sh $(REFERENCE_NOISE) \
	  >>$(BUILD_DIR)/.reference-load
	@$(MAKE) --no-print-directory ICOUNT=1 FULL= CASES= \
	  ALTERNATE=$(REFERENCE_ROUNDS) PAIRED_RUNS=$(REFERENCE_PAIRED_RUNS) \
	  PAIRED_NOISE=$(REFERENCE_NOISE) PAIRED_RETRIES=$(REFERENCE_RETRIES) \
	  PAIRED_WAIT=$(REFERENCE_RETRY_WAIT) \
	  ICOUNT_CASES='$(REFERENCE_ICOUNT)' compare
	@run=results/$$(readlink results/latest) && \
	  FORCE=$(FORCE) python3 harness/reports/steady.py --run $$run \
	    --limit $(REFERENCE_SPREAD) --noise $(REFERENCE_NOISE) \
	    >$(BUILD_DIR)/.reference-steady && \
	  rm -rf $(REFERENCE_DIR) && mkdir -p $(REFERENCE_DIR)/load && \
	  cp $$run/summary.md $$run/summary.json $$run/FINDINGS.md \
	    $$run/machine.txt $$run/variants.txt $$run/commands.tsv \
	    $$run/*.icount.tsv $(REFERENCE_DIR)/ && \
	  for j in $$run/*.json; do gzip -9n <$$j >$(REFERENCE_DIR)/$${j##*/}.gz; done && \
	  rm -f $(REFERENCE_DIR)/summary.json.gz && \
	  cp $$run/load/*.json $$run/load/commands.tsv $(REFERENCE_DIR)/load/ && \
	  cp -R $$run/plots $(REFERENCE_DIR)/plots && \
	  cp -R $$run/alternate $(REFERENCE_DIR)/alternate && \
	  rm -f $(REFERENCE_DIR)/alternate/*/*.log && \
	  find $(REFERENCE_DIR)/alternate -name '*.json' -exec gzip -9n {} + && \
	  set_aside=0 && if [ -f $$run/noisy.txt ]; then \
	    set_aside=$$(grep -c '; set aside as ' $$run/noisy.txt || true) && \
	    cp $$run/noisy.txt $(REFERENCE_DIR)/ && mkdir $(REFERENCE_DIR)/noisy && \
	    for j in $$run/noisy/*.json; do gzip -9n <$$j >$(REFERENCE_DIR)/noisy/$${j##*/}.gz; done; \
	  fi && \
	  echo "paired processes set aside as noisy and made again: $$set_aside" \
	    >>$(REFERENCE_DIR)/machine.txt && \
	  sed 's/^load average: /load average when make reference started: /' \
	    $(BUILD_DIR)/.reference-load >>$(REFERENCE_DIR)/machine.txt && \
	  cat $(BUILD_DIR)/.reference-steady >>$(REFERENCE_DIR)/machine.txt && \
	  rm -f $(BUILD_DIR)/.reference-load $(BUILD_DIR)/.reference-steady
	@python3 harness/reports/readme_results.py --run $(REFERENCE_DIR) --readme README.md
	@echo "reference: $(REFERENCE_DIR)/ and README.md's results table; commit them together"

# make recheck [RUN=results/reference] [KEEP=1]: RUN's side-by-side
# command once more (best built from this checkout) and, where RUN has
# rounds, one more round of each of their pairs (the variants built too),
# each ratio set against the interval RUN gives it; exits 1 when one
# lands outside (harness/reports/recheck.py).  KEEP=1 keeps what it
# measured in RUN/rechecks/ (only from a checkout of the code RUN
# measured, and only when its process was no noisier than
# REFERENCE_NOISE, unless FORCE=1) and makes RUN's reports again
# (harness/reports/remake.sh),
# the README's results table too when RUN is the reference, so that
# their intervals count it, landed inside or not.
RUN ?= $(REFERENCE_DIR)
KEEP ?=
.PHONY: recheck
recheck: $(call deps_ok,bench)
	@$(MAKE) --no-print-directory keys
	@$(MAKE) --no-print-directory VARIANT=best domlab-bench
	@for v in $$(python3 harness/reports/rounds.py --dir $(RUN) --variants); do \
	  $(MAKE) --no-print-directory VARIANT=$$v domlab-bench || exit 1; done
	@status=0; FORCE=$(FORCE) python3 harness/reports/recheck.py --run $(RUN) \
	  $(if $(KEEP),--keep --noise $(REFERENCE_NOISE)) || status=$$?; \
	if [ -n "$(KEEP)" ] && [ $$status -lt 2 ]; then \
	  sh harness/reports/remake.sh $(RUN) \
	    $(if $(filter $(REFERENCE_DIR),$(RUN:%/=%)),README.md) || exit 2; \
	fi; exit $$status

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

# make oracle [ORACLE_REPS=30]: the oracle/* cases (what an oracle
# attacker sends, refused), repeated and interleaved in one process per
# preset, into results/oracle/ (committed) with the ratio table oracle.md
# (harness/reports/oracle.sh).
ORACLE_VARIANTS := best xerces doom2010
.PHONY: oracle
oracle: keys $(call deps_ok,bench)
	@for v in $(ORACLE_VARIANTS); do \
	  $(MAKE) -s --no-print-directory VARIANT=$$v domlab-bench || exit 1; done
	@BUILD_DIR=$(BUILD_DIR) sh harness/reports/oracle.sh $(ORACLE_VARIANTS)

# make oneshot [ONESHOT_VARIANTS=...]: one `domlab send` and one `domlab
# receive` per process at 2 KB and 200 KB, whole-process instructions under
# callgrind, for each variant and the reference peer (domlab-bench ref), into
# results/oneshot/ (committed) and docs/measuring.md's one-shot table
# (harness/reports/oneshot.sh); the first variant's 2 KB send is profiled.
ONESHOT_VARIANTS := best doom2010 xerces
.PHONY: oneshot
oneshot: keys $(call deps_ok,bench) $(call deps_ok,profile)
	@for v in $(ONESHOT_VARIANTS); do \
	  $(MAKE) -s --no-print-directory VARIANT=$$v domlab || exit 1; done
	@$(MAKE) -s --no-print-directory \
	  VARIANT=$(firstword $(ONESHOT_VARIANTS)) domlab-bench
	@BUILD_DIR=$(BUILD_DIR) sh harness/reports/oneshot.sh $(ONESHOT_VARIANTS)

# make profile VARIANT=x [DATASET=quakes-200k] [STAGE=send]
DATASET ?= quakes-200k
STAGE ?= send
profile: $(call deps_ok,profile)
	@BUILD_DIR=$(BUILD_DIR) sh harness/reports/profile.sh $(NAME) $(DATASET) $(STAGE)

# make ab BASE=rev [VARIANT=best] [CASES=RE] [CONTROL=RE] [ROUNDS=10]
# [REPS=5] [MIN_TIME=0.1] [ICOUNT=1]: the variant at BASE against the working tree, in alternating
# processes with a control (harness/reports/ab.sh, docs/measuring.md).
.PHONY: ab
ab: keys $(call deps_ok,bench) $(if $(filter 1,$(ICOUNT)),$(call deps_ok,profile))
	@[ -n '$(BASE)' ] || { echo "make ab needs BASE=<commit>" >&2; exit 1; }
	@BUILD_DIR=$(BUILD_DIR) VARIANT='$(VARIANT)' ICOUNT='$(ICOUNT)' \
	  $(if $(CASES),CASES='$(CASES)') \
	  $(if $(ROUNDS),ROUNDS='$(ROUNDS)') $(if $(REPS),REPS='$(REPS)') \
	  $(if $(MIN_TIME),MIN_TIME='$(MIN_TIME)') \
	  $(if $(CONTROL),CONTROL='$(CONTROL)') \
	  sh harness/reports/ab.sh '$(BASE)'

# make profile-diff A=doom2010 B=best [STAGE=send] [DATASET=quakes-200k]:
# one case on two variants, one report of where they differ
# (harness/reports/profile_diff.sh, docs/measuring.md).
.PHONY: profile-diff
profile-diff: $(call deps_ok,profile)
	@[ -n '$(A)' ] && [ -n '$(B)' ] || { echo "make profile-diff needs A=<variant> B=<variant>" >&2; exit 1; }
	@BUILD_DIR=$(BUILD_DIR) sh harness/reports/profile_diff.sh '$(A)' '$(B)' $(STAGE) $(DATASET)

