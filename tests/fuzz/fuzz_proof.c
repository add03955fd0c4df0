/* libFuzzer target: the proof, vk and public JSON reader (prover/g16_json.c). The input is
 * split at the first two NUL bytes into proof.json, vk.json and public.json. */
#include "fuzz_common.h"
#include "g16_json.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n) {
  static const char *const names[3] = {"proof.json", "vk.json", "public.json"};
  size_t at = 0;
  char path[256];
  for (int i = 0; i < 3; i++) {
    size_t end = at;
    while (end < n && (i == 2 || data[end] != 0)) end++;
    fuzz_file(names[i], data + at, end - at, path, sizeof path);
    at = end < n ? end + 1 : n;
  }
  g16_vk vk;
  g16_proof p;
  fr_t *pub = NULL;
  int npub = 0;
  ps_err e = {0};
  if (g16_json_read(fuzz_dir(), &vk, &p, &pub, &npub, &e) == PS_OK) {
    g16_vk_clear(&vk);
    free(pub);
  } else if (!e.msg[0]) {
    abort();
  }
  return 0;
}
