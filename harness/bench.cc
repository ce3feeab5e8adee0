// bench.cc - the one C++ file: registers the C case table (harness/cases.c)
// with Google Benchmark, times each case, and reports what it allocates
// through dom/alloc.h's counters.
//
// Not for: case logic (harness/cases.c) or options (harness/cmd_bench.c).
// Nothing here may let a C++ exception reach the C caller.
//
// Every case gets, before timing, one cold call (its first in the
// process; its CPU time is reported as cold_ns) and one warm call measured
// with dom/alloc.h (a case that asks is reset after each call, untimed),
// whose allocs, heap_allocs, alloc_bytes and peak_bytes are user counters so they
// survive into the repetition aggregates.  The MemoryManager feeds Google
// Benchmark's own memory fields as well, but 1.7.1 drops them from
// aggregates and reports max_bytes_used, total_allocated_bytes and
// net_heap_growth through a dangling pointer (google/benchmark#1939).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <ctime>
#include <exception>
#include <memory>
#include <new>
#include <string>

// The project's C headers carry no linkage blocks of their own.
extern "C" {
#include "datasets/gen.h"
#include "dom/alloc.h"
#include "dom/err.h"
}
#include "harness/bench.h"

namespace {

class AllocCounters : public benchmark::MemoryManager {
 public:
  void Start() override {
    dom_mem_reset();
    start_live_ = dom_mem_get().live;
  }

  void Stop(Result& r) override {
    dom_mem_stats m = dom_mem_get();

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

struct Job {
  const lab_bench_job* job = nullptr;
  std::string name;
  void* ctx = nullptr;
  bool prepared = false;
  bool failed = false;
  lab_err err{};
  double cold_ns = 0;
  dom_mem_stats mem{};  // one warm call; peak is above the heap held before
  lab_case_info info{};

  Job() = default;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  ~Job() {
    if (ctx != nullptr) job->c->teardown(ctx);
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

// Marks the job failed; j.err already says why.
bool Fail(Job& j) {
  j.failed = true;
  return false;
}

// Puts back what the last run left, for cases that ask (info.reset).
bool Reset(Job& j) {
  if (j.info.reset != nullptr && j.info.reset(j.ctx, &j.err) != LAB_OK)
    return Fail(j);
  return true;
}

bool Prepare(Job& j) {
  const lab_case* c = j.job->c;

  j.prepared = true;
  lab_err_clear(&j.err);
  if (c->setup(&j.ctx, &j.job->data, &j.err) != LAB_OK) return Fail(j);
  double t0 = 0, t1 = 0;
  if (ThreadCpuNs(&t0, &j.err) != LAB_OK || c->run(j.ctx, &j.err) != LAB_OK ||
      ThreadCpuNs(&t1, &j.err) != LAB_OK)
    return Fail(j);
  j.cold_ns = t1 - t0;
  if (c->info != nullptr && c->info(j.ctx, &j.info, &j.err) != LAB_OK)
    return Fail(j);
  if (!Reset(j)) return false;

  dom_mem_reset();
  int64_t live = dom_mem_get().live;
  if (c->run(j.ctx, &j.err) != LAB_OK) return Fail(j);
  j.mem = dom_mem_get();
  j.mem.peak -= live;
  return Reset(j);
}

void Run(benchmark::State& state, Job* j) {
  if (!j->prepared) Prepare(*j);
  if (j->failed) {
    state.SkipWithError(j->err.msg);
    return;
  }
  // Each run starts where the last one's reset left it; the reset is
  // paused out of the time, though a pause itself costs a little inside it.
  for (auto _ : state) {
    bool ok = j->job->c->run(j->ctx, &j->err) == LAB_OK;
    if (ok && j->info.reset != nullptr) {
      state.PauseTiming();
      ok = Reset(*j);
      state.ResumeTiming();
    }
    if (!ok) {
      j->failed = true;
      state.SkipWithError(j->err.msg);
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(j->job->data.len));
  state.counters["cold_ns"] = j->cold_ns;
  state.counters["allocs"] = static_cast<double>(j->mem.allocs);
  state.counters["heap_allocs"] = static_cast<double>(j->mem.heap_allocs);
  state.counters["alloc_bytes"] = static_cast<double>(j->mem.bytes);
  state.counters["peak_bytes"] = static_cast<double>(j->mem.peak);
  // Scenario cases: per-request CPU time in us, the iteration's / R.
  if (j->info.requests > 0) {
    state.counters["requests"] = static_cast<double>(j->info.requests);
    state.counters["us_per_request"] = benchmark::Counter(
        static_cast<double>(j->info.requests) / 1e6,
        benchmark::Counter::kIsIterationInvariantRate |
            benchmark::Counter::kInvert);
  }
  if (j->info.elements > 0) {
    state.counters["elements"] = static_cast<double>(j->info.elements);
    state.counters["attributes"] = static_cast<double>(j->info.attributes);
    state.counters["bytes_per_element"] =
        static_cast<double>(j->info.tree_bytes) /
        static_cast<double>(j->info.elements);
  }
}

int RunAll(Job* jobs, size_t njobs, int argc, char** argv, lab_err* err) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return lab_fail(err, LAB_EUSAGE, "unrecognized Google Benchmark flag");
  for (size_t i = 0; i < njobs; i++)
    benchmark::RegisterBenchmark(jobs[i].name.c_str(), Run, &jobs[i])
        ->Unit(benchmark::kMicrosecond);
  AllocCounters counters;
  benchmark::RegisterMemoryManager(&counters);
  size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::RegisterMemoryManager(nullptr);
  if (ran == 0)
    return lab_fail(err, LAB_EUSAGE, "no benchmark matches the filter");
  for (size_t i = 0; i < njobs; i++)
    if (jobs[i].failed)
      return lab_fail(err, jobs[i].err.code, "%s: %s", jobs[i].name.c_str(),
                      jobs[i].err.msg);
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
