#!/bin/sh
# Builds and runs a tiny downstream program four ways: find_package against
# an installed prefix (shared and static), pkg-config, add_subdirectory and
# a meson subproject. Usage: run.sh SOURCE_DIR INSTALL_PREFIX WORK_DIR
set -eu
src="$1"
prefix="$2"
work="$3"
here="$src/tests/consumers"
rm -rf "$work"
mkdir -p "$work"

cmake -S "$here/find_package" -B "$work/find_package" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/find_package.log"
cmake --build "$work/find_package" >> "$work/find_package.log"
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib/x86_64-linux-gnu" "$work/find_package/consumer"
"$work/find_package/consumer_static"

pcdir=$(dirname "$(find "$prefix" -name flopspack.pc | head -1)")
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs flopspack)
# shellcheck disable=SC2086
cc -std=c99 "$here/consumer.c" $flags -o "$work/pkgconfig_consumer"
LD_LIBRARY_PATH="$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir flopspack)" \
  "$work/pkgconfig_consumer"

# RelWithDebInfo with warnings as errors: a vendored flopspack must build
# warning-free too, and these are the CMake stage's flags (debug info only in
# src/capi: FLOPSPACK_CORE_COMPILE_OPTIONS), so when CI runs this under a
# compiler cache (scripts/test.sh) the library's objects come from that
# stage instead of being compiled a second time.
cmake -S "$here/subdirectory" -B "$work/subdirectory" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPSPACK_WERROR=ON -DFLOPSPACK_CORE_COMPILE_OPTIONS=-g0 \
  -DFLOPSPACK_SOURCE_DIR="$src" > "$work/subdirectory.log"
cmake --build "$work/subdirectory" >> "$work/subdirectory.log"
"$work/subdirectory/consumer"

mkdir -p "$work/meson_project/subprojects"
cp "$here/meson_subproject/meson.build" "$work/meson_project/"
cp "$here/consumer.c" "$work/"
ln -s "$src" "$work/meson_project/subprojects/flopspack"
# The subproject's library as unity files of 16 (-Dunity=subprojects: the
# consumer's own file as it is): at meson's default -O0 -g parsing dominates,
# 248 -> 54 CPU s for this build (measured under load). The CMake stage's
# ccache cannot serve it (other paths, other flags).
meson setup "$work/meson_project/build" "$work/meson_project" -Dunity=subprojects -Dunity_size=16 \
  > "$work/meson.log"
meson compile -C "$work/meson_project/build" >> "$work/meson.log"
if [ -e "$work/meson_project/build/subprojects/flopspack/tests/capi_test" ]; then
  echo "a meson subproject flopspack must not build tests" >&2
  exit 1
fi
"$work/meson_project/build/consumer"
echo "consumers: ok"
