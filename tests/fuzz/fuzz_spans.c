/* libFuzzer target: the spans reader (common/spans.c) on any bytes. It must return PS_OK
 * or PS_EINPUT with a message, never crash, leak or read out of bounds. */
#include "fuzz_common.h"
#include "spans.h"

static int count(void *ctx, const span_rec *r) {
  (void)r;
  ++*(long *)ctx;
  return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n) {
  char path[256];
  fuzz_file("s.jsonl", data, n, path, sizeof path);
  long c = 0;
  ps_err e = {0};
  int rc = spans_read(path, NULL, count, &c, &e);
  if (rc != PS_OK && !e.msg[0]) abort(); /* every failure says why */
  return 0;
}
