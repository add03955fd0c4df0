# rows in; each between two references of its own size, cores and threads (the seventh
# session's protocol, docs/validation-sessions.md): ref-NAME before it and ref-NAME-after after it,
# one worker under the kernels lock at the cpu_cores the row has and the threads each of
# its workers gets (system.threads: share (cores - keep_core) / workers, at least 1; all:
# the cores; a number: that), S the pass's suffix, CORES the machine's cores (default 16:
# the one-GPU H200's). At CORES cores and CORES - 1 threads a reference is the default one
# (R20, R22), as the calibration's runs at the default policy are.
# REPEAT=N: x20-w2 measured N more times right after itself (x20-w2-repK), for the share of
# time in each of its two regimes.
# CAL=1: instead of the rows, the distinct reference settings as calibration runs
# (cal20-cC-tT, cal22-cC-tT), the ones that calib.tsv does not have already, as long as a
# reference (the partitions, warm-up and cool-down do not count when a reference is matched
# with its calibration runs).
BEGIN { FS = OFS = "\t"; if (!CORES) CORES = 16 }
function own(row, sz,    n, kv, i, k, v, cores, workers, keep, per, thr, base) {
  cores = CORES; workers = 1; keep = 1; per = ""
  n = split(row, kv, /; */)
  for (i = 1; i <= n; i++) {
    k = kv[i]; sub(/=.*/, "", k); v = kv[i]; sub(/^[^=]*=/, "", v)
    if (k == "system.cpu_cores") cores = v + 0
    else if (k == "system.workers_per_gpu") workers = v + 0
    else if (k == "system.threads.keep_core") keep = (v == "false" ? 0 : 1)
    else if (k == "system.threads.per_worker") per = v
  }
  thr = per == "all" ? cores : per != "" ? per + 0 : int((cores - keep) / workers)
  if (thr < 1) thr = 1
  base = sz == "2^22" ? R22 : R20
  if (cores == CORES && thr == CORES - 1) return base
  sub(/; workload/, "; " (cores != CORES ? "system.cpu_cores=" cores "; " : "") "system.threads.per_worker=" thr "; workload", base)
  return base
}
/^#/ || NF != 3 { next }
{ r = own($3, $2)
  if (CAL) {
    if (r == ($2 == "2^22" ? R22 : R20)) next
    c = CORES; if (r ~ /cpu_cores=/) { c = r; sub(/.*cpu_cores=/, "", c); sub(/;.*/, "", c) }
    h = r; sub(/.*per_worker=/, "", h); sub(/;.*/, "", h)
    nm = "cal" substr($2, 3) "-c" c "-t" h
    if (!(nm in seen)) print nm, $2, r
    seen[nm] = 1
    next
  }
  print "ref-" $1 S, $2, r; print $1 S, $2, $3
  for (i = 1; i <= REPEAT && $1 == "x20-w2"; i++) print $1 "-rep" i S, $2, $3
  print "ref-" $1 "-after" S, $2, r }
