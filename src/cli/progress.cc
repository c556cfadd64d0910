#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_format.h"

namespace flopspack::cli {
namespace {
bool bar_drawn = false;  // a frame is on the terminal's current line
bool progress_enabled = true;
}  // namespace

void EnableProgress(bool enabled) { progress_enabled = enabled; }

void ClearProgressLine() {
  if (!bar_drawn) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  bar_drawn = false;
}

std::string RenderBar(const std::string& label, uint64_t done, uint64_t total, int width) {
  done = std::min(done, total);
  const int filled = total == 0 ? width : static_cast<int>(done * width / total);
  const int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
  return absl::StrFormat("%s [%s%s] %3d%% (%d/%d)", label, std::string(filled, '#'),
                         std::string(width - filled, '.'), percent, done, total);
}

Progress::Progress(std::string label, uint64_t total)
    : label_(std::move(label)),
      total_(total),
      enabled_(progress_enabled && isatty(fileno(stderr)) == 1) {
  if (enabled_) Set(0);
}

Progress::~Progress() {
  if (enabled_) ClearProgressLine();
}

void Progress::Set(uint64_t done) {
  done_ = done;
  if (!enabled_ || total_ == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (done != 0 && done < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::fprintf(stderr, "\r%s", RenderBar(label_, done_, total_, 30).c_str());
  std::fflush(stderr);
  bar_drawn = true;
}

}  // namespace flopspack::cli
