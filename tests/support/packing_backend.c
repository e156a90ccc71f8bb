#define _POSIX_C_SOURCE 200809L
/* packing_backend.c — the "TestPacking" backend and its models (see packing_backend.h). */
#include "packing_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pte/io.h"
#include "pte/memory.h"
#include "pte/method.h"
#include "pte/writer.h"

char packing_fingerprint[33] = "x86-test/panel 8";
packing_stats_t packing_stats;
packing_prepare_mode packing_mode;

void packing_reset(void) {
  memset(&packing_stats, 0, sizeof packing_stats);
  packing_mode = PACKING_PREPARE_NORMAL;
  snprintf(packing_fingerprint, sizeof packing_fingerprint, "%s", "x86-test/panel 8");
}

static uint32_t ld32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static void st32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static size_t panels_floats(uint32_t rows, uint32_t cols) {
  return (size_t)((rows + PACKING_PANEL - 1) / PACKING_PANEL) * cols * PACKING_PANEL;
}

/* "PKP1" payload size */
static size_t packed_size(uint32_t rows, uint32_t cols) { return 64 + panels_floats(rows, cols) * sizeof(float); }

/* Packs W (rows x cols, row-major, possibly unaligned) into a "PKP1" payload at out. */
static void pack(const uint8_t *w, uint32_t rows, uint32_t cols, uint8_t *out) {
  memset(out, 0, 64);
  memcpy(out, "PKP1", 4);
  st32(out + 4, rows);
  st32(out + 8, cols);
  st32(out + 12, PACKING_PANEL);
  float *p = (float *)(void *)(out + 64);
  uint32_t np = (rows + PACKING_PANEL - 1) / PACKING_PANEL;
  for (uint32_t pi = 0; pi < np; pi++)
    for (uint32_t c = 0; c < cols; c++)
      for (uint32_t i = 0; i < PACKING_PANEL; i++) {
        uint32_t r = pi * PACKING_PANEL + i;
        float v = 0.0f;
        if (r < rows) memcpy(&v, w + ((size_t)r * cols + c) * sizeof(float), sizeof v);
        *p++ = v;
      }
  packing_stats.packed_bytes += (uint64_t)rows * cols * sizeof(float);
}

typedef struct pk_handle {
  uint32_t rows, cols;
  const float *panels;
  pte_freeable_buffer keep; /* named data buffer the panels point into */
  uint8_t *owned;
} pk_handle;

static pte_status parse_packed(const uint8_t *p, uint64_t size, pk_handle *h, pte_error_info *err) {
  if (size < 64 || memcmp(p, "PKP1", 4) != 0 || ld32(p + 12) != PACKING_PANEL)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "TestPacking: prepared payload is not PKP1");
  h->rows = ld32(p + 4);
  h->cols = ld32(p + 8);
  if (size < packed_size(h->rows, h->cols))
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "TestPacking: prepared payload truncated");
  h->panels = (const float *)(const void *)(p + 64);
  return PTE_OK;
}

static pte_status pk_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed, const pte_compile_spec *specs,
                          size_t n_specs, pte_delegate_handle **handle) {
  (void)specs;
  (void)n_specs;
  packing_stats.inits++;
  const uint8_t *b = (const uint8_t *)processed->data;
  size_t sz = processed->size;
  pk_handle *h = (pk_handle *)calloc(1, sizeof *h);
  if (!h) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  pte_status s = PTE_OK;
  size_t fpl = strlen(packing_fingerprint);
  pte_prepared_info pi;
  bool packed_blob = false;
  if (pte_prepared_is_envelope(b, sz)) {
    s = pte_prepared_envelope_check(b, sz, PACKING_BACKEND_ID, PACKING_FORMAT_VERSION, packing_fingerprint, fpl, &pi,
                                    ctx->err);
    if (s == PTE_OK && pi.payload_size >= 4 && memcmp(pi.payload, "PKW1", 4) == 0) {
      b = (const uint8_t *)pi.payload; /* sealed portable blob (prepare replaced its named weights) */
      sz = (size_t)pi.payload_size;
    } else {
      packed_blob = true;
    }
  }
  if (s != PTE_OK) {
  } else if (packed_blob) {
    /* a prepared processed blob: panels in place, the runtime keeps the blob until destroy */
    s = parse_packed(pi.payload, pi.payload_size, h, ctx->err);
    if (s == PTE_OK) packing_stats.direct++;
  } else if (sz >= 64 && memcmp(b, "PKW1", 4) == 0) {
    h->rows = ld32(b + 4);
    h->cols = ld32(b + 8);
    uint64_t wbytes = (uint64_t)h->rows * h->cols * sizeof(float);
    if (ld32(b + 12) & 1) {
      char key[49];
      memcpy(key, b + 16, 48);
      key[48] = 0;
      pte_freeable_buffer w;
      s = pte_named_data_map_get_data(ctx->named_data_map, key, &w);
      if (s != PTE_OK) {
        pte_error_set(ctx->err, s, "TestPacking: weights '%s' not found", key);
      } else if (pte_prepared_is_envelope(w.data, w.size)) {
        s = pte_prepared_envelope_check(w.data, w.size, PACKING_BACKEND_ID, PACKING_FORMAT_VERSION, packing_fingerprint,
                                        fpl, &pi, ctx->err);
        uint32_t rows = h->rows, cols = h->cols;
        if (s == PTE_OK) s = parse_packed(pi.payload, pi.payload_size, h, ctx->err);
        if (s == PTE_OK && (h->rows != rows || h->cols != cols))
          s = pte_error_set(ctx->err, PTE_ERR_INVALID_PROGRAM, "TestPacking: prepared shape differs");
        if (s == PTE_OK) {
          h->keep = w;
          packing_stats.direct++;
        } else {
          pte_freeable_buffer_free(&w);
        }
      } else if (w.size != wbytes) {
        pte_freeable_buffer_free(&w);
        s = pte_error_set(ctx->err, PTE_ERR_INVALID_PROGRAM, "TestPacking: weights '%s' have %zu bytes", key, w.size);
      } else {
        h->owned = (uint8_t *)aligned_alloc(64, (packed_size(h->rows, h->cols) + 63) / 64 * 64);
        if (!h->owned) s = PTE_ERR_MEMORY_ALLOCATION_FAILED;
        else {
          pack((const uint8_t *)w.data, h->rows, h->cols, h->owned);
          h->panels = (const float *)(const void *)(h->owned + 64);
          packing_stats.packs++;
        }
        pte_freeable_buffer_free(&w);
      }
    } else if (sz < 64 + wbytes) {
      s = pte_error_set(ctx->err, PTE_ERR_INVALID_PROGRAM, "TestPacking: blob truncated");
    } else {
      h->owned = (uint8_t *)aligned_alloc(64, (packed_size(h->rows, h->cols) + 63) / 64 * 64);
      if (!h->owned) s = PTE_ERR_MEMORY_ALLOCATION_FAILED;
      else {
        pack(b + 64, h->rows, h->cols, h->owned);
        h->panels = (const float *)(const void *)(h->owned + 64);
        packing_stats.packs++;
        pte_freeable_buffer_free(processed); /* the portable copy is not needed any more */
      }
    }
  } else {
    s = pte_error_set(ctx->err, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY, "TestPacking: unknown blob format");
  }
  if (s != PTE_OK) {
    free(h->owned);
    free(h);
    return s;
  }
  *handle = h;
  return PTE_OK;
}

static pte_status pk_execute(pte_backend_execution_context *ctx, pte_delegate_handle *handle, pte_evalue **args,
                             size_t nargs) {
  pk_handle *h = (pk_handle *)handle;
  packing_stats.executes++;
  if (nargs != 2 || args[0]->tag != PTE_TAG_TENSOR || args[1]->tag != PTE_TAG_TENSOR)
    return pte_error_set(ctx->err, PTE_ERR_INVALID_ARGUMENT, "TestPacking: expects (in, out) tensors");
  const pte_tensor *in = args[0]->u.tensor;
  pte_tensor *out = args[1]->u.tensor;
  if (in->numel != h->cols || out->numel != h->rows || !in->data || !out->data)
    return pte_error_set(ctx->err, PTE_ERR_INVALID_ARGUMENT, "TestPacking: shape mismatch");
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  uint32_t np = (h->rows + PACKING_PANEL - 1) / PACKING_PANEL;
  for (uint32_t pi = 0; pi < np; pi++) {
    float acc[PACKING_PANEL] = {0};
    const float *p = h->panels + (size_t)pi * h->cols * PACKING_PANEL;
    for (uint32_t c = 0; c < h->cols; c++)
      for (uint32_t i = 0; i < PACKING_PANEL; i++) acc[i] += p[(size_t)c * PACKING_PANEL + i] * x[c];
    for (uint32_t i = 0; i < PACKING_PANEL && pi * PACKING_PANEL + i < h->rows; i++) y[pi * PACKING_PANEL + i] = acc[i];
  }
  return PTE_OK;
}

static void pk_destroy(pte_delegate_handle *handle) {
  pk_handle *h = (pk_handle *)handle;
  packing_stats.destroys++;
  pte_freeable_buffer_free(&h->keep);
  free(h->owned);
  free(h);
}

/* ---- the prepare hook ------------------------------------------------------------------------- */

static uint8_t *payload_buffer(pte_backend_data_context *ctx, size_t n, bool *heap) {
  uint8_t *p = ctx->temp_allocator ? (uint8_t *)pte_allocator_alloc(ctx->temp_allocator, n, 64) : NULL;
  *heap = false;
  if (!p) {
    p = (uint8_t *)malloc(n);
    *heap = p != NULL;
  }
  return p;
}

static pte_status pk_prepare(pte_backend_data_context *ctx, pte_backend_data_output *out) {
  packing_stats.prepares++;
  if (packing_mode == PACKING_PREPARE_FAIL)
    return pte_error_set(ctx->err, PTE_ERR_INVALID_PROGRAM, "TestPacking refuses to prepare (test)");
  pte_status s = PTE_OK;
  if (packing_mode != PACKING_PREPARE_NO_ENVELOPE)
    s = pte_backend_data_set_envelope(out, PACKING_FORMAT_VERSION, packing_fingerprint, strlen(packing_fingerprint));
  if (s != PTE_OK) return s;
  if (packing_mode == PACKING_PREPARE_BAD_INDEX) return pte_replace_backend_data(out, 99, "x", 1);
  if (packing_mode == PACKING_PREPARE_UNKNOWN_KEY) {
    const char *k = "no-such-key";
    pte_prepared_value v = {"x", 1};
    return pte_write_named_data(out, &k, &v, 1);
  }
  size_t fpl = strlen(packing_fingerprint);
  pte_backend_data item;
  while ((s = pte_next_backend_data(ctx, &item)) == PTE_OK) {
    packing_stats.prepare_blobs++;
    if (ctx->temp_allocator && ctx->temp_allocator->used > packing_stats.temp_used_at_next_max)
      packing_stats.temp_used_at_next_max = ctx->temp_allocator->used;
    const uint8_t *b = (const uint8_t *)item.processed;
    size_t sz = item.processed_size;
    if (pte_prepared_is_envelope(b, sz)) {
      s = pte_prepared_envelope_check(b, sz, PACKING_BACKEND_ID, PACKING_FORMAT_VERSION, packing_fingerprint, fpl, NULL,
                                      ctx->err);
      if (s != PTE_OK) return s; /* prepared for another device: needs the portable model */
      continue;                  /* prepared already for this device */
    }
    if (sz < 64 || memcmp(b, "PKW1", 4) != 0)
      return pte_error_set(ctx->err, PTE_ERR_INVALID_PROGRAM, "TestPacking: unknown blob in %s", item.method_name);
    uint32_t rows = ld32(b + 4), cols = ld32(b + 8);
    size_t n = packed_size(rows, cols);
    bool heap = false;
    if (ld32(b + 12) & 1) {
      char key[49];
      memcpy(key, b + 16, 48);
      key[48] = 0;
      pte_freeable_buffer w;
      if ((s = pte_named_data_map_get_data(ctx->named_data_map, key, &w)) != PTE_OK) return s;
      if (pte_prepared_is_envelope(w.data, w.size)) {
        s = pte_prepared_envelope_check(w.data, w.size, PACKING_BACKEND_ID, PACKING_FORMAT_VERSION, packing_fingerprint,
                                        fpl, NULL, ctx->err);
        pte_freeable_buffer_free(&w);
        if (s != PTE_OK) return s;
        continue;
      }
      if (w.size != (size_t)rows * cols * sizeof(float)) {
        pte_freeable_buffer_free(&w);
        return pte_error_set(ctx->err, PTE_ERR_INVALID_PROGRAM, "TestPacking: weights '%s' size", key);
      }
      uint8_t *p = payload_buffer(ctx, n, &heap);
      if (!p) {
        pte_freeable_buffer_free(&w);
        return PTE_ERR_MEMORY_ALLOCATION_FAILED;
      }
      pack((const uint8_t *)w.data, rows, cols, p);
      pte_freeable_buffer_free(&w);
      const char *k = key;
      pte_prepared_value v = {p, n};
      s = pte_write_named_data(out, &k, &v, 1);
      if (heap) free(p);
    } else {
      if (sz < 64 + (size_t)rows * cols * sizeof(float))
        return pte_error_set(ctx->err, PTE_ERR_INVALID_PROGRAM, "TestPacking: blob truncated");
      uint8_t *p = payload_buffer(ctx, n, &heap);
      if (!p) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
      pack(b + 64, rows, cols, p);
      s = pte_replace_backend_data(out, item.index, p, n);
      if (heap) free(p);
    }
    if (s != PTE_OK) return s;
  }
  if (s != PTE_PREPARE_END_OF_INPUT) return s;
  return packing_mode == PACKING_PREPARE_NOT_SUPPORTED_AFTER_WRITE ? PTE_ERR_NOT_SUPPORTED : PTE_OK;
}

const pte_backend packing_backend = {NULL, pk_init, pk_execute, pk_destroy, pk_prepare};

pte_status packing_backend_register(void) {
  const pte_backend *cur = pte_get_backend(PACKING_BACKEND_ID);
  if (cur == &packing_backend) return PTE_OK;
  return pte_register_backend(PACKING_BACKEND_ID, &packing_backend);
}

/* ---- models ----------------------------------------------------------------------------------- */

const char *packing_key(size_t k, char *buf, size_t n) {
  snprintf(buf, n, "w%zu", k);
  return buf;
}

float *packing_weights(const packing_model_spec *spec, size_t k) {
  size_t nn = (size_t)spec->n * spec->n;
  float *w = (float *)malloc(nn * sizeof(float) + 1);
  if (!w) return NULL;
  uint32_t x = spec->seed * 2654435761u + (uint32_t)k * 40503u + 1u;
  for (size_t i = 0; i < nn; i++) {
    x = x * 1664525u + 1013904223u;
    w[i] = (float)((int)((x >> 24) % 17) - 8) / 16.0f;
  }
  return w;
}

/* Pattern bytes of extra blob j (callback source: nothing held in memory). */
static pte_status pattern_read(void *ctx, uint64_t offset, void *dst, size_t size, pte_error_info *err) {
  (void)err;
  uint64_t j = (uint64_t)(uintptr_t)ctx;
  uint8_t *d = (uint8_t *)dst;
  for (size_t i = 0; i < size; i++) d[i] = (uint8_t)((offset + i) * 7 + 3 + j * 31 + ((offset + i) >> 12));
  return PTE_OK;
}

static pte_status extra_method(pte_writer *w, const char *name, const char *id, size_t blob_size, uint32_t count,
                               uint32_t n, pte_error_info *err) {
  uint32_t m = 0, chain = 0;
  int32_t v[2];
  pte_status s = pte_writer_add_method(w, name, &m, err);
  for (int k = 0; k < 2 && s == PTE_OK; k++) {
    pte_wr_tensor t;
    memset(&t, 0, sizeof t);
    int32_t sizes[1] = {(int32_t)n};
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = 1;
    t.sizes = sizes;
    t.plan = PTE_WR_PLAN_EXPLICIT;
    t.mem_id = 1;
    t.mem_offset = (uint64_t)k * ((n * 4 + 15) / 16 * 16);
    s = pte_writer_add_tensor(w, m, &t, &v[k], err);
  }
  if (s == PTE_OK) s = pte_writer_set_inputs(w, m, &v[0], 1, err);
  if (s == PTE_OK) s = pte_writer_set_outputs(w, m, &v[1], 1, err);
  if (s == PTE_OK) s = pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &chain, err);
  for (uint32_t j = 0; j < count && s == PTE_OK; j++) {
    pte_source src = pte_source_callback(pattern_read, (void *)(uintptr_t)(j + (uint32_t)strlen(name)), blob_size);
    uint32_t b = 0, d = 0;
    s = pte_writer_add_blob(w, &src, &b, err);
    pte_wr_delegate wd;
    memset(&wd, 0, sizeof wd);
    wd.id = id;
    wd.blob = b;
    if (s == PTE_OK) s = pte_writer_add_delegate(w, m, &wd, &d, err);
    if (s == PTE_OK) s = pte_writer_add_delegate_call(w, m, chain, d, v, 2, NULL, err);
  }
  return s;
}

uint8_t *packing_model_build(const packing_model_spec *spec, size_t *size, pte_error_info *err) {
  if (!spec || spec->n == 0 || spec->n_layers == 0 || spec->n_layers > 16) return NULL;
  pte_writer *w = NULL;
  pte_writer_options o;
  memset(&o, 0, sizeof o);
  if (pte_writer_create(&o, &w, err) != PTE_OK) return NULL;
  void *keep[40];
  size_t n_keep = 0;
  uint8_t *copy = NULL;
  uint32_t wblob[16], dblob[16], method = 0, chain = 0;
  int32_t vals[17];
  size_t wbytes = (size_t)spec->n * spec->n * sizeof(float);
  pte_status s = PTE_OK;
  for (size_t k = 0; k < spec->n_layers && s == PTE_OK; k++) {
    const packing_layer *L = &spec->layers[k];
    if (L->same_as >= 0 && (size_t)L->same_as < k) {
      wblob[k] = wblob[L->same_as];
      dblob[k] = dblob[L->same_as];
      continue;
    }
    float *wt = packing_weights(spec, k);
    uint8_t *blob = (uint8_t *)calloc(1, 64 + (L->named ? 0 : wbytes));
    if (!wt || !blob) {
      free(wt);
      free(blob);
      s = PTE_ERR_MEMORY_ALLOCATION_FAILED;
      break;
    }
    keep[n_keep++] = wt;
    keep[n_keep++] = blob;
    memcpy(blob, "PKW1", 4);
    st32(blob + 4, spec->n);
    st32(blob + 8, spec->n);
    st32(blob + 12, L->named ? 1 : 0);
    if (L->named) {
      char key[48];
      packing_key(k, key, sizeof key);
      memcpy(blob + 16, key, strlen(key));
      pte_source ws = pte_source_memory(wt, wbytes);
      s = pte_writer_add_blob(w, &ws, &wblob[k], err);
      if (s == PTE_OK) s = pte_writer_add_named_data(w, key, wblob[k], 16, err);
      if (s == PTE_OK && k == 0 && spec->alias_key) s = pte_writer_add_named_data(w, "alias", wblob[k], 16, err);
    } else {
      memcpy(blob + 64, wt, wbytes);
      wblob[k] = UINT32_MAX;
    }
    pte_source bs = pte_source_memory(blob, 64 + (L->named ? 0 : wbytes));
    if (s == PTE_OK) s = pte_writer_add_blob(w, &bs, &dblob[k], err);
  }
  if (s == PTE_OK) s = pte_writer_add_method(w, "forward", &method, err);
  uint64_t stride = ((uint64_t)spec->n * 4 + 15) / 16 * 16;
  for (size_t k = 0; k <= spec->n_layers && s == PTE_OK; k++) {
    pte_wr_tensor t;
    memset(&t, 0, sizeof t);
    int32_t sizes[1] = {(int32_t)spec->n};
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = 1;
    t.sizes = sizes;
    t.plan = PTE_WR_PLAN_EXPLICIT;
    t.mem_id = 1;
    t.mem_offset = stride * k;
    s = pte_writer_add_tensor(w, method, &t, &vals[k], err);
  }
  if (s == PTE_OK) s = pte_writer_set_inputs(w, method, &vals[0], 1, err);
  if (s == PTE_OK) s = pte_writer_set_outputs(w, method, &vals[spec->n_layers], 1, err);
  if (s == PTE_OK) s = pte_writer_add_chain(w, method, NULL, 0, NULL, 0, &chain, err);
  for (size_t k = 0; k < spec->n_layers && s == PTE_OK; k++) {
    pte_wr_delegate wd;
    memset(&wd, 0, sizeof wd);
    wd.id = PACKING_BACKEND_ID;
    wd.blob = dblob[k];
    pte_wr_compile_spec cs = {"layer", &k, sizeof k};
    wd.compile_specs = &cs;
    wd.n_compile_specs = 1;
    uint32_t d = 0;
    s = pte_writer_add_delegate(w, method, &wd, &d, err);
    int32_t args[2] = {vals[k], vals[k + 1]};
    if (s == PTE_OK) s = pte_writer_add_delegate_call(w, method, chain, d, args, 2, NULL, err);
  }
  if (s == PTE_OK && spec->foreign_id) s = extra_method(w, "foreign", spec->foreign_id, 256, 1, spec->n, err);
  if (s == PTE_OK && spec->passthrough_delegate)
    s = extra_method(w, "passthrough", "TestPassthrough", spec->passthrough_size ? spec->passthrough_size : 4096,
                     spec->n_passthrough ? spec->n_passthrough : 1, spec->n, err);
  if (s == PTE_OK) {
    pte_memory_writer mw;
    pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
    if (pte_writer_write(w, &mw.base, err) == PTE_OK) {
      size_t n = 0;
      const uint8_t *d = pte_memory_writer_data(&mw, &n);
      copy = (uint8_t *)aligned_alloc(64, (n + 64 + 63) / 64 * 64);
      if (copy) {
        memcpy(copy, d, n);
        memset(copy + n, 0, 64);
        *size = n;
      }
    }
    pte_data_writer_destroy(&mw.base);
  } else if (err && !err->msg[0]) {
    pte_error_set(err, s, "packing model: build failed");
  }
  pte_writer_destroy(w);
  for (size_t i = 0; i < n_keep; i++) free(keep[i]);
  return copy;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

pte_status packing_model_run(const uint8_t *bytes, size_t size, uint32_t n, const float *x, float *y, uint64_t *load_ns,
                             pte_error_info *err) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, size);
  pte_program prog;
  pte_status s = pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, err);
  if (s != PTE_OK) return s;
  pte_method_meta meta;
  uint64_t bsize = 0;
  uint8_t *planned_mem = NULL, *pool = NULL;
  pte_method *m = NULL;
  s = pte_method_meta_get(&prog, "forward", &meta, err);
  if (s == PTE_OK && pte_method_meta_num_planned_buffers(&meta) != 1)
    s = pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "packing model: expected one planned buffer");
  if (s == PTE_OK) pte_method_meta_planned_buffer_size(&meta, 0, &bsize);
  size_t pool_size = (size_t)1 << 20;
  if (s == PTE_OK) {
    planned_mem = (uint8_t *)calloc(1, (size_t)bsize + 64);
    pool = (uint8_t *)calloc(1, pool_size);
    if (!planned_mem || !pool) s = PTE_ERR_MEMORY_ALLOCATION_FAILED;
  }
  if (s == PTE_OK) {
    pte_allocator ma;
    pte_allocator_init(&ma, pool, pool_size);
    pte_planned_buffer pb = {planned_mem, (size_t)bsize};
    pte_memory_manager mm;
    pte_memory_manager_init(&mm, &ma, &pb, 1, NULL);
    uint64_t t0 = now_ns();
    s = pte_method_load(&prog, "forward", &mm, NULL, NULL, &m, err);
    if (load_ns) *load_ns = now_ns() - t0;
    int32_t sizes[1] = {(int32_t)n};
    if (s == PTE_OK) s = pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, sizes, 1, x, sizeof(float) * n, err);
    if (s == PTE_OK) s = pte_method_execute(m, err);
    if (s == PTE_OK) {
      const pte_evalue *o = pte_method_get_output(m, 0);
      if (!o || o->tag != PTE_TAG_TENSOR || !o->u.tensor->data) s = PTE_ERR_INTERNAL;
      else memcpy(y, o->u.tensor->data, sizeof(float) * n);
    }
    pte_method_destroy(m);
  }
  free(planned_mem);
  free(pool);
  pte_program_destroy(&prog);
  return s;
}
