#include "pack/planner/pipeline_schedule.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace flopspack::pack {
namespace {

// A FIFO of end times whose storage is reused across calls (planners
// evaluate many candidate orders): a vector and a read position, compacted
// when half of it has been read.
class TimeQueue {
 public:
  void Clear() {
    v_.clear();
    head_ = 0;
  }
  bool empty() const { return head_ == v_.size(); }
  void push_back(double t) { v_.push_back(t); }
  double front() const { return v_[head_]; }
  void pop_front() {
    if (++head_ == v_.size()) {
      Clear();
    } else if (head_ >= 64 && 2 * head_ >= v_.size()) {
      v_.erase(v_.begin(), v_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  std::vector<double> v_;
  size_t head_ = 0;
};

}  // namespace

double OneFOneBMakespan(absl::Span<const double> forward, absl::Span<const double> backward,
                        int64_t stages) {
  const int64_t m = static_cast<int64_t>(forward.size());
  if (m == 0 || stages < 1) return 0;
  const int64_t p = stages;
  // Per stage: ops done so far (op k of stage s is decided by k and the
  // warm-up count), the time the stage is free, and the input queues: end
  // times of forwards done by stage s - 1 and of backwards done by s + 1,
  // in microbatch order (each stage runs its forwards, and its backwards,
  // in microbatch order, so a FIFO pairs them).
  // Buffers kept per thread (no allocation per call once warm).
  thread_local std::vector<int64_t> done;
  thread_local std::vector<double> free_at;
  thread_local std::vector<TimeQueue> fwd_in, bwd_in;
  done.assign(static_cast<size_t>(p), 0);
  free_at.assign(static_cast<size_t>(p), 0.0);
  if (fwd_in.size() < static_cast<size_t>(p)) {
    fwd_in.resize(static_cast<size_t>(p));
    bwd_in.resize(static_cast<size_t>(p));
  }
  for (int64_t s = 0; s < p; ++s) {
    fwd_in[s].Clear();
    bwd_in[s].Clear();
  }
  auto warmup = [&](int64_t s) { return std::min(p - 1 - s, m); };
  // Op k of stage s: is it a forward, and of which microbatch.
  auto op = [&](int64_t s, int64_t k, bool* is_forward) -> int64_t {
    const int64_t w = warmup(s);
    if (k < w) {
      *is_forward = true;
      return k;
    }
    const int64_t steady = 2 * (m - w);  // alternating F, B
    if (k < w + steady) {
      const int64_t t = k - w;
      *is_forward = t % 2 == 0;
      return *is_forward ? w + t / 2 : t / 2;
    }
    *is_forward = false;
    return k - w - (m - w);  // cool-down backwards m - w .. m - 1
  };
  thread_local std::vector<int64_t> ready_stack;
  thread_local std::vector<char> queued;
  ready_stack.clear();
  queued.assign(static_cast<size_t>(p), 1);
  for (int64_t s = p - 1; s >= 0; --s) ready_stack.push_back(s);
  double makespan = 0;
  while (!ready_stack.empty()) {
    const int64_t s = ready_stack.back();
    ready_stack.pop_back();
    queued[s] = 0;
    while (done[s] < 2 * m) {
      bool is_forward = false;
      const int64_t i = op(s, done[s], &is_forward);
      double input = 0;
      if (is_forward) {
        if (s > 0) {
          if (fwd_in[s].empty()) break;
          input = fwd_in[s].front();
          fwd_in[s].pop_front();
        }
      } else if (s < p - 1) {
        if (bwd_in[s].empty()) break;
        input = bwd_in[s].front();
        bwd_in[s].pop_front();
      }
      // On the last stage the backward's input is its own forward, which
      // ended at free_at[s] (the op just before it).
      const double end = std::max(free_at[s], input) + (is_forward ? forward[i] : backward[i]);
      free_at[s] = end;
      ++done[s];
      makespan = std::max(makespan, end);
      const int64_t next = is_forward ? s + 1 : s - 1;
      if (next >= 0 && next < p) {
        (is_forward ? fwd_in[next] : bwd_in[next]).push_back(end);
        if (!queued[next]) {
          queued[next] = 1;
          ready_stack.push_back(next);
        }
      }
    }
  }
  return makespan;
}

double OneFOneBMakespan(absl::Span<const double> costs, int64_t stages) {
  if (stages < 1) return 0;
  thread_local std::vector<double> f, b;
  f.resize(costs.size());
  b.resize(costs.size());
  const double per_stage = 1.0 / static_cast<double>(stages);
  for (size_t i = 0; i < costs.size(); ++i) {
    f[i] = costs[i] * per_stage * kForwardShare;
    b[i] = costs[i] * per_stage - f[i];
  }
  return OneFOneBMakespan(f, b, stages);
}

double PipelineLowerBound(absl::Span<const double> costs, int64_t stages) {
  if (costs.empty() || stages < 1) return 0;
  double total = 0, least = costs[0], most = 0;
  for (double c : costs) {
    total += c;
    least = std::min(least, c);
    most = std::max(most, c);
  }
  const double p = static_cast<double>(stages);
  return std::max((total + (p - 1) * least) / p, most);
}

}  // namespace flopspack::pack
