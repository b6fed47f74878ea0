#!/bin/sh
# Regenerate the build system: ./autogen.sh [configure options]
set -e
srcdir=$(dirname "$0")
test -n "$srcdir" || srcdir=.
(cd "$srcdir" && mkdir -p m4 && autoreconf --force --install --verbose)
if [ -z "$NOCONFIGURE" ]; then
  "$srcdir/configure" "$@"
fi
