#!/usr/bin/env python3
"""Prints the absolute paths of files under DIR (relative to the project root)
whose names end with SUFFIX, sorted, one per line: meson's stand-in for a glob."""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
folder, suffix = sys.argv[1], sys.argv[2]
for path in sorted((root / folder).glob("*" + suffix)):
    print(path)
