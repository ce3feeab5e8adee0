// bench.cc - the one C++ file: registers the C case table (harness/bench/cases.c)
// with Google Benchmark, times each case, and reports what it allocates
// through util/alloc.h's counters.
//
// Not for: case logic (harness/bench/cases.c) or options (harness/bench/cmd_bench.c).
// Nothing here may let a C++ exception reach the C caller.
//
// Every case gets, before timing, one cold call (its first in the
// process; its CPU time is reported as cold_ns) and one warm call measured
// with util/alloc.h (a case that asks is reset after each call, untimed),
// whose allocs, heap_allocs, alloc_bytes and peak_bytes are user counters
// so they survive into the repetition aggregates.  A threaded case
// (harness/bench/cases_threads.c) does that on each thread, for a context of the
// thread's own, is timed by the wall clock, and reports the counters
// averaged over its threads.  The MemoryManager feeds Google Benchmark's
// own memory fields as well, but 1.7.1 drops them from aggregates and
// reports max_bytes_used, total_allocated_bytes and net_heap_growth through
// a dangling pointer (google/benchmark#1939).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

// The project's C headers carry no linkage blocks of their own.
extern "C" {
#include "datasets/gen.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/timeline.h"
}
#include "harness/bench/bench.h"

namespace {

class AllocCounters : public benchmark::MemoryManager {
 public:
  void Start() override {
    lab_mem_reset();
    start_live_ = lab_mem_get().live;
  }

  void Stop(Result& r) override {
    lab_mem_stats m = lab_mem_get();

    r.num_allocs = static_cast<int64_t>(m.allocs);
    r.max_bytes_used = m.peak - start_live_;
    r.total_allocated_bytes = static_cast<int64_t>(m.bytes);
    r.net_heap_growth = m.live - start_live_;
  }

  // 1.7.1 still declares the pointer form pure virtual.
  void Stop(Result* r) override { Stop(*r); }

 private:
  int64_t start_live_ = 0;
};

// A step a case's runs mark (util/timeline.h): when it ended, summed over
// the runs that marked it.
struct Step {
  const char* what = nullptr;  // the step's name, a marker's literal
  double ns = 0;
  double runs = 0;
};

// One thread's share of a job: threaded cases (cases_threads.c) have one
// per thread index, the others only the first.
struct Slot {
  void* ctx = nullptr;
  bool prepared = false;
  bool failed = false;
  lab_err err{};
  double cold_ns = 0;
  lab_mem_stats mem{};  // one warm call; peak is above the heap held before
  lab_case_info info{};
  std::vector<Step> steps;  // this repetition's, with info.timeline
};

struct Job {
  const lab_bench_job* job = nullptr;
  std::string name;
  bool threaded = false;
  std::vector<Slot> slots;

  Job() = default;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  ~Job() {
    for (Slot& s : slots)
      if (s.ctx != nullptr) job->c->teardown(s.ctx);
  }
};

// CPU time, like Google Benchmark's own: other processes on the machine
// delay a call without adding to it.  Page faults are counted.
int ThreadCpuNs(double* ns, lab_err* err) {
  timespec t;

  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
    return lab_fail(err, LAB_EIO, "no thread CPU clock");
  *ns = static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
  return LAB_OK;
}

// Marks the slot failed; s.err already says why.
bool Fail(Slot& s) {
  s.failed = true;
  return false;
}

// Puts back what the last run left, for cases that ask (info.reset).
bool Reset(Slot& s) {
  if (s.info.reset != nullptr && s.info.reset(s.ctx, &s.err) != LAB_OK)
    return Fail(s);
  return true;
}

// Runs on the thread that owns the slot, so the counters read are its own.
bool Prepare(const lab_case* c, const lab_case_data* data, Slot& s) {
  s.prepared = true;
  lab_err_clear(&s.err);
  if (c->setup(&s.ctx, data, &s.err) != LAB_OK) return Fail(s);
  double t0 = 0, t1 = 0;
  if (ThreadCpuNs(&t0, &s.err) != LAB_OK || c->run(s.ctx, &s.err) != LAB_OK ||
      ThreadCpuNs(&t1, &s.err) != LAB_OK)
    return Fail(s);
  s.cold_ns = t1 - t0;
  if (c->info != nullptr && c->info(s.ctx, &s.info, &s.err) != LAB_OK)
    return Fail(s);
  if (!Reset(s)) return false;

  lab_mem_reset();
  int64_t live = lab_mem_get().live;
  if (c->run(s.ctx, &s.err) != LAB_OK) return Fail(s);
  s.mem = lab_mem_get();
  s.mem.peak -= live;
  return Reset(s);
}

// Adds the marks of the run just made to s.steps; the few steps of a
// message are found by name (two files may mark the same step, each with
// a literal of its own).
void Tally(Slot& s) {
  const char* what;
  uint64_t ns;

  for (size_t i = 0; lab_timeline_get(s.info.timeline, i, &what, &ns); i++) {
    auto named = [what](const Step& x) {
      return std::strcmp(x.what, what) == 0;
    };
    auto st = std::find_if(s.steps.begin(), s.steps.end(), named);
    if (st == s.steps.end()) st = s.steps.insert(st, Step{what, 0, 0});
    st->ns += static_cast<double>(ns);
    st->runs += 1;
  }
}

// Threads report the same counters; each value is averaged over them.
void Report(benchmark::State& state, const Job& j, const Slot& s) {
  auto avg = [](double v) {
    return benchmark::Counter(v, benchmark::Counter::kAvgThreads);
  };

  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(j.job->data.len));
  state.counters["cold_ns"] = avg(s.cold_ns);
  state.counters["allocs"] = avg(static_cast<double>(s.mem.allocs));
  state.counters["heap_allocs"] = avg(static_cast<double>(s.mem.heap_allocs));
  state.counters["alloc_bytes"] = avg(static_cast<double>(s.mem.bytes));
  state.counters["peak_bytes"] = avg(static_cast<double>(s.mem.peak));
  // Scenario cases: per-request CPU time in us, the iteration's / R.
  if (s.info.requests > 0) {
    state.counters["requests"] = avg(static_cast<double>(s.info.requests));
    state.counters["us_per_request"] = benchmark::Counter(
        static_cast<double>(s.info.requests) / 1e6,
        benchmark::Counter::kIsIterationInvariantRate |
            benchmark::Counter::kInvert);
  }
  if (s.info.elements > 0) {
    state.counters["elements"] = avg(static_cast<double>(s.info.elements));
    state.counters["attributes"] =
        avg(static_cast<double>(s.info.attributes));
    state.counters["bytes_per_element"] =
        avg(static_cast<double>(s.info.tree_bytes) /
            static_cast<double>(s.info.elements));
  }
  // When each step ended, in us from the run's start, averaged over the
  // runs that took it.
  for (const Step& st : s.steps)
    state.counters[std::string("t_") + st.what] = avg(st.ns / st.runs / 1e3);
}

void Run(benchmark::State& state, Job* j) {
  Slot& s = j->slots[0];

  if (!s.prepared) Prepare(j->job->c, &j->job->data, s);
  if (s.failed) {
    state.SkipWithError(s.err.msg);
    return;
  }
  // Each run starts where the last one's reset left it; the reset is
  // paused out of the time, though a pause itself costs a little inside it.
  // A timeline costs a clock read per step, and its tally a look at each.
  s.steps.clear();
  for (auto _ : state) {
    if (s.info.timeline != nullptr) lab_timeline_start(s.info.timeline);
    bool ok = j->job->c->run(s.ctx, &s.err) == LAB_OK;
    if (ok && s.info.timeline != nullptr) Tally(s);
    if (ok && s.info.reset != nullptr) {
      state.PauseTiming();
      ok = Reset(s);
      state.ResumeTiming();
    }
    if (!ok) {
      s.failed = true;
      state.SkipWithError(s.err.msg);
      break;
    }
  }
  Report(state, *j, s);
}

// Every thread uses the slot of its index and nothing else of the job.
// Google Benchmark holds the threads at a barrier where the timing starts
// and another where it stops, so a thread that fails still goes through
// KeepRunning() (which, after SkipWithError, ends at once) rather than
// return early and leave the others waiting.
void RunThreaded(benchmark::State& state, Job* j) {
  Slot& s = j->slots[static_cast<size_t>(state.thread_index())];

  if (!s.prepared) Prepare(j->job->c, &j->job->data, s);
  if (s.failed) state.SkipWithError(s.err.msg);
  while (state.KeepRunning()) {
    if (j->job->c->run(s.ctx, &s.err) != LAB_OK) {
      s.failed = true;
      state.SkipWithError(s.err.msg);
    }
  }
  if (!s.failed) Report(state, *j, s);
}

int RunAll(Job* jobs, size_t njobs, int argc, char** argv, lab_err* err) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return lab_fail(err, LAB_EUSAGE, "unrecognized Google Benchmark flag");
  for (size_t i = 0; i < njobs; i++) {
    if (!jobs[i].threaded) {
      benchmark::internal::Benchmark* b =
          benchmark::RegisterBenchmark(jobs[i].name.c_str(), Run, &jobs[i])
              ->Unit(benchmark::kMicrosecond);
      // One message on two cores: the wall clock is what it buys, the
      // CPU of every thread what it costs.
      if (lab_case_pipelined(jobs[i].job->c))
        b->UseRealTime()->MeasureProcessCPUTime();
      continue;
    }
    benchmark::RegisterBenchmark(jobs[i].name.c_str(), RunThreaded, &jobs[i])
        ->Unit(benchmark::kMicrosecond)
        ->ThreadRange(1, static_cast<int>(jobs[i].slots.size()))
        ->UseRealTime();
  }
  AllocCounters counters;
  benchmark::RegisterMemoryManager(&counters);
  size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::RegisterMemoryManager(nullptr);
  if (ran == 0)
    return lab_fail(err, LAB_EUSAGE, "no benchmark matches the filter");
  for (size_t i = 0; i < njobs; i++) {
    const std::vector<Slot>& slots = jobs[i].slots;
    auto s = std::find_if(slots.begin(), slots.end(),
                          [](const Slot& x) { return x.failed; });
    if (s != slots.end())
      return lab_fail(err, s->err.code, "%s: %s", jobs[i].name.c_str(),
                      s->err.msg);
  }
  return LAB_OK;
}

}  // namespace

extern "C" int lab_bench_run(const lab_bench_job* jobs, size_t njobs,
                             const lab_bench_kv* context, size_t ncontext,
                             int argc, char** argv, lab_err* err) {
  int rc;

  try {
    std::unique_ptr<Job[]> js(new Job[njobs]);

    for (size_t i = 0; i < njobs; i++) {
      js[i].job = &jobs[i];
      js[i].name = std::string(jobs[i].c->stage) + "/" + jobs[i].data.name;
      js[i].threaded = lab_case_threaded(jobs[i].c) != 0;
      js[i].slots.resize(
          js[i].threaded ? static_cast<size_t>(lab_bench_max_threads()) : 1);
    }
    for (size_t i = 0; i < ncontext; i++)
      benchmark::AddCustomContext(context[i].key, context[i].value);
    rc = RunAll(js.get(), njobs, argc, argv, err);
  } catch (const std::bad_alloc&) {
    rc = lab_fail(err, LAB_ENOMEM, "out of memory");
  } catch (const std::exception& e) {
    rc = lab_fail(err, LAB_EUSAGE, "Google Benchmark: %s", e.what());
  }
  benchmark::Shutdown();
  return rc;
}
