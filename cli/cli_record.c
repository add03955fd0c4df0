/* `provesim record -- COMMAND`: true GPU busy time of any CUDA program, unmodified. The
 * program runs with CUDA_INJECTION64_PATH naming provesim's CUPTI injection library
 * (measure/inject/record_inject.c), which writes its kernels, memcpys and NVTX ranges as
 * spans; this command samples nvidia-smi's figure (NVML) over the same window, then prints
 * both per GPU (measure/record.h does the sums). */
#define _GNU_SOURCE
#include "cli_measure.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "measure_exec.h"
#include "record.h"
#include "report.h"

static const char record_help[] =
    "usage: provesim record [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND, any CUDA program, unmodified, and records what its GPUs really did: every\n"
    "kernel and memcpy (device, stream) and its NVTX ranges, through CUPTI's activity API in\n"
    "an injection library CUDA loads into the program (CUDA_INJECTION64_PATH, the way\n"
    "profilers attach). Prints each GPU's true kernel-busy utilization over the recording\n"
    "(from the program's first CUDA call to its exit, or to --duration) beside nvidia-smi's\n"
    "figure (NVML, sampled over the same window). The spans go to -o, in provesim's spans\n"
    "format: `provesim trace` draws them, `calibrate` fits a model from them.\n"
    "\n"
    "The utilization is the union of a GPU's kernel intervals (kernels on several streams\n"
    "count once) over the window's length; nvidia-smi's figure is the share of its sampling\n"
    "periods in which any kernel ran, which reads high for short, scattered kernels.\n"
    "\n"
    "options:\n"
    "  -o, --out FILE     the recording (spans, JSON Lines; default record.jsonl)\n"
    "  --duration S       record the first S seconds of the program's CUDA life, then stop\n"
    "                     recording and detach: the program runs on (for daemons)\n"
    "  --json             print a provesim.record/1 JSON document instead of the table\n"
    "  --name NAME        the recording's name in its header (default: the command)\n"
    "  -h, --help         this text\n"
    "\n"
    "environment: PROVESIM_RECORD_LIB names the injection library when it is not next to\n"
    "the provesim binary or in ../lib (it is built with CUDA and CUPTI: -DPROVESIM_CUDA=ON).\n"
    "\n"
    "exit codes: 0 recorded (the program exited 0, or runs on after --duration), 1 the\n"
    "program failed or nothing could be recorded, 2 bad arguments\n"
    "\n"
    "example:\n"
    "  provesim record -o run.jsonl -- python3 train.py --epochs 1\n"
    "  provesim record --duration 60 -o daemon.jsonl -- ./daemon --config prod.toml\n";

/* The injection library: $PROVESIM_RECORD_LIB, else next to this binary, else ../lib. */
static int find_lib(char *out, size_t n) {
  const char *env = getenv("PROVESIM_RECORD_LIB");
  if (env && *env) {
    snprintf(out, n, "%s", env);
    return access(out, R_OK) == 0;
  }
  char exe[PATH_MAX];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (k <= 0) return 0;
  exe[k] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return 0;
  *slash = 0;
  snprintf(out, n, "%s/libprovesim_record.so", exe);
  if (access(out, R_OK) == 0) return 1;
  snprintf(out, n, "%s/../lib/libprovesim_record.so", exe);
  return access(out, R_OK) == 0;
}

static mnvml *nvml_open(int *n) {
  ps_err e = {0};
  mnvml *m = NULL;
  if (mnvml_start(0, NULL, 0.05, &m, &e) != PS_OK) m = NULL;
  *n = mnvml_ndev(m);
  return m;
}

int prover_cmd_record(int argc, char **argv) {
  const char *out = "record.jsonl", *name = NULL;
  double duration = 0;
  int json = 0, i, rc = PS_EXIT_USAGE;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "--")) {
      i++;
      break;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(record_help, stdout);
      return PS_EXIT_OK;
    } else if (cli_is_opt(a, "-o") || cli_is_opt(a, "--out")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'o' ? "-o" : "--out"))) return cli_usage_error("record", "%s: expected a file", a);
      out = v;
    } else if (cli_is_opt(a, "--duration")) {
      if (!(v = cli_optval(argc, argv, &i, "--duration"))) return cli_usage_error("record", "%s", "--duration: expected seconds");
      if (ps_parse_num(v, &duration) || !(duration > 0) || duration > 1e7)
        return cli_usage_error("record", "--duration: expected seconds > 0, got \"%s\"", v);
    } else if (cli_is_opt(a, "--name")) {
      if (!(v = cli_optval(argc, argv, &i, "--name"))) return cli_usage_error("record", "%s", "--name: expected a name");
      name = v;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (a[0] == '-') {
      return cli_usage_error("record", "unknown option %s (the program's own options go after --)", a);
    } else {
      break; /* the command, without -- */
    }
  }
  if (i >= argc) return cli_usage_error("record", "%s", "expected the program to record: provesim record [options] -- COMMAND [ARGS...]");
  char **cmd = argv + i;
  if (cli_check_outputs("record", &out, 1)) return PS_EXIT_USAGE;
  char lib[PATH_MAX + 64];
  if (!find_lib(lib, sizeof lib)) {
    fprintf(stderr, "provesim record: no injection library (libprovesim_record.so) next to provesim or in ../lib: "
                    "this build has no CUDA/CUPTI (configure with -DPROVESIM_CUDA=ON), or set PROVESIM_RECORD_LIB\n");
    return PS_EXIT_FAIL;
  }
  ps_outfile of = {0};
  ps_err e = {0};
  if (ps_out_open(&of, out, &e) != PS_OK) {
    fprintf(stderr, "provesim record: %s\n", e.msg);
    return PS_EXIT_FAIL;
  }
  /* The library writes the file by its name; our handle stays open (and empty) so that
   * committing or removing it works as for any output. */
  const char *tmp = of.tmp ? of.tmp : out;
  int nn = 0;
  mnvml *nv = nvml_open(&nn);
  double t_start = ps_now();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "provesim record: fork: %s\n", strerror(errno));
    mnvml_stop(nv);
    ps_out_abort(&of);
    return PS_EXIT_FAIL;
  }
  if (pid == 0) {
    char dur[64];
    setenv("CUDA_INJECTION64_PATH", lib, 1);
    /* NVTX ranges go to the injection library too, which hands them to its CUPTI. */
    if (!getenv("NVTX_INJECTION64_PATH")) setenv("NVTX_INJECTION64_PATH", lib, 1);
    setenv("PROVESIM_RECORD_OUT", tmp, 1);
    setenv("PROVESIM_RECORD_NAME", name ? name : cmd[0], 1);
    if (duration > 0) {
      snprintf(dur, sizeof dur, "%.6f", duration);
      setenv("PROVESIM_RECORD_DURATION", dur, 1);
    } else {
      unsetenv("PROVESIM_RECORD_DURATION");
    }
    execvp(cmd[0], cmd);
    fprintf(stderr, "provesim record: cannot run %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  /* Ctrl-C reaches the program (same process group); the recorder waits for it. */
  signal(SIGINT, SIG_IGN);
  int status = 0, exited = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, duration > 0 ? WNOHANG : 0);
    if (w == pid) {
      exited = 1;
      break;
    }
    if (w < 0 && errno != EINTR) break;
    /* With --duration the library stops by itself; give it a second to flush. */
    if (duration > 0 && ps_now() > t_start + duration + 1.0) break;
    if (duration > 0) {
      struct timespec ts = {0, 20 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
  double t_end = ps_now();
  signal(SIGINT, SIG_DFL);
  record_summary rs;
  struct stat st;
  if (stat(tmp, &st) != 0 || st.st_size == 0) {
    fprintf(stderr, "provesim record: nothing recorded: %s made no CUDA call%s\n", cmd[0],
            exited && WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (it could not be started)" : "");
    mnvml_stop(nv);
    ps_out_abort(&of);
    return PS_EXIT_FAIL;
  }
  int lr = record_summarize(tmp, 0, NAN, &rs, &e);
  if (lr != PS_OK) {
    fprintf(stderr, "provesim record: %s\n", e.msg);
    mnvml_stop(nv);
    ps_out_abort(&of);
    return PS_EXIT_FAIL;
  }
  /* The window: from the library's start to the program's exit (or the duration's end). */
  double w1 = isnan(rs.t0_monotonic) ? rs.last : t_end - rs.t0_monotonic;
  if (duration > 0 && w1 > duration) w1 = duration;
  if (!(w1 > 0)) w1 = rs.last > 0 ? rs.last : 0;
  record_summarize(tmp, 0, w1, &rs, &e);
  int ng = rs.ngpus > nn ? rs.ngpus : nn;
  if (ng > PS_MAX_GPUS) ng = PS_MAX_GPUS;
  double nvm[PS_MAX_GPUS];
  mnvml_clk clk[PS_MAX_GPUS];
  for (int g = 0; g < ng; g++) {
    int cnt = 0, have = nv && g < nn && !isnan(rs.t0_monotonic);
    nvm[g] = have ? mnvml_mean(nv, g, rs.t0_monotonic, rs.t0_monotonic + w1, &cnt) : NAN;
    mnvml_clocks(have ? nv : NULL, g, rs.t0_monotonic, rs.t0_monotonic + w1, &clk[g]);
  }
  mnvml_stop(nv);
  if (ps_out_commit(&of, &e) != PS_OK) {
    fprintf(stderr, "provesim record: %s\n", e.msg);
    return PS_EXIT_FAIL;
  }
  ps_buf b = {0};
  if (json) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "provesim.record/1");
    cJSON_AddStringToObject(root, "spans", out);
    cJSON_AddNumberToObject(root, "window_s", w1);
    cJSON *arr = cJSON_AddArrayToObject(root, "gpus");
    for (int g = 0; g < ng; g++) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddNumberToObject(o, "gpu", g);
      report_json_num(o, "gpu_util", w1 > 0 ? rs.busy[g] / w1 : NAN);
      report_json_num(o, "gpu_util_nvml", nvm[g]);
      cJSON_AddNumberToObject(o, "kernels", (double)rs.kernels[g]);
      cJSON_AddNumberToObject(o, "memcpys", (double)rs.memcpys[g]);
      cJSON_AddItemToObject(o, "clock", mnvml_clk_json(&clk[g]));
      cJSON_AddItemToArray(arr, o);
    }
    cJSON_AddNumberToObject(root, "nvtx_ranges", (double)rs.nvtx);
    cJSON_AddNumberToObject(root, "launching_threads", rs.threads);
    cJSON_AddNumberToObject(root, "unattributed", (double)rs.unattributed);
    if (exited && WIFEXITED(status)) cJSON_AddNumberToObject(root, "exit_status", WEXITSTATUS(status));
    else cJSON_AddNullToObject(root, "exit_status");
    char *txt = cJSON_Print(root);
    ps_buf_printf(&b, "%s\n", txt);
    free(txt);
    cJSON_Delete(root);
  } else {
    ps_buf_printf(&b, "recorded %s: %.3f s of CUDA life%s; spans in %s\n", name ? name : cmd[0], w1,
                  exited ? "" : " (recording stopped; the program runs on)", out);
    ps_buf_printf(&b, "  %-4s %12s %12s %10s %10s\n", "GPU", "kernel-busy", "nvidia-smi", "kernels", "memcpys");
    for (int g = 0; g < ng; g++) {
      char nvs[32];
      snprintf(nvs, sizeof nvs, isnan(nvm[g]) ? "-" : "%.2f%%", 100 * nvm[g]);
      ps_buf_printf(&b, "  %-4d %11.2f%% %12s %10lld %10lld\n", g, w1 > 0 ? 100 * rs.busy[g] / w1 : 0.0, nvs,
                    (long long)rs.kernels[g], (long long)rs.memcpys[g]);
    }
    for (int g = 0; g < ng; g++) mnvml_clk_line(&b, g, &clk[g]);
    if (rs.nvtx) ps_buf_printf(&b, "  %lld NVTX ranges\n", (long long)rs.nvtx);
    if (rs.threads)
      ps_buf_printf(&b, "  launched from %d thread%s (the spans' worker)%s\n", rs.threads, rs.threads == 1 ? "" : "s",
                    rs.unattributed ? "; some kernels without their thread" : "");
  }
  rc = PS_EXIT_OK;
  if (exited && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    if (WIFEXITED(status)) fprintf(stderr, "provesim record: %s exited with status %d\n", cmd[0], WEXITSTATUS(status));
    else fprintf(stderr, "provesim record: %s ended by signal %d\n", cmd[0], WTERMSIG(status));
    rc = PS_EXIT_FAIL;
  }
  if (ps_write_stdout(b.p, b.len, &e) != PS_OK) {
    fprintf(stderr, "provesim record: %s\n", e.msg);
    rc = PS_EXIT_FAIL;
  }
  ps_buf_free(&b);
  return rc;
}
