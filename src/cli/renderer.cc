#include "renderer.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "status.h"

extern char** environ;

#ifndef FLOPSPACK_CLI_PYTHON
#define FLOPSPACK_CLI_PYTHON "python3"
#endif
#ifndef FLOPSPACK_CLI_SOURCE_REPORT
#define FLOPSPACK_CLI_SOURCE_REPORT ""
#endif
#ifndef FLOPSPACK_CLI_SOURCE_DOCS
#define FLOPSPACK_CLI_SOURCE_DOCS ""
#endif

namespace flopspack::cli {
namespace {

bool IsFile(const std::string& path) {
  struct stat info;
  return !path.empty() && stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string BinaryDir() {
  char buffer[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return "";
  std::string path(buffer, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

}  // namespace

std::vector<std::string> RendererCommand(const std::string& json_path, const std::string& out_dir) {
  std::string python = Env("FLOPSPACK_PYTHON");
  if (python.empty()) python = FLOPSPACK_CLI_PYTHON;
  std::string script = Env("FLOPSPACK_REPORT_SCRIPT");
  if (!IsFile(script)) {
    script.clear();
    const std::string installed = BinaryDir() + "/../share/flopspack/report.py";
    if (IsFile(installed)) {
      script = installed;
    } else if (IsFile(FLOPSPACK_CLI_SOURCE_REPORT)) {
      script = FLOPSPACK_CLI_SOURCE_REPORT;
    }
  }
  if (script.empty()) return {python, "-m", "flopspack.report", json_path, "--out", out_dir};
  return {python, script, json_path, "--out", out_dir};
}

std::string DocumentationPath() {
  const std::string installed = BinaryDir() + "/../share/doc/flopspack/cli.md";
  if (IsFile(installed)) {
    char buffer[PATH_MAX];
    if (realpath(installed.c_str(), buffer) != nullptr) return buffer;
    return installed;
  }
  if (IsFile(FLOPSPACK_CLI_SOURCE_DOCS)) return FLOPSPACK_CLI_SOURCE_DOCS;
  return "";
}

void RunRenderer(const std::string& json_path, const std::string& out_dir) {
  const std::vector<std::string> command = RendererCommand(json_path, out_dir);
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The renderer prints the page's path; the CLI prints its own line.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  const std::string shown = absl::StrJoin(command, " ");
  if (error != 0) {
    throw CliError(kExitInternal, absl::StrCat("cannot run the report renderer (", shown,
                                               "): ", std::strerror(error),
                                               "; set FLOPSPACK_PYTHON to a python3"));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      throw CliError(kExitInternal,
                     absl::StrCat("waiting for the renderer: ", std::strerror(errno)));
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw CliError(kExitInternal,
                   absl::StrCat("the report renderer failed (", shown, ", ",
                                WIFEXITED(status) ? absl::StrCat("exit ", WEXITSTATUS(status))
                                                  : "killed by a signal",
                                "); its message is above"));
  }
}

}  // namespace flopspack::cli
