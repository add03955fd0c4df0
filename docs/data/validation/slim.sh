#!/usr/bin/env bash
# Keeps a device call's copy of the working tree under its 64 MiB (docs/validation-sessions.md, "The
# eleventh session's protocol"): the sessions' archives (runs.tar.xz, 40 MB of the 60 MB of
# tracked files after ten sessions) are not needed on the GPU machine. From the
# repository root:
#   bash docs/data/validation/slim.sh out    # before the device calls: the archives leave
#                                            # the index and are ignored, the files stay
#   bash docs/data/validation/slim.sh back   # after them: tracked again, nothing changed
# `out` refuses to start with staged changes (it would mix them with its own), and `back`
# checks that the archives are tracked again and unchanged.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
ex=.git/info/exclude mark='# validation slim.sh'
arcs() { git ls-files 'docs/data/validation/h[0-9]*/runs.tar.xz' 'docs/data/validation/h[0-9]*/*/runs.tar.xz'; }
case "${1:-}" in
out)
  git diff --cached --quiet || { echo "slim.sh: staged changes; commit or unstage them first" >&2; exit 1; }
  list=$(arcs)
  [ -n "$list" ] || { echo "slim.sh: no tracked archives (already out?)" >&2; exit 1; }
  { echo "$mark"; sed 's|^|/|' <<<"$list"; echo "$mark end"; } >> "$ex"
  git rm -q --cached $list
  echo "slim.sh: $(wc -l <<<"$list") archives out of the index ($(du -cb $list | tail -1 | cut -f1) bytes); 'slim.sh back' after the calls"
  ;;
back)
  grep -qxF "$mark" "$ex" || { echo "slim.sh: $ex has no slim.sh lines (not out?)" >&2; exit 1; }
  sed -i "/^$mark\$/,/^$mark end\$/d" "$ex"
  git reset -q -- docs/data/validation
  # the archives alone: other files there (run.sh, a new session) may be being edited
  git diff --quiet -- $(arcs) || { echo "slim.sh: the archives differ from HEAD" >&2; exit 1; }
  echo "slim.sh: $(arcs | wc -l) archives tracked again"
  ;;
*) echo "usage: bash $0 out|back" >&2; exit 2 ;;
esac
