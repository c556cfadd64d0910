// A sample is enough: what the CLI does when the file holds fewer documents
// than one simulated step needs (docs/cli.md, "Samples and resampling").
//
// The emulator's question is about the length distribution, not the file: a
// file of 5,000 documents cannot fill one step of 8,192 ranks without
// repeating documents inside the step. Such a point is run on a pool of
// documents drawn with replacement from the file (the default), or, with
// --resample=false, reported as "n/a: needs N documents". Draws are
// deterministic for a seed (splitmix64, a 64-bit draw modulo n).
//
// Also the CLI's Ctrl-C handling: the first SIGINT sets a flag that the
// library's progress callbacks turn into a cancellation, so the commands can
// print the results they have; a second SIGINT ends the process.
#ifndef FLOPSPACK_CLI_RESAMPLE_H_
#define FLOPSPACK_CLI_RESAMPLE_H_

#include <cstdint>
#include <vector>

namespace flopspack::cli {

// count documents drawn uniformly with replacement from lengths (non-empty).
std::vector<int64_t> DrawWithReplacement(const std::vector<int64_t>& lengths, uint64_t count,
                                         uint64_t seed);
// The same draws (same seed, count and size: the same indices) of values
// kept beside the lengths (per-document extra costs).
std::vector<double> DrawWithReplacement(const std::vector<double>& values, uint64_t count,
                                        uint64_t seed);

// Documents a step of step_tokens tokens takes from a file of documents
// holding total_tokens tokens: ceil(step_tokens x documents / total_tokens).
uint64_t DocumentsForTokens(double step_tokens, uint64_t documents, int64_t total_tokens);

// The pool size used for a point that needs `needed` documents per step: twice
// that (so a step draws each pool document at most once with room to spare),
// and never fewer than the file's own documents.
uint64_t PoolSize(uint64_t needed, uint64_t documents);

// SIGINT handling (idempotent). After the first Ctrl-C, Interrupted() is true.
void InstallInterruptHandler();
bool Interrupted();
// For the tests: pretend Ctrl-C was pressed after `calls` more progress
// callbacks (FLOPSPACK_CLI_INTERRUPT_AFTER in the environment does the same).
void InterruptAfter(int64_t calls);
// Called from progress callbacks: true = stop now.
bool ShouldStop();

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_RESAMPLE_H_
