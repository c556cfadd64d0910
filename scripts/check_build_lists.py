#!/usr/bin/env python3
"""Checks that the meson and CMake build definitions list the same files.

For every directory that both build systems describe, the .c/.cc files (and
tests/cli's pytest files) named in its CMake file (sources.cmake or
CMakeLists.txt) and in its meson.build must be the same set, the folder lists
that include src/<concern> and src/pack/<folder> must agree, and every .c/.cc
file in those directories must be listed (a file on disk that neither build
compiles is dead code or a forgotten test). Runs in well under a second: CI
runs it instead of compiling every meson target a second time, and ctest
runs it as `build_lists` (docs/development.md). Exit status 1 and one line
per difference when they drift; usage: check_build_lists.py [ROOT].
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                    pathlib.Path(__file__).resolve().parent.parent).resolve()

# (directory, its CMake file): each directory also has a meson.build. The
# directories under src/ that have a sources.cmake are added below.
PAIRS = [("src/cli", "CMakeLists.txt"), ("tests/cli", "CMakeLists.txt"),
         ("tests", "CMakeLists.txt"), ("examples", "CMakeLists.txt"),
         ("benchmarks", "CMakeLists.txt")]
# Files named here are listed by a glob (CMake) and scripts/list_files.py
# (meson): both take every file, so only the pattern needs to agree.
GLOBBED = {"tests/capi": "_test.cc"}

FILE_RE = re.compile(r"[\w./-]*\w\.(?:cc|c)\b|\btest_\w+\.py\b")


def strip_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def listed(path):
    """The files a build file names, relative to its directory."""
    text = strip_comments(path.read_text())
    text = re.sub(r"\$\{CMAKE_CURRENT_(?:LIST|SOURCE)_DIR\}/", "", text)
    # "_test.cc": the suffix the globs match (GLOBBED), not a file.
    names = {name for name in FILE_RE.findall(text) if not name.startswith("_")}
    # meson: `foreach name : ['a', 'b'] executable(name, name + '.cc')`.
    for loop in re.finditer(r"foreach (\w+) : \[([^\]]*)\](.*?)endforeach", text, re.S):
        if re.search(loop.group(1) + r" \+ '\.cc'", loop.group(3)):
            names |= {word + ".cc" for word in re.findall(r"'(\w+)'", loop.group(2))}
    return names


def folder_list(path, pattern):
    match = re.search(pattern, strip_comments(path.read_text()), re.S)
    if not match:
        return None
    return set(re.findall(r"[\w]+", match.group(1).replace("'", " ")))


def main():
    errors = []
    src_dirs = sorted(p.parent for p in (ROOT / "src").rglob("sources.cmake"))
    pairs = [(d.relative_to(ROOT).as_posix(), "sources.cmake") for d in src_dirs] + PAIRS

    for folder, cmake_name in pairs:
        directory = ROOT / folder
        cmake, meson = directory / cmake_name, directory / "meson.build"
        if not meson.exists():
            errors.append(f"{folder}: {cmake_name} but no meson.build")
            continue
        in_cmake, in_meson = listed(cmake), listed(meson)
        for name in sorted(in_cmake - in_meson):
            errors.append(f"{folder}: {name} in {cmake_name}, not in meson.build")
        for name in sorted(in_meson - in_cmake):
            errors.append(f"{folder}: {name} in meson.build, not in {cmake_name}")
        for name in sorted(in_cmake | in_meson):
            if not (directory / name).exists():
                errors.append(f"{folder}: {name} listed but missing")
        on_disk = {p.name for p in directory.iterdir() if p.suffix in (".c", ".cc")}
        if folder == "tests/cli":
            on_disk |= {p.name for p in directory.glob("test_*.py")}
        for name in sorted(on_disk - in_cmake - in_meson):
            errors.append(f"{folder}: {name} is in no build file")

    for folder, suffix in GLOBBED.items():
        if f"{folder.split('/', 1)[1]}/*{suffix}" not in (ROOT / "tests/CMakeLists.txt").read_text():
            errors.append(f"{folder}: tests/CMakeLists.txt no longer globs *{suffix}")
        if f"'{folder}', '{suffix}'" not in (ROOT / "tests/meson.build").read_text():
            errors.append(f"{folder}: tests/meson.build no longer lists *{suffix}")

    # Which folders each build includes, and that no source folder is left out.
    lists = [
        ("src", folder_list(ROOT / "CMakeLists.txt", r"foreach\(_concern([^)]*)\)"),
         folder_list(ROOT / "meson.build", r"foreach concern : \[([^\]]*)\]")),
        ("src/pack", folder_list(ROOT / "src/pack/sources.cmake", r"foreach\(_pack_folder([^)]*)\)"),
         folder_list(ROOT / "src/pack/meson.build", r"foreach pack_folder : \[([^\]]*)\]")),
    ]
    for parent, in_cmake, in_meson in lists:
        if in_cmake is None or in_meson is None:
            errors.append(f"{parent}: folder list not found (this script's patterns need updating)")
            continue
        if in_cmake != in_meson:
            errors.append(f"{parent}: CMake includes {sorted(in_cmake)}, meson {sorted(in_meson)}")
        for d in src_dirs:
            if d.parent == ROOT / parent and d.name not in in_cmake:
                errors.append(f"{parent}: {d.name}/sources.cmake is included by neither build")
    for path in sorted((ROOT / "src").rglob("*.cc")):
        if path.parent not in src_dirs and path.parent != ROOT / "src/cli":
            errors.append(f"{path.relative_to(ROOT)}: its folder has no sources.cmake")

    for line in errors:
        print(line)
    if errors:
        print(f"{len(errors)} difference(s) between the CMake and meson build files")
        return 1
    print(f"build lists agree ({len(pairs)} directories)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
