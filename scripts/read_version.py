#!/usr/bin/env python3
"""Prints MAJOR.MINOR.PATCH from include/flopspack/flopspack.h, the only place
the version is written; meson reads it through this script."""
import pathlib
import re
import sys

header = pathlib.Path(__file__).resolve().parent.parent / "include" / "flopspack" / "flopspack.h"
text = header.read_text(encoding="utf-8")
parts = []
for name in ("MAJOR", "MINOR", "PATCH"):
    match = re.search(rf"^#define FLOPSPACK_VERSION_{name} (\d+)$", text, re.MULTILINE)
    if not match:
        sys.exit(f"FLOPSPACK_VERSION_{name} not found in {header}")
    parts.append(match.group(1))
print(".".join(parts))
