/* tests/support/ktest.c — see ktest.h. */
#include "support/ktest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/allocator.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "portable/util/kutil.h"

typedef struct kt_block {
  struct kt_block *next;
  void *ptr;
} kt_block;

static kt_block *g_blocks;

static void *kt_alloc(size_t n) {
  void *p = NULL;
  size_t rounded = (n + 63u) / 64u * 64u;
  if (rounded == 0) rounded = 64;
  p = aligned_alloc(64, rounded);
  if (!p) return NULL;
  memset(p, 0, rounded);
  kt_block *b = (kt_block *)malloc(sizeof *b);
  if (!b) {
    free(p);
    return NULL;
  }
  b->ptr = p;
  b->next = g_blocks;
  g_blocks = b;
  return p;
}

void ktest_free_all(void) {
  while (g_blocks) {
    kt_block *b = g_blocks;
    g_blocks = b->next;
    free(b->ptr);
    free(b);
  }
}

static pte_tensor *kt_make(int dtype, int32_t dim, const int32_t *sizes, const uint8_t *dim_order,
                           size_t capacity_elems, bool use_capacity) {
  if (dim < 0 || dim > PTE_MAX_RANK) return NULL;
  size_t dn = dim > 0 ? (size_t)dim : 1;
  uint8_t *mem = (uint8_t *)kt_alloc(sizeof(pte_tensor) + dn * (2 * sizeof(int32_t) + 1));
  if (!mem) return NULL;
  pte_tensor *t = (pte_tensor *)mem;
  t->sizes = (int32_t *)(mem + sizeof(pte_tensor));
  t->strides = t->sizes + dn;
  uint8_t *order = (uint8_t *)(t->strides + dn);
  t->dim_order = order;
  t->dim = dim;
  t->dtype = (uint8_t)dtype;
  size_t numel = 1;
  for (int32_t d = 0; d < dim; d++) {
    t->sizes[d] = sizes[d];
    order[d] = dim_order ? dim_order[d] : (uint8_t)d;
    numel *= (size_t)sizes[d];
  }
  /* strides from dim_order: innermost (last in dim_order) has stride 1 */
  int64_t s = 1;
  for (int32_t k = dim - 1; k >= 0; k--) {
    int d = order[k];
    t->strides[d] = (int32_t)s;
    s *= sizes[d] > 0 ? sizes[d] : 1;
  }
  t->numel = numel;
  size_t cap = use_capacity ? capacity_elems : numel;
  t->capacity_bytes = cap * pte_dtype_size(dtype);
  t->data = kt_alloc(t->capacity_bytes);
  t->dynamism = use_capacity ? PTE_SHAPE_DYNAMIC_BOUND : PTE_SHAPE_STATIC;
  return t->data ? t : NULL;
}

pte_tensor *ktest_tensor(int dtype, int32_t dim, const int32_t *sizes, const uint8_t *dim_order,
                         const double *values) {
  pte_tensor *t = kt_make(dtype, dim, sizes, dim_order, 0, false);
  if (t && values)
    for (size_t i = 0; i < t->numel; i++)
      pte_k_store_double(t->data, dtype, pte_k_offset_of_linear(t, i), values[i]);
  return t;
}

pte_tensor *ktest_tensor_i64(int dtype, int32_t dim, const int32_t *sizes,
                             const uint8_t *dim_order, const int64_t *values) {
  pte_tensor *t = kt_make(dtype, dim, sizes, dim_order, 0, false);
  if (t && values)
    for (size_t i = 0; i < t->numel; i++)
      pte_k_store_int64(t->data, dtype, pte_k_offset_of_linear(t, i), values[i]);
  return t;
}

pte_tensor *ktest_tensor_dyn(int dtype, int32_t dim, const int32_t *sizes, const uint8_t *dim_order,
                             size_t capacity_elems) {
  return kt_make(dtype, dim, sizes, dim_order, capacity_elems, true);
}

pte_tensor *ktest_tensor_raw(int dtype, int32_t dim, const int32_t *sizes,
                             const uint8_t *dim_order, const void *bytes, size_t nbytes) {
  pte_tensor *t = kt_make(dtype, dim, sizes, dim_order, 0, false);
  if (t && bytes) memcpy(t->data, bytes, nbytes < t->capacity_bytes ? nbytes : t->capacity_bytes);
  return t;
}

static pte_evalue *kt_ev(uint32_t tag) {
  pte_evalue *v = (pte_evalue *)kt_alloc(sizeof *v);
  if (v) v->tag = tag;
  return v;
}

pte_evalue *ktest_ev_tensor(pte_tensor *t) {
  pte_evalue *v = kt_ev(PTE_TAG_TENSOR);
  if (v) v->u.tensor = t;
  return v;
}
pte_evalue *ktest_ev_int(int64_t x) {
  pte_evalue *v = kt_ev(PTE_TAG_INT);
  if (v) v->u.i = x;
  return v;
}
pte_evalue *ktest_ev_double(double x) {
  pte_evalue *v = kt_ev(PTE_TAG_DOUBLE);
  if (v) v->u.d = x;
  return v;
}
pte_evalue *ktest_ev_bool(bool x) {
  pte_evalue *v = kt_ev(PTE_TAG_BOOL);
  if (v) v->u.b = x;
  return v;
}
pte_evalue *ktest_ev_none(void) { return kt_ev(PTE_TAG_NONE); }
pte_evalue *ktest_ev_string(const char *s) {
  pte_evalue *v = kt_ev(PTE_TAG_STRING);
  if (v) {
    v->u.str.ptr = s;
    v->u.str.len = strlen(s);
  }
  return v;
}

pte_evalue *ktest_ev_int_list(const int64_t *values, size_t n) {
  pte_evalue *v = kt_ev(PTE_TAG_LIST_INT);
  if (!v) return NULL;
  v->u.int_list.items = (pte_evalue **)kt_alloc((n ? n : 1) * sizeof(pte_evalue *));
  v->u.int_list.unboxed = (int64_t *)kt_alloc((n ? n : 1) * sizeof(int64_t));
  v->u.int_list.len = n;
  for (size_t i = 0; i < n; i++) v->u.int_list.items[i] = ktest_ev_int(values[i]);
  return v;
}

pte_evalue *ktest_ev_tensor_list(pte_tensor *const *ts, size_t n) {
  pte_evalue *v = kt_ev(PTE_TAG_LIST_TENSOR);
  if (!v) return NULL;
  v->u.tensor_list.items = (pte_evalue **)kt_alloc((n ? n : 1) * sizeof(pte_evalue *));
  v->u.tensor_list.len = n;
  for (size_t i = 0; i < n; i++) v->u.tensor_list.items[i] = ktest_ev_tensor(ts[i]);
  return v;
}

pte_evalue *ktest_ev_opt_tensor_list(pte_tensor *const *ts, size_t n) {
  pte_evalue *v = kt_ev(PTE_TAG_LIST_OPTIONAL_TENSOR);
  if (!v) return NULL;
  v->u.opt_tensor_list.items = (pte_evalue **)kt_alloc((n ? n : 1) * sizeof(pte_evalue *));
  v->u.opt_tensor_list.len = n;
  for (size_t i = 0; i < n; i++)
    v->u.opt_tensor_list.items[i] = ts[i] ? ktest_ev_tensor(ts[i]) : NULL;
  return v;
}

pte_evalue *ktest_ev_double_list(const double *values, size_t n) {
  pte_evalue *v = kt_ev(PTE_TAG_LIST_DOUBLE);
  if (!v) return NULL;
  double *items = (double *)kt_alloc((n ? n : 1) * sizeof(double));
  for (size_t i = 0; i < n; i++) items[i] = values[i];
  v->u.double_list.items = items;
  v->u.double_list.len = n;
  return v;
}

pte_evalue *ktest_ev_bool_list(const bool *values, size_t n) {
  pte_evalue *v = kt_ev(PTE_TAG_LIST_BOOL);
  if (!v) return NULL;
  uint8_t *items = (uint8_t *)kt_alloc(n ? n : 1);
  for (size_t i = 0; i < n; i++) items[i] = values[i] ? 1 : 0;
  v->u.bool_list.items = items;
  v->u.bool_list.len = n;
  return v;
}

pte_op_fn ktest_find(const pte_kernel *table, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (table[i].key == NULL && strcmp(table[i].name, name) == 0) return table[i].fn;
  return NULL;
}

static char g_last_msg[sizeof(((pte_kernel_context *)0)->msg)];

static pte_status kt_run(pte_op_fn fn, pte_evalue **args, size_t nargs, bool with_temp) {
  g_last_msg[0] = 0;
  if (!fn) return PTE_ERR_OPERATOR_MISSING;
  static uint8_t *temp_mem;
  const size_t temp_size = (size_t)1 << 20;
  if (!temp_mem) {
    temp_mem = (uint8_t *)malloc(temp_size);
    if (!temp_mem) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  }
  pte_allocator temp;
  pte_allocator_init(&temp, temp_mem, temp_size);
  pte_kernel_context ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.failure = PTE_OK;
  ctx.temp = with_temp ? &temp : NULL;
  ctx.op_name = "test";
  fn(&ctx, args, nargs);
  memcpy(g_last_msg, ctx.msg, sizeof g_last_msg);
  g_last_msg[sizeof g_last_msg - 1] = 0;
  return ctx.failure;
}

pte_status ktest_run(pte_op_fn fn, pte_evalue **args, size_t nargs) {
  return kt_run(fn, args, nargs, true);
}
pte_status ktest_run_no_temp(pte_op_fn fn, pte_evalue **args, size_t nargs) {
  return kt_run(fn, args, nargs, false);
}
const char *ktest_last_msg(void) { return g_last_msg; }

double ktest_get(const pte_tensor *t, size_t li) {
  return pte_k_load_double(t->data, t->dtype, pte_k_offset_of_linear(t, li));
}
int64_t ktest_get_i64(const pte_tensor *t, size_t li) {
  return pte_k_load_int64(t->data, t->dtype, pte_k_offset_of_linear(t, li));
}
uint16_t ktest_get_u16(const pte_tensor *t, size_t li) {
  return ((const uint16_t *)t->data)[pte_k_offset_of_linear(t, li)];
}

bool ktest_expect(const pte_tensor *t, const double *expected, size_t n, double tol) {
  if (!t) {
    fprintf(stderr, "    ktest_expect: NULL tensor\n");
    return false;
  }
  if (t->numel != n) {
    fprintf(stderr, "    ktest_expect: numel %zu, expected %zu\n", t->numel, n);
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    double a = ktest_get(t, i), e = expected[i];
    bool same = (isnan(a) && isnan(e)) || a == e || fabs(a - e) <= tol;
    if (!same) {
      fprintf(stderr, "    element %zu: got %.9g, expected %.9g\n", i, a, e);
      ok = false;
    }
  }
  return ok;
}

bool ktest_expect_i64(const pte_tensor *t, const int64_t *expected, size_t n) {
  if (!t || t->numel != n) {
    fprintf(stderr, "    ktest_expect_i64: numel %zu, expected %zu\n", t ? t->numel : 0, n);
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    int64_t a = ktest_get_i64(t, i);
    if (a != expected[i]) {
      fprintf(stderr, "    element %zu: got %lld, expected %lld\n", i, (long long)a,
              (long long)expected[i]);
      ok = false;
    }
  }
  return ok;
}

bool ktest_expect_shape(const pte_tensor *t, int32_t dim, const int32_t *sizes) {
  bool ok = t && t->dim == dim;
  for (int32_t d = 0; ok && d < dim; d++) ok = t->sizes[d] == sizes[d];
  if (!ok) {
    fprintf(stderr, "    shape mismatch: got [");
    for (int32_t d = 0; t && d < t->dim; d++) fprintf(stderr, "%s%d", d ? "," : "", t->sizes[d]);
    fprintf(stderr, "], expected [");
    for (int32_t d = 0; d < dim; d++) fprintf(stderr, "%s%d", d ? "," : "", sizes[d]);
    fprintf(stderr, "]\n");
  }
  return ok;
}

pte_tensor *ktest_dyn(int dtype, int32_t dim, size_t cap) {
  int32_t ones[PTE_MAX_RANK];
  for (int i = 0; i < PTE_MAX_RANK; i++) ones[i] = 1;
  return ktest_tensor_dyn(dtype, dim, ones, NULL, cap);
}

pte_tensor *ktest_scalar(int dtype) { return ktest_tensor(dtype, 0, NULL, NULL, NULL); }

pte_tensor *ktest_index1(int32_t n, const double *values) {
  return ktest_tensor(PTE_DTYPE_LONG, 1, &n, NULL, values);
}

double *ktest_iota(size_t n) {
  static double buf[256];
  for (size_t i = 0; i < n && i < 256; i++) buf[i] = (double)i;
  return buf;
}

const int ktest_num_dtypes[9] = {PTE_DTYPE_BYTE,  PTE_DTYPE_CHAR,  PTE_DTYPE_SHORT,
                                 PTE_DTYPE_INT,   PTE_DTYPE_LONG,  PTE_DTYPE_HALF,
                                 PTE_DTYPE_FLOAT, PTE_DTYPE_DOUBLE, PTE_DTYPE_BFLOAT16};
const int ktest_all_dtypes[10] = {PTE_DTYPE_BYTE,   PTE_DTYPE_CHAR,  PTE_DTYPE_SHORT,
                                  PTE_DTYPE_INT,    PTE_DTYPE_LONG,  PTE_DTYPE_HALF,
                                  PTE_DTYPE_FLOAT,  PTE_DTYPE_DOUBLE, PTE_DTYPE_BFLOAT16,
                                  PTE_DTYPE_BOOL};

bool ktest_pb_begin(ktest_pb *b) {
  memset(b, 0, sizeof *b);
  b->ok = pte_writer_create(NULL, &b->w, &b->err) == PTE_OK;
  if (b->ok) b->ok = pte_writer_add_method(b->w, "forward", &b->m, &b->err) == PTE_OK;
  return b->ok;
}

int32_t ktest_pb_tensor(ktest_pb *b, int dtype, int32_t dim, const int32_t *sizes,
                        const uint8_t *order, const void *constant, size_t nbytes) {
  int32_t v = -1;
  if (!b->ok) return v;
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.dim = dim;
  t.sizes = sizes;
  t.dim_order = order;
  if (constant) {
    pte_source src = pte_source_memory(constant, nbytes);
    b->ok = pte_writer_add_constant_tensor(b->w, b->m, &t, &src, &v, &b->err) == PTE_OK;
  } else {
    t.plan = PTE_WR_PLAN_AUTO;
    t.mem_id = 1;
    b->ok = pte_writer_add_tensor(b->w, b->m, &t, &v, &b->err) == PTE_OK;
  }
  return v;
}

int32_t ktest_pb_int(ktest_pb *b, int64_t x) {
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_int(b->w, b->m, x, &v, &b->err) == PTE_OK;
  return v;
}

int32_t ktest_pb_double(ktest_pb *b, double x) {
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_double(b->w, b->m, x, &v, &b->err) == PTE_OK;
  return v;
}

int32_t ktest_pb_bool(ktest_pb *b, bool x) {
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_bool(b->w, b->m, x, &v, &b->err) == PTE_OK;
  return v;
}

int32_t ktest_pb_none(ktest_pb *b) {
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_null(b->w, b->m, &v, &b->err) == PTE_OK;
  return v;
}

int32_t ktest_pb_int_list(ktest_pb *b, const int64_t *items, size_t n) {
  int32_t v = -1;
  if (b->ok) b->ok = pte_writer_add_int_list_literal(b->w, b->m, items, n, &v, &b->err) == PTE_OK;
  return v;
}

void ktest_pb_io(ktest_pb *b, const int32_t *inputs, size_t nin, const int32_t *outputs, size_t nout) {
  if (b->ok) b->ok = pte_writer_set_inputs(b->w, b->m, inputs, nin, &b->err) == PTE_OK;
  if (b->ok) b->ok = pte_writer_set_outputs(b->w, b->m, outputs, nout, &b->err) == PTE_OK;
  if (b->ok)
    b->ok = pte_writer_add_chain(b->w, b->m, inputs, nin, outputs, nout, &b->chain, &b->err) == PTE_OK;
}

void ktest_pb_call(ktest_pb *b, const char *name, const char *overload, const int32_t *args, size_t n) {
  uint32_t op;
  if (b->ok) b->ok = pte_writer_add_operator(b->w, b->m, name, overload, &op, &b->err) == PTE_OK;
  if (b->ok)
    b->ok = pte_writer_add_kernel_call(b->w, b->m, b->chain, op, args, n, NULL, &b->err) == PTE_OK;
}

uint8_t *ktest_pb_finish(ktest_pb *b, size_t *size, pte_error_info *err) {
  uint8_t *bytes = NULL;
  if (b->ok) {
    pte_memory_writer mw;
    pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
    b->ok = pte_writer_write(b->w, &mw.base, &b->err) == PTE_OK;
    if (b->ok) {
      const uint8_t *d = pte_memory_writer_data(&mw, size);
      bytes = (uint8_t *)aligned_alloc(64, (*size + 63) / 64 * 64);
      memcpy(bytes, d, *size);
    }
    pte_data_writer_destroy(&mw.base);
  }
  if (!b->ok) *err = b->err;
  pte_writer_destroy(b->w);
  b->w = NULL;
  return bytes;
}

bool ktest_method_open(ktest_method *km, uint8_t *bytes, size_t size, size_t pool_bytes,
                       pte_error_info *err) {
  memset(km, 0, sizeof *km);
  km->bytes = bytes;
  km->stage = "load";
  pte_buffer_loader_init(&km->bl, bytes, size);
  if (pte_program_load(&km->bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &km->prog, err) != PTE_OK)
    return false;
  km->prog_loaded = true;
  km->stage = "meta";
  if (pte_method_meta_get(&km->prog, "forward", &km->meta, err) != PTE_OK) return false;
  uint64_t arena_size = 0;
  if (pte_method_meta_planned_buffer_size(&km->meta, 0, &arena_size) != PTE_OK) return false;
  km->stage = "arena";
  km->arena = (uint8_t *)calloc(1, (size_t)arena_size + 64);
  km->pool = (uint8_t *)malloc(pool_bytes);
  if (!km->arena || !km->pool) return false;
  pte_allocator_init(&km->ma, km->pool, pool_bytes);
  km->pb.data = km->arena;
  km->pb.size = (size_t)arena_size;
  pte_memory_manager_init(&km->mm, &km->ma, &km->pb, 1, NULL);
  km->stage = "method";
  return pte_method_load(&km->prog, "forward", &km->mm, NULL, NULL, &km->m, err) == PTE_OK;
}

void ktest_method_close(ktest_method *km) {
  if (km->m) pte_method_destroy(km->m);
  if (km->prog_loaded) pte_program_destroy(&km->prog);
  free(km->arena);
  free(km->pool);
  free(km->bytes);
  memset(km, 0, sizeof *km);
}

const uint8_t ktest_cl4[4] = {0, 2, 3, 1};
const uint8_t ktest_cl3[3] = {0, 2, 1};
const uint8_t ktest_t2[2] = {1, 0};

double ktest_rnd_grid(uint32_t *seed, unsigned shift, unsigned levels, double den) {
  *seed = *seed * 1664525u + 1013904223u;
  return (double)((int)((*seed >> shift) % levels) - (int)(levels / 2)) / den;
}

double *ktest_rnd_array(size_t n, double (*gen)(void)) {
  double *v = (double *)malloc((n ? n : 1) * sizeof(double));
  if (!v) return NULL;
  for (size_t i = 0; i < n; i++) v[i] = gen();
  return v;
}

bool ktest_table_is(const pte_kernel *table, size_t n, const char *const *names, size_t nnames) {
  bool ok = true;
  if (n != nnames) {
    fprintf(stderr, "    table has %zu kernels, expected %zu\n", n, nnames);
    ok = false;
  }
  for (size_t i = 0; i < nnames; i++)
    if (!ktest_find(table, n, names[i])) {
      fprintf(stderr, "    table misses %s\n", names[i]);
      ok = false;
    }
  return ok;
}
