/* `provesim record`: what a recording made by the CUPTI injection library
 * (measure/inject/record_inject.c) says. The library writes provesim.spans/1 with kernel
 * and memcpy spans (and NVTX ranges) of an unmodified CUDA program, times in seconds from
 * its start, and puts the start on the CLOCK_MONOTONIC clock in the header
 * ("t0_monotonic"), so a window on the recorder's clock can be cut from it. This module
 * turns such a file into per-GPU kernel-busy time over a window: the union of each GPU's
 * kernel intervals (overlapping kernels, several streams, count once), clipped to the
 * window. No CUDA here: CI tests it on committed recordings. */
#ifndef PROVESIM_RECORD_H
#define PROVESIM_RECORD_H

#include <stdint.h>

#include "util.h"

typedef struct record_summary {
  double t0_monotonic;       /* the recording's start (header), NaN when absent */
  double first, last;        /* first kernel start, last kernel end (s from the start) */
  int ngpus;                 /* highest device id seen + 1 */
  double busy[PS_MAX_GPUS];  /* kernel-busy seconds inside the window, per device */
  int64_t kernels[PS_MAX_GPUS], memcpys[PS_MAX_GPUS];
  int64_t nvtx;              /* NVTX ranges (phase spans) */
  int threads;               /* threads that launched kernels or memcpys (highest worker + 1) */
  int64_t unattributed;      /* kernels and memcpys without their launching thread */
  double w0, w1;             /* the window used (s from the start) */
} record_summary;

/* Reads a recording and sums each device's kernel-busy time inside [w0, w1] (seconds
 * from the recording's start; w1 = NaN: up to the last kernel's end). Kernel intervals
 * are merged per device before clipping. Memory: one interval per kernel of the file
 * (16 bytes each). PS_EINPUT with file:line for a malformed file. */
int record_summarize(const char *path, double w0, double w1, record_summary *out, ps_err *e);

#endif
