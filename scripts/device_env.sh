# Sourced by the scripts that run on the lent GPU machine (docs/data/field/run.sh,
# docs/data/validation/run.sh, docs/data/reliability/soak.sh), after they set $bin: the
# Debian packages carried in .deps are unpacked to /tmp/deps, and their libraries and the
# CUDA libraries carried beside the binary (libcupti, libcudart) go on LD_LIBRARY_PATH.
# Elsewhere (no .deps) it changes nothing.
if [ -d .deps ]; then
  mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
  export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$(cd "$(dirname "$bin")" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
