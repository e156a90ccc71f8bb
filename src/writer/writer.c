/* writer.c — the program builder API (model only; layout and output are in writer_emit.c). */
#include <string.h>

#include "pte/tensor.h"
#include "writer/writer_pte.h"


static pte_status check_options(const pte_writer_options *o, pte_error_info *err) {
  if (!pte_wr_pow2(o->segment_alignment))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: segment alignment %llu is not a power of two",
                         (unsigned long long)o->segment_alignment);
  if (!pte_wr_pow2(o->tensor_alignment))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: tensor alignment %llu is not a power of two",
                         (unsigned long long)o->tensor_alignment);
  if (!pte_wr_pow2(o->delegate_alignment))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: delegate alignment %llu is not a power of two",
                         (unsigned long long)o->delegate_alignment);
  if (!pte_wr_pow2(o->plan_alignment))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: plan alignment %llu is not a power of two",
                         (unsigned long long)o->plan_alignment);
  if (o->delegate_alignment > 32768 || o->tensor_alignment > ((uint64_t)1 << 30))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: alignment too large");
  if (o->buffer_size < PTE_WR_MIN_BUFFER)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: buffer size %zu below %zu", o->buffer_size,
                         PTE_WR_MIN_BUFFER);
  return PTE_OK;
}

pte_status pte_writer_create(const pte_writer_options *opt, pte_writer **out, pte_error_info *err) {
  if (!out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL out");
  *out = NULL;
  pte_writer_options o;
  if (opt) o = *opt;
  else memset(&o, 0, sizeof o);
  if (!o.segment_alignment) o.segment_alignment = 128;
  if (!o.tensor_alignment) o.tensor_alignment = 16;
  if (!o.delegate_alignment) o.delegate_alignment = 16;
  if (!o.plan_alignment) o.plan_alignment = 16;
  if (!o.buffer_size) o.buffer_size = PTE_WR_DEFAULT_BUFFER;
  if (!o.realloc_fn) o.realloc_fn = pte_wr_default_realloc;
  pte_status s = check_options(&o, err);
  if (s != PTE_OK) return s;
  pte_wr_arena a;
  pte_wr_arena_init(&a, o.realloc_fn, o.realloc_ctx);
  pte_writer *w = (pte_writer *)pte_wr_alloc(&a, sizeof *w);
  if (!w) {
    pte_wr_arena_free(&a);
    return PTE_WR_OOM(err);
  }
  w->arena = a;
  pte_wr_arena_init(&w->out_arena, o.realloc_fn, o.realloc_ctx);
  w->opt = o;
  /* placeholders at index 0 */
  if (!pte_wr_vec_push(&w->arena, &w->constants, sizeof(wr_entry)) ||
      !pte_wr_vec_push(&w->arena, &w->mutables, sizeof(wr_entry))) {
    pte_writer_destroy(w);
    return PTE_WR_OOM(err);
  }
  PTE_WR_AT(w->constants, wr_entry, 0).src = pte_source_memory(NULL, 0);
  PTE_WR_AT(w->mutables, wr_entry, 0).src = pte_source_memory(NULL, 0);
  *out = w;
  return PTE_OK;
}

void pte_writer_destroy(pte_writer *w) {
  if (!w) return;
  pte_wr_arena_free(&w->out_arena);
  pte_wr_arena a = w->arena; /* w lives inside it */
  pte_wr_arena_free(&a);
}

void pte_writer_set_version(pte_writer *w, uint32_t version) {
  if (w) w->version = version;
}

/* ------------------------------------------------------------------ program data */
static pte_status add_entry(pte_writer *w, pte_wr_vec *v, const pte_source *src, uint32_t *index, const char *what,
                            pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL writer");
  pte_status s = pte_wr_source_check(src, what, err);
  if (s != PTE_OK) return s;
  if (v->n >= UINT32_MAX) return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "%s: too many entries", what);
  wr_entry *e = (wr_entry *)pte_wr_vec_push(&w->arena, v, sizeof *e);
  if (!e) return PTE_WR_OOM(err);
  s = pte_wr_source_copy(&w->arena, src, &e->src, err);
  if (s != PTE_OK) {
    v->n--;
    return s;
  }
  if (index) *index = (uint32_t)(v->n - 1);
  return PTE_OK;
}

pte_status pte_writer_add_constant(pte_writer *w, const pte_source *src, uint32_t *index, pte_error_info *err) {
  return add_entry(w, w ? &w->constants : NULL, src, index, "constant", err);
}

pte_status pte_writer_add_mutable(pte_writer *w, const pte_source *src, uint32_t *index, pte_error_info *err) {
  return add_entry(w, w ? &w->mutables : NULL, src, index, "mutable data", err);
}

pte_status pte_writer_add_blob(pte_writer *w, const pte_source *src, uint32_t *blob, pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL writer");
  pte_status s = pte_wr_source_check(src, "blob", err);
  if (s != PTE_OK) return s;
  wr_blob *b = (wr_blob *)pte_wr_vec_push(&w->arena, &w->blobs, sizeof *b);
  if (!b) return PTE_WR_OOM(err);
  s = pte_wr_source_copy(&w->arena, src, &b->src, err);
  if (s != PTE_OK) {
    w->blobs.n--;
    return s;
  }
  if (blob) *blob = (uint32_t)(w->blobs.n - 1);
  return PTE_OK;
}

pte_status pte_writer_add_named_data(pte_writer *w, const char *key, uint32_t blob, uint64_t alignment,
                                     pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL writer");
  if (!key || !*key) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "named data: empty key");
  if (blob >= w->blobs.n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "named data '%s': unknown blob %u", key, blob);
  if (alignment == 0) alignment = 1;
  if (!pte_wr_pow2(alignment))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "named data '%s': alignment %llu is not a power of two", key,
                         (unsigned long long)alignment);
  for (size_t i = 0; i < w->named.n; i++)
    if (strcmp(PTE_WR_AT(w->named, wr_named, i).key, key) == 0)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "duplicate named data key '%s'", key);
  wr_named *n = (wr_named *)pte_wr_vec_push(&w->arena, &w->named, sizeof *n);
  if (!n) return PTE_WR_OOM(err);
  n->key = pte_wr_strdup(&w->arena, key);
  if (!n->key) {
    w->named.n--;
    return PTE_WR_OOM(err);
  }
  n->blob = blob;
  n->align = alignment;
  return PTE_OK;
}

/* ------------------------------------------------------------------ methods */
static wr_method *get_method(pte_writer *w, uint32_t method, pte_error_info *err) {
  if (!w) {
    pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL writer");
    return NULL;
  }
  if (method >= w->methods.n) {
    pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: no method %u", method);
    return NULL;
  }
  return &PTE_WR_AT(w->methods, wr_method, method);
}

pte_status pte_writer_add_method(pte_writer *w, const char *name, uint32_t *method, pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL writer");
  if (!name || !*name) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method: empty name");
  for (size_t i = 0; i < w->methods.n; i++)
    if (strcmp(PTE_WR_AT(w->methods, wr_method, i).name, name) == 0)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "duplicate method name '%s'", name);
  wr_method *m = (wr_method *)pte_wr_vec_push(&w->arena, &w->methods, sizeof *m);
  if (!m) return PTE_WR_OOM(err);
  m->name = pte_wr_strdup(&w->arena, name);
  if (!m->name) {
    w->methods.n--;
    return PTE_WR_OOM(err);
  }
  if (method) *method = (uint32_t)(w->methods.n - 1);
  return PTE_OK;
}

static wr_value *push_value(pte_writer *w, wr_method *m, int32_t *value, pte_error_info *err) {
  if (m->values.n >= (size_t)INT32_MAX) {
    pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "method '%s': too many values", m->name);
    return NULL;
  }
  wr_value *v = (wr_value *)pte_wr_vec_push(&w->arena, &m->values, sizeof *v);
  if (!v) {
    PTE_WR_OOM(err);
    return NULL;
  }
  m->planned = false;
  if (value) *value = (int32_t)(m->values.n - 1);
  return v;
}

static uint64_t entry_size(const pte_wr_vec *v, uint32_t i) { return PTE_WR_AT(*v, wr_entry, i).src.size; }

pte_status pte_writer_add_tensor(pte_writer *w, uint32_t method, const pte_wr_tensor *t, int32_t *value,
                                 pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  if (!t) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': NULL tensor", m->name);
  char what[96];
  {
    /* "method 'forward' value 12" without stdio */
    pte_error_info tmp;
    pte_error_set(&tmp, PTE_OK, "method '%s' value %zu", m->name, m->values.n);
    memcpy(what, tmp.msg, sizeof what - 1);
    what[sizeof what - 1] = 0;
  }
  uint64_t nbytes = 0;
  pte_status s = pte_wr_check_shape(t->dtype, t->sizes, t->dim, t->dim_order, &nbytes, what, err);
  if (s != PTE_OK) return s;
  if (t->dynamism < 0 || t->dynamism > 2)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: invalid shape dynamism %d", what, t->dynamism);
  if ((unsigned)t->plan > PTE_WR_PLAN_EXPLICIT)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: invalid plan %d", what, (int)t->plan);
  if (t->constant && t->plan != PTE_WR_PLAN_NONE)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: a constant tensor cannot also be memory planned (use mutable_init)", what);
  if (t->constant && t->external)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: a tensor cannot be both constant and external", what);
  if (t->mutable_init && t->plan == PTE_WR_PLAN_NONE)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: mutable_init needs a memory plan", what);
  if (t->mutable_init && t->external)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: an external tensor takes its data from the .ptd, not mutable_init", what);
  if (t->external && (!t->fqn || !*t->fqn))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: external tensor without fqn", what);
  if (t->plan == PTE_WR_PLAN_EXPLICIT && t->mem_id == 0)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: memory id 0 is reserved (ids are 1-based)", what);
  if (t->constant) {
    if (t->constant >= w->constants.n)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: unknown constant %u", what, t->constant);
    uint64_t have = entry_size(&w->constants, t->constant);
    if (have != nbytes && !(w->lenient_sizes && have > nbytes))
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                           "%s: source size disagrees with the tensor: constant %u holds %llu bytes, %s x %llu elements needs %llu",
                           what, t->constant, (unsigned long long)have, pte_dtype_upstream_name(t->dtype),
                           (unsigned long long)(pte_dtype_size(t->dtype) ? nbytes / pte_dtype_size(t->dtype) : 0),
                           (unsigned long long)nbytes);
  }
  if (t->mutable_init) {
    if (t->mutable_init >= w->mutables.n)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "%s: unknown mutable entry %u", what, t->mutable_init);
    uint64_t have = entry_size(&w->mutables, t->mutable_init);
    if (have != nbytes && !(w->lenient_sizes && have > nbytes))
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                           "%s: source size disagrees with the tensor: mutable entry %u holds %llu bytes, the tensor needs %llu",
                           what, t->mutable_init, (unsigned long long)have, (unsigned long long)nbytes);
  }
  wr_tensor *x = (wr_tensor *)pte_wr_alloc(&w->arena, sizeof *x);
  if (!x) return PTE_WR_OOM(err);
  x->dtype = (int8_t)t->dtype;
  x->dynamism = (int8_t)t->dynamism;
  x->layout = t->layout;
  x->device_type = t->device_type;
  x->device_index = t->device_index;
  x->requires_grad = t->requires_grad;
  x->external = t->external;
  x->extra_info = t->extra_info;
  x->dim = (uint32_t)t->dim;
  x->sizes = (int32_t *)pte_wr_memdup(&w->arena, t->sizes, t->dim * sizeof(int32_t));
  x->dim_order = (uint8_t *)pte_wr_alloc(&w->arena, t->dim ? t->dim : 1);
  if (!x->sizes || !x->dim_order) return PTE_WR_OOM(err);
  for (size_t i = 0; i < t->dim; i++) x->dim_order[i] = t->dim_order ? t->dim_order[i] : (uint8_t)i;
  x->constant = t->constant;
  x->mutable_init = t->mutable_init;
  x->external_buffer_idx = t->external_buffer_idx;
  x->plan = (uint8_t)t->plan;
  x->mem_id = t->plan == PTE_WR_PLAN_NONE ? 0 : (t->mem_id ? t->mem_id : 1);
  x->mem_offset = t->plan == PTE_WR_PLAN_EXPLICIT ? t->mem_offset : 0;
  x->msi = t->mutable_data_segments_idx;
  x->nbytes = nbytes;
  if (t->fqn) {
    x->fqn = pte_wr_strdup(&w->arena, t->fqn);
    if (!x->fqn) return PTE_WR_OOM(err);
  }
  wr_value *v = push_value(w, m, value, err);
  if (!v) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;
  v->kind = WR_V_TENSOR;
  v->u.t = x;
  return PTE_OK;
}

pte_status pte_writer_add_constant_tensor(pte_writer *w, uint32_t method, const pte_wr_tensor *t,
                                          const pte_source *src, int32_t *value, pte_error_info *err) {
  if (!t) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL tensor");
  if (!get_method(w, method, err)) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  /* check the shape first so a mismatch leaves no orphan constant */
  uint64_t nbytes = 0;
  pte_status s = pte_wr_check_shape(t->dtype, t->sizes, t->dim, t->dim_order, &nbytes, "constant tensor", err);
  if (s != PTE_OK) return s;
  if (src && src->size != nbytes)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                         "constant tensor: source size disagrees with the tensor: %llu bytes given, %s needs %llu",
                         (unsigned long long)src->size, pte_dtype_upstream_name(t->dtype), (unsigned long long)nbytes);
  uint32_t idx = 0;
  s = pte_writer_add_constant(w, src, &idx, err);
  if (s != PTE_OK) return s;
  pte_wr_tensor tt = *t;
  tt.constant = idx;
  tt.plan = PTE_WR_PLAN_NONE;
  s = pte_writer_add_tensor(w, method, &tt, value, err);
  if (s != PTE_OK) w->constants.n--; /* it was the last one added */
  return s;
}

#define SIMPLE_VALUE(kind_, assign)                                       \
  wr_method *m = get_method(w, method, err);                              \
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;            \
  wr_value *x = push_value(w, m, value, err);                             \
  if (!x) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;    \
  x->kind = (kind_);                                                      \
  assign;                                                                 \
  return PTE_OK

pte_status pte_writer_add_null(pte_writer *w, uint32_t method, int32_t *value, pte_error_info *err) {
  SIMPLE_VALUE(WR_V_NULL, (void)0);
}
pte_status pte_writer_add_int(pte_writer *w, uint32_t method, int64_t v, int32_t *value, pte_error_info *err) {
  SIMPLE_VALUE(WR_V_INT, x->u.i = v);
}
pte_status pte_writer_add_bool(pte_writer *w, uint32_t method, bool v, int32_t *value, pte_error_info *err) {
  SIMPLE_VALUE(WR_V_BOOL, x->u.b = v);
}
pte_status pte_writer_add_double(pte_writer *w, uint32_t method, double v, int32_t *value, pte_error_info *err) {
  SIMPLE_VALUE(WR_V_DOUBLE, x->u.d = v);
}

pte_status pte_writer_add_string(pte_writer *w, uint32_t method, const char *s, size_t len, int32_t *value,
                                 pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  if (!s && len) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': NULL string", m->name);
  char *copy = pte_wr_strndup(&w->arena, s ? s : "", len);
  if (!copy) return PTE_WR_OOM(err);
  wr_value *x = push_value(w, m, value, err);
  if (!x) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;
  x->kind = WR_V_STRING;
  x->u.str.s = copy;
  x->u.str.len = len;
  return PTE_OK;
}

static pte_status add_list(pte_writer *w, uint32_t method, uint8_t kind, const void *items, size_t n, size_t elem,
                           int32_t *value, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  if (!items && n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': NULL list items", m->name);
  if (n > (SIZE_MAX / 8) / elem) return pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "list too long");
  /* index lists must reference earlier values (TensorList/OptionalTensorList: tensors / None) */
  for (size_t i = 0; i < n; i++) {
    if (kind == WR_V_INT_LIST) { /* may name later values (range-checked when writing) */
      int64_t ix = ((const int64_t *)items)[i];
      if (ix < 0 || ix > INT32_MAX)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': IntList item %zu: bad value index %lld",
                             m->name, i, (long long)ix);
    } else if (kind == WR_V_TENSOR_LIST || kind == WR_V_OPT_TENSOR_LIST) {
      int32_t ix = ((const int32_t *)items)[i];
      if (ix == -1 && kind == WR_V_OPT_TENSOR_LIST) continue;
      if (ix < 0 || (size_t)ix >= m->values.n)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': tensor list item %zu: value %d is not an earlier value",
                             m->name, i, ix);
      uint8_t k = PTE_WR_AT(m->values, wr_value, ix).kind;
      if (!(k == WR_V_TENSOR || (kind == WR_V_OPT_TENSOR_LIST && k == WR_V_NULL)))
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': tensor list item %zu: value %d is not a Tensor",
                             m->name, i, ix);
    }
  }
  void *copy = pte_wr_memdup(&w->arena, items, n * elem);
  if (!copy) return PTE_WR_OOM(err);
  wr_value *x = push_value(w, m, value, err);
  if (!x) return err ? err->status : PTE_ERR_MEMORY_ALLOCATION_FAILED;
  x->kind = kind;
  x->u.list.items = copy;
  x->u.list.n = n;
  return PTE_OK;
}

pte_status pte_writer_add_int_list(pte_writer *w, uint32_t method, const int64_t *items, size_t n, int32_t *value,
                                   pte_error_info *err) {
  return add_list(w, method, WR_V_INT_LIST, items, n, sizeof(int64_t), value, err);
}
pte_status pte_writer_add_double_list(pte_writer *w, uint32_t method, const double *items, size_t n, int32_t *value,
                                      pte_error_info *err) {
  return add_list(w, method, WR_V_DOUBLE_LIST, items, n, sizeof(double), value, err);
}
pte_status pte_writer_add_bool_list(pte_writer *w, uint32_t method, const bool *items, size_t n, int32_t *value,
                                    pte_error_info *err) {
  return add_list(w, method, WR_V_BOOL_LIST, items, n, sizeof(bool), value, err);
}
pte_status pte_writer_add_tensor_list(pte_writer *w, uint32_t method, const int32_t *items, size_t n, int32_t *value,
                                      pte_error_info *err) {
  return add_list(w, method, WR_V_TENSOR_LIST, items, n, sizeof(int32_t), value, err);
}
pte_status pte_writer_add_optional_tensor_list(pte_writer *w, uint32_t method, const int32_t *items, size_t n,
                                               int32_t *value, pte_error_info *err) {
  return add_list(w, method, WR_V_OPT_TENSOR_LIST, items, n, sizeof(int32_t), value, err);
}

pte_status pte_writer_add_int_list_literal(pte_writer *w, uint32_t method, const int64_t *ints, size_t n,
                                           int32_t *value, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  if (!ints && n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': NULL ints", m->name);
  int64_t *idx = (int64_t *)pte_wr_alloc(&w->arena, (n ? n : 1) * sizeof(int64_t));
  if (!idx) return PTE_WR_OOM(err);
  for (size_t i = 0; i < n; i++) {
    int32_t v;
    pte_status s = pte_writer_add_int(w, method, ints[i], &v, err);
    if (s != PTE_OK) return s;
    idx[i] = v;
  }
  return pte_writer_add_int_list(w, method, idx, n, value, err);
}

static pte_status copy_i32(pte_writer *w, const int32_t *v, size_t n, int32_t **out, pte_error_info *err) {
  if (!v && n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL index array");
  *out = (int32_t *)pte_wr_memdup(&w->arena, v, n * sizeof(int32_t));
  if (!*out) return PTE_WR_OOM(err);
  return PTE_OK;
}

pte_status pte_writer_set_inputs(pte_writer *w, uint32_t method, const int32_t *values, size_t n, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  pte_status s = copy_i32(w, values, n, &m->inputs, err);
  if (s == PTE_OK) m->n_inputs = n;
  m->planned = false;
  return s;
}

pte_status pte_writer_set_outputs(pte_writer *w, uint32_t method, const int32_t *values, size_t n, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  pte_status s = copy_i32(w, values, n, &m->outputs, err);
  if (s == PTE_OK) m->n_outputs = n;
  m->planned = false;
  return s;
}

static pte_status add_operator(pte_writer *w, uint32_t method, const char *name, const char *overload, bool dedup,
                               uint32_t *op, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  if (!name || (!*name && dedup)) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': empty operator name", m->name);
  if (!overload) overload = "";
  for (size_t i = 0; dedup && i < m->ops.n; i++) {
    wr_operator *o = &PTE_WR_AT(m->ops, wr_operator, i);
    if (!strcmp(o->name, name) && !strcmp(o->overload, overload)) {
      if (op) *op = (uint32_t)i;
      return PTE_OK;
    }
  }
  wr_operator *o = (wr_operator *)pte_wr_vec_push(&w->arena, &m->ops, sizeof *o);
  if (!o) return PTE_WR_OOM(err);
  o->name = pte_wr_strdup(&w->arena, name);
  o->overload = pte_wr_strdup(&w->arena, overload);
  if (!o->name || !o->overload) return PTE_WR_OOM(err);
  if (op) *op = (uint32_t)(m->ops.n - 1);
  return PTE_OK;
}

pte_status pte_writer_add_operator(pte_writer *w, uint32_t method, const char *name, const char *overload,
                                   uint32_t *op, pte_error_info *err) {
  return add_operator(w, method, name, overload, true, op, err);
}

pte_status pte_wr_add_operator_raw(pte_writer *w, uint32_t method, const char *name, const char *overload,
                                   uint32_t *op, pte_error_info *err) {
  return add_operator(w, method, name, overload, false, op, err);
}

/* ------------------------------------------------------------------ chains */
pte_status pte_writer_add_chain(pte_writer *w, uint32_t method, const int32_t *inputs, size_t n_inputs,
                                const int32_t *outputs, size_t n_outputs, uint32_t *chain, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  wr_chain *c = (wr_chain *)pte_wr_vec_push(&w->arena, &m->chains, sizeof *c);
  if (!c) return PTE_WR_OOM(err);
  pte_status s = copy_i32(w, inputs, n_inputs, &c->inputs, err);
  if (s == PTE_OK) s = copy_i32(w, outputs, n_outputs, &c->outputs, err);
  if (s != PTE_OK) {
    m->chains.n--;
    return s;
  }
  c->n_inputs = n_inputs;
  c->n_outputs = n_outputs;
  m->planned = false;
  if (chain) *chain = (uint32_t)(m->chains.n - 1);
  return PTE_OK;
}

static pte_status push_instr(pte_writer *w, uint32_t method, uint32_t chain, uint8_t kind, int32_t a, int32_t b,
                             const int32_t *args, size_t n, uint32_t *index, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  if (chain >= m->chains.n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': no chain %u", m->name, chain);
  wr_chain *c = &PTE_WR_AT(m->chains, wr_chain, chain);
  int32_t *copy = NULL;
  pte_status s = copy_i32(w, args, n, &copy, err);
  if (s != PTE_OK) return s;
  wr_instr *in = (wr_instr *)pte_wr_vec_push(&w->arena, &c->instrs, sizeof *in);
  if (!in) return PTE_WR_OOM(err);
  in->kind = kind;
  in->a = a;
  in->b = b;
  in->args = copy;
  in->n_args = n;
  m->planned = false;
  if (index) *index = (uint32_t)(c->instrs.n - 1);
  return PTE_OK;
}

pte_status pte_writer_add_kernel_call(pte_writer *w, uint32_t method, uint32_t chain, uint32_t op,
                                      const int32_t *args, size_t n, uint32_t *index, pte_error_info *err) {
  return push_instr(w, method, chain, WR_I_KERNEL, (int32_t)op, 0, args, n, index, err);
}
pte_status pte_writer_add_delegate_call(pte_writer *w, uint32_t method, uint32_t chain, uint32_t delegate,
                                        const int32_t *args, size_t n, uint32_t *index, pte_error_info *err) {
  return push_instr(w, method, chain, WR_I_DELEGATE, (int32_t)delegate, 0, args, n, index, err);
}
pte_status pte_writer_add_move_call(pte_writer *w, uint32_t method, uint32_t chain, int32_t from, int32_t to,
                                    uint32_t *index, pte_error_info *err) {
  return push_instr(w, method, chain, WR_I_MOVE, from, to, NULL, 0, index, err);
}
pte_status pte_writer_add_jump_false_call(pte_writer *w, uint32_t method, uint32_t chain, int32_t cond,
                                          int32_t destination, uint32_t *index, pte_error_info *err) {
  return push_instr(w, method, chain, WR_I_JUMP_FALSE, cond, destination, NULL, 0, index, err);
}
pte_status pte_writer_add_free_call(pte_writer *w, uint32_t method, uint32_t chain, int32_t value, uint32_t *index,
                                    pte_error_info *err) {
  return push_instr(w, method, chain, WR_I_FREE, value, 0, NULL, 0, index, err);
}

pte_status pte_writer_set_stacktrace(pte_writer *w, uint32_t method, uint32_t chain, uint32_t instruction,
                                     const pte_wr_frame *frames, size_t n, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  if (chain >= m->chains.n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': no chain %u", m->name, chain);
  wr_chain *c = &PTE_WR_AT(m->chains, wr_chain, chain);
  if (instruction >= c->instrs.n)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s' chain %u: no instruction %u", m->name, chain, instruction);
  if (!frames && n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL frames");
  wr_instr *in = &PTE_WR_AT(c->instrs, wr_instr, instruction);
  pte_wr_frame *f = (pte_wr_frame *)pte_wr_alloc(&w->arena, (n ? n : 1) * sizeof *f);
  if (!f) return PTE_WR_OOM(err);
  for (size_t i = 0; i < n; i++) {
    f[i].lineno = frames[i].lineno;
    f[i].filename = pte_wr_strdup(&w->arena, frames[i].filename);
    f[i].name = pte_wr_strdup(&w->arena, frames[i].name);
    f[i].context = pte_wr_strdup(&w->arena, frames[i].context);
    if ((frames[i].filename && !f[i].filename) || (frames[i].name && !f[i].name) || (frames[i].context && !f[i].context))
      return PTE_WR_OOM(err);
  }
  in->stack.frames = f;
  in->stack.n = n;
  in->stack.set = true;
  c->has_stack = true;
  return PTE_OK;
}

/* ------------------------------------------------------------------ delegates */
static pte_status copy_delegate(pte_writer *w, const pte_wr_delegate *d, bool for_module, wr_delegate *out,
                                pte_error_info *err) {
  if (!d) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "delegate: NULL description");
  if (!d->id || !*d->id) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "delegate: empty backend id");
  if (d->blob >= w->blobs.n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "delegate '%s': unknown blob %u", d->id, d->blob);
  if ((unsigned)d->location > PTE_WR_BLOB_SEGMENT)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "delegate '%s': invalid blob location %d", d->id, (int)d->location);
  if ((d->n_compile_specs && !d->compile_specs) || (d->n_scratch && !d->scratch))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "delegate '%s': NULL array", d->id);
  memset(out, 0, sizeof *out);
  out->id = pte_wr_strdup(&w->arena, d->id);
  out->blob = d->blob;
  out->location = (uint8_t)d->location;
  out->share_handle = d->share_handle;
  out->n_specs = d->n_compile_specs;
  out->specs = (wr_spec *)pte_wr_alloc(&w->arena, (d->n_compile_specs ? d->n_compile_specs : 1) * sizeof(wr_spec));
  if (!out->id || !out->specs) return PTE_WR_OOM(err);
  for (size_t i = 0; i < d->n_compile_specs; i++) {
    const pte_wr_compile_spec *cs = &d->compile_specs[i];
    if (!cs->key) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "delegate '%s': compile spec %zu without key", d->id, i);
    if (!cs->value && cs->value_len)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "delegate '%s': compile spec '%s' without value", d->id, cs->key);
    out->specs[i].key = pte_wr_strdup(&w->arena, cs->key);
    out->specs[i].value = (uint8_t *)pte_wr_memdup(&w->arena, cs->value, cs->value_len);
    out->specs[i].len = cs->value_len;
    if (!out->specs[i].key || !out->specs[i].value) return PTE_WR_OOM(err);
  }
  out->n_scratch = d->n_scratch;
  if (d->n_scratch) {
    if (d->share_handle && !for_module)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                           "delegate '%s': a delegate with scratch memory cannot share its handle", d->id);
    for (size_t i = 0; i < d->n_scratch; i++)
      if (d->scratch[i].mem_id == 0)
        return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "delegate '%s': scratch %zu uses memory id 0 (ids are 1-based)", d->id, i);
    out->scratch = (pte_wr_scratch *)pte_wr_memdup(&w->arena, d->scratch, d->n_scratch * sizeof(pte_wr_scratch));
    if (!out->scratch) return PTE_WR_OOM(err);
  }
  return PTE_OK;
}

pte_status pte_writer_add_delegate(pte_writer *w, uint32_t method, const pte_wr_delegate *d, uint32_t *delegate,
                                   pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  wr_delegate tmp;
  pte_status s = copy_delegate(w, d, false, &tmp, err);
  if (s != PTE_OK) return s;
  wr_delegate *x = (wr_delegate *)pte_wr_vec_push(&w->arena, &m->delegates, sizeof *x);
  if (!x) return PTE_WR_OOM(err);
  *x = tmp;
  m->planned = false;
  if (delegate) *delegate = (uint32_t)(m->delegates.n - 1);
  return PTE_OK;
}

pte_status pte_writer_add_lowered_module(pte_writer *w, const pte_wr_delegate *d, uint32_t *module, pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: NULL writer");
  wr_module tmp;
  pte_status s = copy_delegate(w, d, true, &tmp.d, err);
  if (s != PTE_OK) return s;
  wr_module *x = (wr_module *)pte_wr_vec_push(&w->arena, &w->modules, sizeof *x);
  if (!x) return PTE_WR_OOM(err);
  *x = tmp;
  if (module) *module = (uint32_t)(w->modules.n - 1);
  return PTE_OK;
}

pte_status pte_writer_call_module(pte_writer *w, uint32_t method, uint32_t chain, uint32_t module, const int32_t *args,
                                  size_t n, uint32_t *delegate, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  if (module >= w->modules.n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "writer: no lowered module %u", module);
  if (chain >= m->chains.n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': no chain %u", m->name, chain);
  const wr_delegate *tpl = &PTE_WR_AT(w->modules, wr_module, module).d;
  bool shareable = tpl->share_handle && tpl->n_scratch == 0;
  uint32_t di = UINT32_MAX;
  if (shareable)
    for (size_t i = 0; i < m->module_uses.n; i++)
      if (PTE_WR_AT(m->module_uses, wr_module_use, i).module == module) di = PTE_WR_AT(m->module_uses, wr_module_use, i).delegate;
  if (di == UINT32_MAX) {
    wr_delegate *x = (wr_delegate *)pte_wr_vec_push(&w->arena, &m->delegates, sizeof *x);
    if (!x) return PTE_WR_OOM(err);
    *x = *tpl; /* shares the template's strings and arrays (arena lifetime) */
    if (!shareable) x->share_handle = false; /* one handle per call site: nothing is shared */
    x->share_handle = shareable; /* never next to scratch: the runtime refuses that (docs/format.md) */
    di = (uint32_t)(m->delegates.n - 1);
    if (shareable) {
      wr_module_use *u = (wr_module_use *)pte_wr_vec_push(&w->arena, &m->module_uses, sizeof *u);
      if (!u) return PTE_WR_OOM(err);
      u->module = module;
      u->delegate = di;
    }
  }
  pte_status s = push_instr(w, method, chain, WR_I_DELEGATE, (int32_t)di, 0, args, n, NULL, err);
  if (s != PTE_OK) return s;
  if (delegate) *delegate = di;
  return PTE_OK;
}

/* ------------------------------------------------------------------ plan / metadata */
pte_status pte_writer_set_buffer_sizes(pte_writer *w, uint32_t method, const int64_t *sizes, size_t n,
                                       pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  if (!sizes && n) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': NULL buffer sizes", m->name);
  for (size_t i = 0; i < n; i++)
    if (sizes[i] < 0) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "method '%s': negative buffer size %zu", m->name, i);
  m->buffer_sizes = (int64_t *)pte_wr_memdup(&w->arena, sizes, (n ? n : 1) * sizeof(int64_t));
  if (!m->buffer_sizes) return PTE_WR_OOM(err);
  m->n_buffer_sizes = n;
  m->buffer_sizes_set = true;
  return PTE_OK;
}

pte_status pte_writer_set_buffer_device(pte_writer *w, uint32_t method, int32_t buffer_idx, int8_t device_type,
                                        int8_t device_index, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  wr_device *d = (wr_device *)pte_wr_vec_push(&w->arena, &m->devices, sizeof *d);
  if (!d) return PTE_WR_OOM(err);
  d->buffer_idx = buffer_idx;
  d->type = device_type;
  d->index = device_index;
  return PTE_OK;
}

pte_status pte_writer_set_container_meta(pte_writer *w, uint32_t method, const char *encoded_inputs,
                                         const char *encoded_outputs, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  m->meta_in = pte_wr_strdup(&w->arena, encoded_inputs);
  m->meta_out = pte_wr_strdup(&w->arena, encoded_outputs);
  if ((encoded_inputs && !m->meta_in) || (encoded_outputs && !m->meta_out)) return PTE_WR_OOM(err);
  m->has_meta = true;
  return PTE_OK;
}

pte_status pte_writer_plan_memory(pte_writer *w, uint32_t method, uint64_t *arena_size, pte_error_info *err) {
  wr_method *m = get_method(w, method, err);
  if (!m) return err ? err->status : PTE_ERR_INVALID_ARGUMENT;
  pte_status s = pte_wr_plan_method(w, m, m->name, err);
  if (s != PTE_OK) return s;
  if (arena_size) {
    uint64_t end = 0;
    for (size_t i = 0; i < m->values.n; i++) {
      wr_value *v = &PTE_WR_AT(m->values, wr_value, i);
      if (v->kind != WR_V_TENSOR || v->u.t->plan == PTE_WR_PLAN_NONE || v->u.t->mem_id != 1) continue;
      uint64_t e = v->u.t->mem_offset + v->u.t->nbytes;
      if (e > end) end = e;
    }
    *arena_size = pte_wr_align(end, w->opt.plan_alignment);
  }
  return PTE_OK;
}

pte_status pte_writer_planned_offset(const pte_writer *w, uint32_t method, int32_t value, uint32_t *mem_id,
                                     uint64_t *offset) {
  if (!w || method >= w->methods.n) return PTE_ERR_INVALID_ARGUMENT;
  const wr_method *m = &PTE_WR_AT(w->methods, wr_method, method);
  if (value < 0 || (size_t)value >= m->values.n) return PTE_ERR_NOT_FOUND;
  const wr_value *v = &PTE_WR_AT(m->values, wr_value, value);
  if (v->kind != WR_V_TENSOR || v->u.t->plan != PTE_WR_PLAN_AUTO || !v->u.t->placed) return PTE_ERR_NOT_FOUND;
  if (mem_id) *mem_id = v->u.t->mem_id;
  if (offset) *offset = v->u.t->mem_offset;
  return PTE_OK;
}
