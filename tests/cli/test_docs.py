"""docs/quickstart.md runs as written: every command in its code blocks
(```sh lines, and the `$ ` lines of output blocks) is executed in order in a
fresh directory holding the source tree's examples/ and scripts/, with the
built `flopspack` and Debian's python3 first on PATH. Each must exit 0, so
every file a command uses must have been created by an earlier one.

To stay a few seconds long, simulated steps are capped: `--steps=1` and
`--report-steps=1 --ranks=64,512 --decide-at=64,512` are appended to
simulate and report (later flags win); nothing else is changed.

Needs FLOPSPACK_CLI and FLOPSPACK_SOURCE_DIR (set by ctest).
"""
import os
import re
import subprocess

CLI = os.environ["FLOPSPACK_CLI"]
SOURCE = os.environ["FLOPSPACK_SOURCE_DIR"]
SKIP = ("scripts/setup.sh", "export PATH")
QUICK = {"simulate": " --steps=1",
         "report": " --report-steps=1 --ranks=64,512 --decide-at=64,512"}


def commands(markdown):
    """The shell commands of a Markdown page, in order."""
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
            command = re.sub(r"\s+#[^'\"\n]*$", "", command).strip()
            if command and not command.startswith("#") and not command.startswith(SKIP):
                out.append(command)
    return out


def test_quickstart_commands_run_as_written(tmp_path):
    with open(os.path.join(SOURCE, "docs", "quickstart.md"), encoding="utf-8") as f:
        cmds = commands(f.read())
    assert len(cmds) >= 8, cmds
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
    for command in cmds:
        for name, extra in QUICK.items():
            if command.startswith(f"flopspack {name} "):
                command = command.split(" > ")[0].split(" | ")[0] + extra
        result = subprocess.run(["bash", "-c", command], cwd=work,
                                capture_output=True, text=True, timeout=120, env=env)
        assert result.returncode == 0, (command, result.stderr[-2000:])
