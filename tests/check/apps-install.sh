#!/bin/sh
# What users get from `make install`, tried in a DESTDIR: the header,
# pkg-config module, gir and typelib are there and the plugin dir holds no
# .la; flow-stats.c builds with pkg-config alone (gstreamer-cudaflow-1.0,
# gstreamer-app-1.0) and runs the installed plugin; flow-to-numpy.py runs
# on the installed typelib. Nothing of the build tree is on any path.
top_src=$(cd "$(dirname "$0")/../.." && pwd)
top_build=$(cd "${CUDAFLOW_TOOLS_DIR:-$top_src/_build/tools}/.." && pwd)
srcdir=$top_src/examples/apps
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

# a plain make, not with the flags (TESTS=..., the jobserver) of the make
# check that runs this
plain_make() {
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" --no-print-directory \
    -C "$top_build" "$@"
}
# lines libdir=..., plugindir=..., includedir=..., datadir=...,
# introspection=yes|no
dirs=$(plain_make -s -C examples/apps print-install-dirs) \
  || { echo "FAIL: make print-install-dirs"; exit 1; }
dir_of() { echo "$dirs" | sed -n "s/^$1=//p"; }
lib=$tmp$(dir_of libdir)
plugins=$tmp$(dir_of plugindir)
includedir=$tmp$(dir_of includedir)
datadir=$tmp$(dir_of datadir)
introspection=$(dir_of introspection)

if plain_make install DESTDIR="$tmp" > "$tmp/install.log" 2>&1; then
  ok "make install DESTDIR=..."
else
  bad "make install"; tail -n 30 "$tmp/install.log"; exit 1
fi

for f in "$includedir/gstreamer-1.0/gst/cudaflow/cudaflow.h" \
    "$lib/pkgconfig/gstreamer-cudaflow-1.0.pc" "$plugins/libgstcudaflow.so"; do
  if [ -f "$f" ]; then ok "installed ${f#"$tmp"}"; else bad "missing ${f#"$tmp"}"; fi
done
if [ "$introspection" = yes ]; then
  for f in "$datadir/gir-1.0/GstCudaFlow-1.0.gir" \
      "$lib/girepository-1.0/GstCudaFlow-1.0.typelib"; do
    if [ -f "$f" ]; then ok "installed ${f#"$tmp"}"; else bad "missing ${f#"$tmp"}"; fi
  done
else
  echo "SKIP: gir and typelib (introspection disabled)"; skip=$((skip + 1))
fi
las=$(find "$plugins" -name '*.la')
if [ -z "$las" ]; then ok "no .la in the plugin dir"; else bad "installed $las"; fi

# The .pc file as installed, its directories moved under DESTDIR.
# (PKG_CONFIG_SYSROOT_DIR would move those of GStreamer and GLib too.)
mkdir "$tmp/pc"
sed -E "s#^(prefix|exec_prefix|libdir|includedir)=/#\\1=$tmp/#" \
    "$lib/pkgconfig/gstreamer-cudaflow-1.0.pc" > "$tmp/pc/gstreamer-cudaflow-1.0.pc"
flags=$(PKG_CONFIG_PATH="$tmp/pc" pkg-config --cflags --libs \
    gstreamer-cudaflow-1.0 gstreamer-app-1.0)
# shellcheck disable=SC2086
if [ -n "$flags" ] && ${CC:-cc} -o "$tmp/flow-stats" "$srcdir/flow-stats.c" \
    $flags -lm > "$tmp/cc.log" 2>&1; then
  ok "flow-stats.c built with pkg-config: $flags"
else
  bad "flow-stats.c against the installed library"; cat "$tmp/cc.log"
fi

# the installed library and plugin only, in a fresh registry
run_installed() {
  env LD_LIBRARY_PATH="$lib" GI_TYPELIB_PATH="$lib/girepository-1.0" \
    GST_PLUGIN_PATH="$plugins" GST_PLUGIN_PATH_1_0="$plugins" \
    GST_REGISTRY="$tmp/registry.reg" GST_REGISTRY_1_0="$tmp/registry.reg" "$@"
}
if command -v gst-inspect-1.0 > /dev/null 2>&1; then
  if run_installed gst-inspect-1.0 cudaflowtvl1 2>&1 | grep -q "Filename *$plugins/"; then
    ok "cudaflowtvl1 comes from the installed plugin"
  else
    bad "cudaflowtvl1 is not the installed one"
    run_installed gst-inspect-1.0 cudaflowtvl1 2>&1 | grep Filename
  fi
fi
if run_installed ldd "$tmp/flow-stats" | grep -q "libgstcudaflow-1.0.so.* => $lib/"; then
  ok "flow-stats links the installed library"
else
  bad "flow-stats does not find the installed library"; run_installed ldd "$tmp/flow-stats"
fi
if run_installed "$tmp/flow-stats" -p "videotestsrc pattern=ball num-buffers=5 ! \
cudaflowtvl1 output=meta ! appsink" > "$tmp/stats.txt" 2>&1 \
    && [ "$(grep -c ' valid ' "$tmp/stats.txt")" -eq 4 ]; then
  ok "installed flow-stats on the ball"
else
  bad "installed flow-stats"; cat "$tmp/stats.txt"
fi

. "$top_src/tests/check/python-gi.sh"
cf_find_python
if [ -z "$py" ] || [ "$introspection" != yes ]; then
  echo "SKIP: flow-to-numpy.py on the installed typelib (python3-gi, numpy: ${py:-no}; introspection: $introspection)"
  skip=$((skip + 1))
elif run_installed "$py" "$srcdir/flow-to-numpy.py" -n 5 > "$tmp/py.txt" 2>&1 \
    && [ "$(grep -c ' valid ' "$tmp/py.txt")" -eq 4 ]; then
  ok "flow-to-numpy.py on the installed typelib"
else
  bad "flow-to-numpy.py on the installed typelib"; cat "$tmp/py.txt"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
