/* libFuzzer target: the trace writer (sim/trace.c) on any spans bytes. The spans reader
 * either refuses the file with a message or hands every span to the trace, whose JSON must
 * then parse (cJSON) and hold no NaN or infinity; nothing may crash, leak or run away. */
#include <math.h>
#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "trace.h"

static int add(void *ctx, const span_rec *r) {
  trace_add(ctx, r);
  return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n) {
  char path[256];
  fuzz_file("t.jsonl", data, n, path, sizeof path);
  ps_err e = {0};
  trace *t = trace_new(0, TRACE_MAX_SPANS, -INFINITY, INFINITY);
  int rc = spans_read(path, NULL, add, t, &e);
  if (rc != PS_OK) {
    if (!e.msg[0]) abort(); /* every failure says why */
    trace_free(t);
    return 0;
  }
  ps_buf b = {0};
  trace_render(t, &b);
  trace_free(t);
  if (b.p) {
    cJSON *d = cJSON_Parse(b.p); /* bare NaN or infinity would not parse either */
    if (!d) abort();
    cJSON_Delete(d);
  }
  ps_buf_free(&b);
  return 0;
}
