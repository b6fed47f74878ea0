#!/bin/sh
# docs/elements.md is generated (`make docs`, tools/cf-doc-dump) from the
# registry: regenerate it from the plugin just built and compare it with
# the committed file, so that the reference cannot drift from the elements
# (a property default, range, blurb or pad template changed without
# `make docs`).
top_src=$(cd "$(dirname "$0")/../.." && pwd)
tools=${CUDAFLOW_TOOLS_DIR:-$top_src/_build/tools}
plugins=${GST_PLUGIN_PATH_1_0:-$tools/../gst/.libs}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$tools/cf-doc-dump" ]; then
  echo "FAIL: $tools/cf-doc-dump is not built"; exit 1
fi
# the same environment as `make docs` (docs/Makefile.am): the build tree's
# plugin and a registry of our own
if ! GST_PLUGIN_PATH_1_0="$plugins" GST_REGISTRY_1_0="$tmp/registry.reg" \
    "$tools/cf-doc-dump" cudaflow > "$tmp/elements.md" 2> "$tmp/err"; then
  cat "$tmp/err"
  echo "FAIL: cf-doc-dump could not list the plugin"; exit 1
fi
if diff -u "$top_src/docs/elements.md" "$tmp/elements.md" > "$tmp/diff"; then
  echo "PASS: docs/elements.md matches the elements"
  echo "1 passed, 0 failed"
  exit 0
fi
cat "$tmp/diff"
echo "FAIL: docs/elements.md differs from what the elements report" \
  "(- committed, + fresh); run \`make docs\` and commit docs/elements.md"
exit 1
