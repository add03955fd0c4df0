/* libFuzzer target: the scenario and model loader (core/scn*.c) on any bytes, as a
 * scenario file and as a model file. Every outcome is a scenario or PS_EINPUT with a
 * message; nothing crashes, leaks or runs away (the loader bounds nodes and depth). */
#include "fuzz_common.h"
#include "scn.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n) {
  char path[256];
  fuzz_file("s.yaml", data, n, path, sizeof path);
  ps_err e = {0};
  scenario *s = NULL;
  int rc = scn_load(path, NULL, 0, &s, &e);
  if (rc == PS_OK) scn_free(s);
  else if (!e.msg[0]) abort();
  model *m = NULL;
  rc = scn_load_model(path, &m, &e);
  if (rc == PS_OK) scn_model_free(m);
  else if (!e.msg[0]) abort();
  return 0;
}
