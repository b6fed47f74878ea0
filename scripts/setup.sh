#!/bin/sh
# Install what is missing (Debian/Ubuntu), then configure and build in
# _build/. Safe to run again: it only does what is not done yet.
#   CUDA toolkit: found through nvcc in PATH, /usr/local/cuda, or
#   CUDA_PREFIX=/path/to/cuda; it is not installed by this script.
#   CONFIGURE_FLAGS: extra ./configure options, split at spaces (e.g.
#   --with-cuda-arch=80,90). _build/.setup-flags keeps the options _build
#   was configured with: when CONFIGURE_FLAGS or the CUDA prefix differ,
#   setup configures again and rebuilds everything (make clean first, since
#   make does not see changed flags).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

packages="autoconf automake libtool pkg-config make gcc g++ \
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
  libgstreamer-plugins-bad1.0-dev libgl-dev libpng-dev \
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
  gobject-introspection libgirepository1.0-dev python3-gi python3-numpy \
  gir1.2-gstreamer-1.0"

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $packages; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
      *"install ok installed"*) ;;
      *) missing="$missing $p" ;;
    esac
  done
fi
if [ -n "$missing" ]; then
  echo "setup: installing$missing"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi

cuda_flag=""
if [ -n "$CUDA_PREFIX" ]; then
  cuda_flag="--with-cuda=$CUDA_PREFIX"
elif ! command -v nvcc >/dev/null 2>&1; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    cuda_flag="--with-cuda=/usr/local/cuda"
  else
    echo "setup: the CUDA toolkit (nvcc) was not found in PATH or /usr/local/cuda." >&2
    echo "       Install it from https://developer.nvidia.com/cuda-downloads or set CUDA_PREFIX." >&2
    exit 1
  fi
fi

[ -x ./configure ] || NOCONFIGURE=1 ./autogen.sh >/dev/null
mkdir -p _build
cd _build
# everything is installed above, so tests and tools are required here
flags="$cuda_flag --enable-tests=yes --enable-tools=yes $CONFIGURE_FLAGS"
if [ ! -f Makefile ] || [ ! -f .setup-flags ] || [ "$(cat .setup-flags)" != "$flags" ]; then
  if [ -f Makefile ]; then
    echo "setup: configure options changed, configuring _build again: $flags"
  fi
  rm -f .setup-flags
  # shellcheck disable=SC2086
  ../configure -q $flags
  make clean >/dev/null
  printf '%s\n' "$flags" > .setup-flags
fi
make -j"$(nproc 2>/dev/null || echo 2)"
