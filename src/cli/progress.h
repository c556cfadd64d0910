// A progress bar on stderr for long work (rank sweeps, the report), drawn
// only when stderr is a terminal and --progress is on, so pipes, files and
// CI logs never see control characters. The bar is redrawn at most ten
// times a second and erased when the work ends.
#ifndef FLOPSPACK_CLI_PROGRESS_H_
#define FLOPSPACK_CLI_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace flopspack::cli {

// One frame of the bar, without the leading "\r": e.g.
// "simulate [##########..........]  50% (5/10)". Exposed for the tests.
std::string RenderBar(const std::string& label, uint64_t done, uint64_t total, int width);

// --progress / --noprogress: whether bars are drawn at all (default on).
void EnableProgress(bool enabled);

// Erases the bar on the terminal, if one is drawn, before other output (the
// bar is redrawn on its next update). Called by Emit() and main().
void ClearProgressLine();

class Progress {
 public:
  Progress(std::string label, uint64_t total);
  ~Progress();  // erases the bar
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Set(uint64_t done);
  // For work whose size is known only once it starts (a library callback).
  void SetTotal(uint64_t total) { total_ = total; }
  void Advance() { Set(done_ + 1); }
  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  uint64_t total_, done_ = 0;
  bool enabled_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_PROGRESS_H_
