"""docs/quickstart.md and docs/cli.md run as written: every command in their
code blocks (```sh lines, and the `$ ` lines of output blocks) is executed in
order in a fresh directory holding the source tree's examples/ and scripts/,
with the built `flopspack` and Debian's python3 first on PATH. Every file a
command uses must have been created by an earlier one.

A command documented to fail ends with `# exit N`: it must exit N, and the
error line the page shows under it must be what it prints on stderr. Every
other command must exit 0.

To stay a few seconds long, simulated steps are capped: `--steps=1` and
`--report-steps=1 --ranks=64,512 --decide-at=64,512` are appended to
simulate and report (later flags win); nothing else is changed. The two
pages took 58 s together on the loaded 2-core build machine: each runs
`flopspack report`, whose matplotlib renderer takes about 14 s there, and
cli.md also runs its Chromium screenshot command when Chromium is installed;
the rest is a second or two per command on the 100,000-document example.
The second page's report, the same command on the same file, is the first
one's output copied (REPORTS_RUN).

Needs FLOPSPACK_CLI and FLOPSPACK_SOURCE_DIR (set by ctest).
"""
import os
import re
import shutil
import subprocess

CLI = os.environ["FLOPSPACK_CLI"]
SOURCE = os.environ["FLOPSPACK_SOURCE_DIR"]
SKIP = ("scripts/setup.sh", "export PATH")
QUICK = {"simulate": " --steps=1",
         "report": " --report-steps=1 --ranks=64,512 --decide-at=64,512"}
# Both pages run the same report on the bundled example (a source-tree file,
# the same on both): the second page gets a copy of the first one's output
# directory instead of a second run. The report's C++ took ~30 of the suite's
# CPU seconds per run under AddressSanitizer (CI's ASan stage), ~8 without.
# Keyed by the command as run; only `report examples/... --out DIR`, which
# reads nothing an earlier command of the page made.
REPORTS_RUN = {}
# Under AddressSanitizer (CI's ASan stage, FLOPSPACK_CHILD_ASAN_OPTIONS set)
# every `flopspack` command that succeeds reads the example's first
# SANITIZED_DOCUMENTS documents instead of all 100,000: the same C++ runs
# (every report section, the padding section's bucket sampler on a sample
# that still fills a step of the smallest GPU count; every simulate, buckets,
# pack, stats and compare code path, a point that needs more documents than
# the sample holding being resampled as on the whole file), on a tenth of
# the data: the report 41.8 -> ~10 CPU s under ASan, the other commands on
# the example 15.8 -> ~6. The pages as written, on the whole file, run in
# the uninstrumented GCC build (CI's meson stage), and so does the Chromium
# command (Chromium is not instrumented; skipped here).
SANITIZED = "FLOPSPACK_CHILD_ASAN_OPTIONS" in os.environ
SANITIZED_DOCUMENTS = 10000
EXAMPLE = "examples/data/example_lengths.txt"


def documented_runs(markdown):
    """The shell commands of a Markdown page, in order, each as (command,
    exit code, the error line shown under it or None)."""
    out = []
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", markdown, re.S):
        lines = body.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if lang == "sh":
                command = line
            elif line.startswith("$ "):
                command = line[2:]
            else:
                i += 1
                continue
            # Continuations: a trailing backslash, or an open double quote.
            while command.rstrip().endswith("\\") or command.count('"') % 2 == 1:
                i += 1
                command = command.rstrip().rstrip("\\") + ("\n" if command.count('"') % 2
                                                          else " ") + lines[i]
            i += 1
            code = re.search(r"\s#\s*exit (\d+)\s*$", command)
            command = re.sub(r"\s+#[^'\"\n]*$", "", command).strip()
            if not command or command.startswith("#") or command.startswith(SKIP):
                continue
            shown = lines[i] if lang != "sh" and i < len(lines) else ""
            error = shown if code and shown.startswith("flopspack ") else None
            out.append((command, int(code.group(1)) if code else 0, error))
    return out


def commands(markdown):
    """The shell commands of a Markdown page, in order."""
    return [command for command, _, _ in documented_runs(markdown)]


def run_page(tmp_path, page):
    """Runs every command of docs/<page> in a fresh directory; returns the
    runs as documented_runs gives them."""
    with open(os.path.join(SOURCE, "docs", page), encoding="utf-8") as f:
        runs = documented_runs(f.read())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(CLI, bin_dir / "flopspack")
    os.symlink("/usr/bin/python3", bin_dir / "python3")
    work = tmp_path / "work"
    work.mkdir()
    for name in ("examples", "scripts"):
        os.symlink(os.path.join(SOURCE, name), work / name)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    if "FLOPSPACK_CHILD_ASAN_OPTIONS" in os.environ:
        env["ASAN_OPTIONS"] = os.environ["FLOPSPACK_CHILD_ASAN_OPTIONS"]
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}"
    sample = None
    for command, code, error in runs:
        if command.startswith("chromium ") and (SANITIZED or not shutil.which("chromium")):
            continue
        for name, extra in QUICK.items():
            if command.startswith(f"flopspack {name} "):
                command = command.split(" > ")[0].split(" | ")[0] + extra
        words = command.split()
        # `flopspack report examples/... --out DIR` and the QUICK flags, nothing else.
        example_report = (code == 0 and words[:2] == ["flopspack", "report"]
                          and words[2:3] != [] and words[2].startswith("examples/")
                          and words[3:4] == ["--out"] and words[5:] == QUICK["report"].split())
        out = words[4] if example_report else None
        if example_report and command in REPORTS_RUN:
            shutil.copytree(REPORTS_RUN[command], work / out)
            continue
        key = command
        if SANITIZED and code == 0 and words[0] == "flopspack" and EXAMPLE in words:
            if sample is None:
                sample = work / "sanitized_sample.txt"
                with open(os.path.join(SOURCE, EXAMPLE), encoding="utf-8") as f:
                    lengths = [line for line in f if not line.startswith("#")]
                sample.write_text("".join(lengths[:SANITIZED_DOCUMENTS]))
            command = re.sub(r"(?<!\S)" + re.escape(EXAMPLE) + r"(?!\S)", sample.name, command)
        result = subprocess.run(["bash", "-c", command], cwd=work,
                                capture_output=True, text=True, timeout=120, env=env)
        assert result.returncode == code, (command, result.returncode, result.stderr[-2000:])
        if example_report:
            REPORTS_RUN[key] = work / out
        if error is not None:
            assert result.stderr.rstrip("\n") == error, (command, result.stderr)
    return runs


def test_quickstart_commands_run_as_written(tmp_path):
    runs = run_page(tmp_path, "quickstart.md")
    assert len(runs) >= 8, runs
    assert all(code == 0 for _, code, _ in runs)


def test_cli_reference_commands_run_as_written(tmp_path):
    runs = run_page(tmp_path, "cli.md")
    commands = {command.split()[1] for command, _, _ in runs if command.startswith("flopspack ")}
    # Every command has its example, and the page shows failures with their codes.
    assert commands >= {"stats", "pack", "balance", "plan", "buckets", "simulate", "compare",
                        "report", "models", "fit"}, commands
    assert {code for _, code, _ in runs} >= {0, 1, 2}
    assert all(error for _, code, error in runs if code != 0)
