# rows in; each after a reference of its size, and a last reference of a size right after
# the last row of that size in a stretch ("ref-end", "ref-end22"), S the pass's suffix
function endref(sz) { print "ref-end" (sz == "2^22" ? "22" : "") S, sz, (sz == "2^22" ? R22 : R20) }
BEGIN { FS = OFS = "\t" }
{ if (prev != "" && $2 != prev) endref(prev)
  print "ref-" $1 S, $2, ($2 == "2^22" ? R22 : R20); print $1 S, $2, $3; prev = $2 }
END { endref(prev) }
