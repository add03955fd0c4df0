/* The ordered farm of farm.h. On each rank a helper thread runs par_for over the rank's
 * items; a finished item waits in a ring of `window` slots until the caller's thread
 * takes it, and no item starts more than `window` items after the oldest one not yet
 * taken (the item at the front is always running or done, so this never deadlocks). On
 * rank 0 the caller's thread walks the items in order and takes each from its own ring or
 * receives it from the rank that computed it (farm_mpi.c); on the other ranks it sends
 * its items in order. Only the caller's thread calls MPI. */
#define _GNU_SOURCE
#include "farm.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "par.h"

/* What a rank says of its setup; rank 0 gathers one per rank. */
typedef struct farm_status {
  int32_t rc;
  char host[64];
  char msg[1024];
} farm_status;

/* A message from a rank: this header, then the item's bytes. */
typedef struct farm_hdr {
  int64_t item;
  int32_t rc, pad;
} farm_hdr;

typedef struct farm_slot {
  int ready, rc;
  ps_buf data;
} farm_slot;

typedef struct farm_local {
  size_t *items; /* this rank's items, increasing */
  size_t nitems, window, taken;
  farm_slot *slots; /* item k waits in slots[k % window] */
  int abort;        /* emit stopped: the items left are not computed */
  pthread_mutex_t mu;
  pthread_cond_t space, ready;
  farm_item_fn fn;
  void *ctx;
  int jobs;
} farm_local;

static void local_range(void *ctx, size_t lo, size_t hi) {
  farm_local *L = ctx;
  for (size_t k = lo; k < hi; k++) {
    pthread_mutex_lock(&L->mu);
    while (k >= L->taken + L->window) pthread_cond_wait(&L->space, &L->mu);
    int abort = L->abort;
    pthread_mutex_unlock(&L->mu);
    ps_buf b = {0};
    int rc = abort ? PS_ERR : L->fn(L->ctx, L->items[k], &b);
    pthread_mutex_lock(&L->mu);
    farm_slot *s = &L->slots[k % L->window];
    s->rc = rc;
    s->data = b;
    s->ready = 1;
    pthread_cond_broadcast(&L->ready);
    pthread_mutex_unlock(&L->mu);
  }
}

static void *local_main(void *p) {
  farm_local *L = p;
  par_for(L->nitems, 1, L->jobs, local_range, L, NULL, NULL);
  return NULL;
}

/* Item k of this rank, once computed: its code, its bytes moved into out. */
static int local_take(farm_local *L, size_t k, ps_buf *out) {
  pthread_mutex_lock(&L->mu);
  farm_slot *s = &L->slots[k % L->window];
  while (!s->ready) pthread_cond_wait(&L->ready, &L->mu);
  int rc = s->rc;
  ps_buf_free(out);
  *out = s->data;
  memset(&s->data, 0, sizeof s->data);
  s->ready = 0;
  L->taken = k + 1;
  pthread_cond_broadcast(&L->space);
  pthread_mutex_unlock(&L->mu);
  return rc;
}

/* Starts computing this rank's items; *th is set when a helper thread runs them. When no
 * thread can be started, the items are computed here and now, all at once. */
static void local_start(farm_local *L, pthread_t *th, int *started) {
  pthread_mutex_init(&L->mu, NULL);
  pthread_cond_init(&L->space, NULL);
  pthread_cond_init(&L->ready, NULL);
  *started = L->nitems > 0 && pthread_create(th, NULL, local_main, L) == 0;
  if (!*started && L->nitems > 0) {
    free(L->slots);
    L->window = L->nitems;
    L->slots = xcalloc(L->window, sizeof *L->slots);
    local_main(L);
  }
}

static void local_stop(farm_local *L, pthread_t th, int started) {
  if (started) pthread_join(th, NULL);
  for (size_t k = 0; k < L->window; k++) ps_buf_free(&L->slots[k].data);
  free(L->slots);
  pthread_mutex_destroy(&L->mu);
  pthread_cond_destroy(&L->space);
  pthread_cond_destroy(&L->ready);
}

static void status_fill(farm_status *s, int rc, const char *msg) {
  memset(s, 0, sizeof *s);
  s->rc = rc;
  if (gethostname(s->host, sizeof s->host - 1) != 0) snprintf(s->host, sizeof s->host, "?");
  snprintf(s->msg, sizeof s->msg, "%s", msg ? msg : "");
}

int farm_run(size_t n, const farm_opts *o, farm_item_fn fn, void *ctx, farm_emit_fn emit, void *ectx) {
  int size = farm_start(), rank = farm_rank();
  farm_status mine, *all = xcalloc((size_t)size, sizeof *all);
  status_fill(&mine, o->ready, o->ready_msg);
  farm__gather(&mine, sizeof mine, all);
  int64_t head[3] = {rank == 0 ? o->ready : 0, (int64_t)n, rank == 0 && o->skip};
  farm__bcast(head, sizeof head);
  if (head[0] != PS_OK) {
    free(all);
    return (int)head[0];
  }
  n = (size_t)head[1];
  unsigned char *skip = xcalloc(n ? n : 1, 1);
  if (head[2]) {
    if (rank == 0) memcpy(skip, o->skip, n);
    farm__bcast(skip, n);
  }

  /* The t-th item to compute belongs to rank t mod size. */
  farm_local L = {.fn = fn, .ctx = ctx, .jobs = o->jobs > 0 ? o->jobs : ps_ncores()};
  L.items = xcalloc(n / (size_t)size + 1, sizeof *L.items);
  for (size_t i = 0, t = 0; i < n; i++)
    if (!skip[i] && t++ % (size_t)size == (size_t)rank) L.items[L.nitems++] = i;
  L.window = o->window ? o->window : 32 * (size_t)L.jobs;
  L.slots = xcalloc(L.window, sizeof *L.slots);
  if (o->ready != PS_OK) L.nitems = 0; /* not ready: rank 0 reports its items */
  pthread_t th;
  int started = 0, rc = PS_OK;
  local_start(&L, &th, &started);
  ps_buf item = {0}, msg = {0};

  if (rank != 0) {
    for (size_t k = 0; k < L.nitems; k++) {
      farm_hdr h = {.item = (int64_t)L.items[k]};
      h.rc = local_take(&L, k, &item);
      msg.len = 0;
      ps_buf_append(&msg, (const char *)&h, sizeof h);
      ps_buf_append(&msg, item.p ? item.p : "", item.len);
      farm__send(msg.p, msg.len);
    }
    rc = o->ready;
  } else {
    int stopped = 0;
    size_t k0 = 0;
    for (size_t i = 0, t = 0; i < n; i++) {
      if (skip[i]) {
        if (!stopped && emit(ectx, i, FARM_SKIPPED, NULL, 0, 0)) stopped = 1;
        continue;
      }
      int owner = (int)(t++ % (size_t)size), irc;
      const char *data;
      size_t len;
      if (owner == 0) {
        irc = local_take(&L, k0++, &item);
        data = item.p ? item.p : "";
        len = item.len;
      } else if (all[owner].rc != PS_OK) {
        irc = all[owner].rc;
        item.len = 0;
        ps_buf_printf(&item, "rank %d (%s): %s", owner, all[owner].host, all[owner].msg);
        data = item.p;
        len = item.len;
      } else {
        farm__recv(owner, &msg);
        farm_hdr h;
        PS_ASSERT(msg.len >= sizeof h);
        memcpy(&h, msg.p, sizeof h);
        PS_ASSERT(h.item == (int64_t)i);
        irc = h.rc;
        data = msg.p + sizeof h;
        len = msg.len - sizeof h;
      }
      if (!stopped && emit(ectx, i, irc, data, len, owner)) {
        stopped = 1;
        pthread_mutex_lock(&L.mu);
        L.abort = 1;
        pthread_mutex_unlock(&L.mu);
      }
    }
    rc = stopped ? PS_ERR : PS_OK;
  }
  local_stop(&L, th, started);
  ps_buf_free(&item);
  ps_buf_free(&msg);
  free(L.items);
  free(skip);
  free(all);
  return rc;
}

int farm_agree(int rc, const char *msg, ps_err *e) {
  int size = farm_start(), rank = farm_rank();
  farm_status mine, *all = xcalloc((size_t)size, sizeof *all);
  status_fill(&mine, rc, msg);
  farm__gather(&mine, sizeof mine, all);
  int32_t code = PS_OK;
  if (rank == 0)
    for (int r = 0; r < size && code == PS_OK; r++)
      if (all[r].rc != PS_OK) {
        code = all[r].rc;
        if (r == 0)
          ps_fail(e, code, "%s", all[r].msg);
        else
          ps_fail(e, code, "rank %d (%s): %s", r, all[r].host, all[r].msg);
      }
  farm__bcast(&code, sizeof code);
  free(all);
  return code;
}

void farm_bcast(void *buf, size_t n) {
  farm__bcast(buf, n);
}

int farm_end(int code) {
  int32_t c = code;
  farm__bcast(&c, sizeof c);
  return c;
}
