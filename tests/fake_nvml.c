/* A stand-in for libnvidia-ml.so.1 for test_nvml (CI has no GPU): one device whose SM
 * clock alternates between 1980 and 1755 MHz, read by read, with the power cap given as
 * the reason at 1755 and "GPU idle" (not a slowdown) at both; utilization 50%; the
 * board's highest clock 1980 MHz. Only the calls measure_nvml.c makes. */
#include <stddef.h>

static int reads;

int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int r) { return r ? "fake error" : "success"; }
int nvmlDeviceGetCount_v2(unsigned *n) {
  *n = 1;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **dev) {
  if (i) return 2;
  *dev = &reads;
  return 0;
}
int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, void **dev) {
  (void)pci;
  *dev = &reads;
  return 0;
}
int nvmlDeviceGetUtilizationRates(void *dev, unsigned *u) {
  (void)dev;
  u[0] = 50, u[1] = 20;
  return 0;
}
int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz) {
  (void)dev;
  if (type != 1) return 2;
  *mhz = reads++ % 2 ? 1755 : 1980;
  return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *why) {
  (void)dev;
  *why = 0x1ull | (reads % 2 ? 0 : 0x4ull); /* the read just made: odd count -> 1980 */
  return 0;
}
int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned *mhz) {
  (void)dev;
  if (type != 1) return 2;
  *mhz = 1980;
  return 0;
}
