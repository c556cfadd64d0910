// Runs the report renderer, bindings/python/flopspack/report.py, on a report
// JSON file. The CLI computes every number through the library; drawing is
// left to matplotlib in Python.
//
// The interpreter is $FLOPSPACK_PYTHON, else the one the build was configured
// with (Debian's /usr/bin/python3, which sees python3-matplotlib). The
// script is the first that exists of: $FLOPSPACK_REPORT_SCRIPT;
// <binary dir>/../share/flopspack/report.py (an install); the source tree's
// copy (a build tree). If none exists, `python3 -m flopspack.report` is
// tried, for a Python package installed on the interpreter's path.
#ifndef FLOPSPACK_CLI_RENDERER_H_
#define FLOPSPACK_CLI_RENDERER_H_

#include <string>
#include <vector>

namespace flopspack::cli {

// The argv that renders json_path into out_dir (exposed for the tests).
std::vector<std::string> RendererCommand(const std::string& json_path, const std::string& out_dir);

// Runs it; its stdout is discarded, its stderr passes through. Throws
// CliError(kExitInternal) naming the command if it cannot start or fails.
// The absolute path of docs/cli.md: installed beside the binary
// (<prefix>/share/doc/flopspack/cli.md), else in the source tree the binary
// was built from; "" if neither exists.
std::string DocumentationPath();

void RunRenderer(const std::string& json_path, const std::string& out_dir);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_RENDERER_H_
