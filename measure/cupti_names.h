/* Names of CUPTI record fields, for measure_cuda.c and the injection library of `record`
 * (inject/record_inject.c), which must say the same. Include after <cupti.h>. */
#ifndef PROVESIM_CUPTI_NAMES_H
#define PROVESIM_CUPTI_NAMES_H

/* The span name of a memcpy record, by its copyKind. */
static inline const char *mcupti_copy_kind(unsigned k) {
  switch (k) {
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy HtoD";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy DtoH";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy DtoD";
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "memcpy HtoH";
  default: return "memcpy";
  }
}

#endif
