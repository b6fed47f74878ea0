# Sourced by the tests that run Python through GObject introspection.

# Sets py to a python3 that has gi, numpy and Gst 1.0 (the python3 first
# in PATH may be a pyenv one without them); FALSE when there is none.
cf_find_python () {
  py=""
  for p in python3 /usr/bin/python3; do
    if "$p" -c 'import gi, numpy; gi.require_version ("Gst", "1.0")' \
        2>/dev/null; then
      py=$p
      return 0
    fi
  done
  return 1
}

# Points Python at the GstCudaFlow typelib and library of the build tree
# TOP_BUILD (sets lib to their directory) and finds py; exits 77 (SKIP)
# when there is no such python3 or no typelib.
cf_python_from_build_tree () {
  lib=$1/gst-libs/gst/cudaflow
  export GI_TYPELIB_PATH="$lib${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
  export LD_LIBRARY_PATH="$lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if ! cf_find_python; then
    echo "SKIP: no python3 with gi, numpy and Gst 1.0 (apt-get install python3-gi python3-numpy gir1.2-gstreamer-1.0)"
    exit 77
  fi
  if [ ! -f "$lib/GstCudaFlow-1.0.typelib" ]; then
    echo "SKIP: no GstCudaFlow typelib (configured without gobject-introspection)"
    exit 77
  fi
}
