# Sourced by the scripts that run on the lent GPU machine (docs/data/field/run.sh,
# docs/data/validation/run.sh, docs/data/reliability/soak.sh), after they set $bin: the
# Debian packages carried in .deps are unpacked to /tmp/deps, and their libraries and the
# CUDA libraries carried beside the binary (libcupti, libcudart) go on LD_LIBRARY_PATH.
# Elsewhere (no .deps) it changes nothing. device_cache_root prints where a key cache of
# the field's size fits: the first of /var/tmp, /tmp and the checkout that is not a tmpfs
# and has 45 GiB free (the 2^26 keys take 36 GiB), else /tmp.
if [ -d .deps ]; then
  mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
  export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$(cd "$(dirname "$bin")" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
device_cache_root() {
  local d
  for d in /var/tmp /tmp "$PWD"; do
    [ "$(stat -f -c %T "$d" 2>/dev/null)" != tmpfs ] && [ "$(df -P -k "$d" | awk 'NR==2 {print $4}')" -gt 47185920 ] &&
      { echo "$d"; return; }
  done
  echo /tmp
}
