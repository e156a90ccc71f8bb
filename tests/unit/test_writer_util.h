/* test_writer_util.h — helpers shared by the writer tests: loading programs from memory, running
 * methods with deterministic inputs, and comparing two programs structurally. All functions are
 * static inline so a test that does not use one does not warn. */
#ifndef PTE_TEST_WRITER_UTIL_H
#define PTE_TEST_WRITER_UTIL_H

#include "format/flatbuf.h"
#include "pte/data_writer.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/tensor.h"
#include "pte/writer.h"
#include "pte_gen/program_gen.h"
#include "test.h"

/* ------------------------------------------------------------------ loading */
typedef struct tw_prog {
  uint8_t *bytes; /* 64-aligned copy */
  size_t size;
  pte_buffer_loader bl;
  pte_program prog;
  bool loaded;
  pte_error_info err;
} tw_prog;

static inline pte_status tw_load_bytes(tw_prog *p, const void *data, size_t size) {
  memset(p, 0, sizeof *p);
  p->bytes = (uint8_t *)aligned_alloc(64, (size + 63) / 64 * 64 + 64);
  if (!p->bytes) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  memcpy(p->bytes, data, size);
  p->size = size;
  pte_buffer_loader_init(&p->bl, p->bytes, size);
  pte_status s = pte_program_load(&p->bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p->prog, &p->err);
  p->loaded = s == PTE_OK;
  return s;
}

static inline void tw_free(tw_prog *p) {
  if (p->loaded) pte_program_destroy(&p->prog);
  free(p->bytes);
  memset(p, 0, sizeof *p);
}

/* Writes a builder into memory and loads the result. */
static inline pte_status tw_write_and_load(pte_writer *w, tw_prog *out, pte_error_info *err) {
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  pte_status s = pte_writer_write(w, &mw.base, err);
  if (s == PTE_OK) {
    size_t n = 0;
    const uint8_t *d = pte_memory_writer_data(&mw, &n);
    s = tw_load_bytes(out, d, n);
    if (s != PTE_OK && err) *err = out->err;
  }
  pte_data_writer_destroy(&mw.base);
  return s;
}

/* ------------------------------------------------------------------ running */
static inline void tw_register_kernels(void) {
  static bool done;
  if (!done) {
    done = true;
    pte_register_portable_kernels();
  }
}

typedef struct tw_run {
  pte_status load_status, exec_status;
  size_t n_out;
  uint32_t tags[16];
  uint8_t dtypes[16];
  int32_t dims[16];
  int32_t sizes[16][PTE_MAX_RANK];
  uint8_t *data[16];
  size_t nbytes[16];
  int64_t ints[16];
  double dbls[16];
} tw_run;

static inline void tw_run_free(tw_run *r) {
  for (size_t i = 0; i < 16; i++) free(r->data[i]);
  memset(r, 0, sizeof *r);
}

/* Fills deterministic input data for one element type. */
static inline void tw_fill(uint8_t *p, size_t nbytes, int dtype, unsigned seed) {
  size_t es = pte_dtype_size(dtype);
  if (!es) return;
  size_t n = nbytes / es;
  for (size_t k = 0; k < n; k++) {
    long v = (long)((k * 7 + seed * 3) % 11) - 5;
    switch (dtype) {
      case PTE_DTYPE_FLOAT: { float f = (float)v * 0.25f; memcpy(p + k * 4, &f, 4); break; }
      case PTE_DTYPE_DOUBLE: { double d = (double)v * 0.25; memcpy(p + k * 8, &d, 8); break; }
      case PTE_DTYPE_BOOL: p[k] = (uint8_t)(v > 0); break;
      case PTE_DTYPE_LONG: { int64_t x = v; memcpy(p + k * 8, &x, 8); break; }
      case PTE_DTYPE_INT: { int32_t x = (int32_t)v; memcpy(p + k * 4, &x, 4); break; }
      case PTE_DTYPE_BYTE: p[k] = (uint8_t)(v + 5); break;
      default: memset(p + k * es, (int)(v & 0x3), es); break;
    }
  }
}

/* Loads method `name` of p, sets every input deterministically, executes, records outputs. */
static inline void tw_run_method(const pte_program *p, const char *name, const pte_named_data_map *ext, tw_run *r) {
  memset(r, 0, sizeof *r);
  tw_register_kernels();
  pte_error_info err;
  pte_method_meta meta;
  r->load_status = pte_method_meta_get(p, name, &meta, &err);
  if (r->load_status != PTE_OK) return;
  size_t np = pte_method_meta_num_planned_buffers(&meta);
  void *planned_mem[8] = {0};
  pte_planned_buffer planned[8];
  if (np > 8) {
    r->load_status = PTE_ERR_NOT_SUPPORTED;
    return;
  }
  for (size_t i = 0; i < np; i++) {
    uint64_t sz = 0;
    pte_method_meta_planned_buffer_size(&meta, i, &sz);
    planned_mem[i] = calloc(1, (size_t)sz + 64);
    planned[i].data = planned_mem[i];
    planned[i].size = (size_t)sz;
  }
  uint8_t *pool = (uint8_t *)malloc(8 << 20), *tmp = (uint8_t *)malloc(4 << 20);
  pte_allocator ma, ta;
  pte_allocator_init(&ma, pool, 8 << 20);
  pte_allocator_init(&ta, tmp, 4 << 20);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, planned, np, &ta);
  pte_method *m = NULL;
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.external_data = ext;
  r->load_status = pte_method_load_ex(p, name, &mm, &o, &m, &err);
  uint8_t *in_bufs[16] = {0}, *out_bufs[16] = {0};
  if (r->load_status == PTE_OK) {
    size_t ni = pte_method_num_inputs(m);
    r->exec_status = PTE_OK;
    for (size_t i = 0; i < ni && i < 16 && r->exec_status == PTE_OK; i++) {
      const pte_evalue *v = pte_method_get_input(m, i);
      if (v && v->tag == PTE_TAG_TENSOR) {
        const pte_tensor *t = v->u.tensor;
        size_t nb = t->numel * pte_dtype_size(t->dtype);
        in_bufs[i] = (uint8_t *)calloc(1, nb + 16);
        tw_fill(in_bufs[i], nb, t->dtype, (unsigned)i);
        int32_t sizes[PTE_MAX_RANK];
        memcpy(sizes, t->sizes, sizeof(int32_t) * (size_t)t->dim);
        r->exec_status = pte_method_set_input_tensor(m, i, (pte_dtype)t->dtype, sizes, t->dim, in_bufs[i], nb, &err);
      } else if (v) {
        pte_evalue copy = *v;
        r->exec_status = pte_method_set_input(m, i, &copy, &err);
      }
    }
    size_t no = pte_method_num_outputs(m);
    for (size_t i = 0; i < no && i < 16 && r->exec_status == PTE_OK; i++) {
      const pte_evalue *v = pte_method_get_output(m, i);
      if (v && v->tag == PTE_TAG_TENSOR && !v->u.tensor->data) {
        size_t cap = v->u.tensor->capacity_bytes ? v->u.tensor->capacity_bytes : v->u.tensor->numel * pte_dtype_size(v->u.tensor->dtype);
        out_bufs[i] = (uint8_t *)calloc(1, cap + 16);
        pte_method_set_output_data_ptr(m, i, out_bufs[i], cap, &err);
      }
    }
    if (r->exec_status == PTE_OK) r->exec_status = pte_method_execute(m, &err);
    if (r->exec_status == PTE_OK) {
      r->n_out = no < 16 ? no : 16;
      for (size_t i = 0; i < r->n_out; i++) {
        const pte_evalue *v = pte_method_get_output(m, i);
        r->tags[i] = v ? v->tag : 0;
        if (v && v->tag == PTE_TAG_TENSOR) {
          const pte_tensor *t = v->u.tensor;
          r->dtypes[i] = t->dtype;
          r->dims[i] = t->dim;
          memcpy(r->sizes[i], t->sizes, sizeof(int32_t) * (size_t)t->dim);
          r->nbytes[i] = t->numel * pte_dtype_size(t->dtype);
          r->data[i] = (uint8_t *)malloc(r->nbytes[i] + 1);
          if (t->data) memcpy(r->data[i], t->data, r->nbytes[i]);
        } else if (v && v->tag == PTE_TAG_INT) {
          r->ints[i] = v->u.i;
        } else if (v && v->tag == PTE_TAG_DOUBLE) {
          r->dbls[i] = v->u.d;
        }
      }
    }
    pte_method_destroy(m);
  }
  for (size_t i = 0; i < 16; i++) {
    free(in_bufs[i]);
    free(out_bufs[i]);
  }
  for (size_t i = 0; i < np; i++) free(planned_mem[i]);
  free(pool);
  free(tmp);
}

/* 0 if both runs behaved identically (status, outputs bit for bit); else a message in why. */
static inline int tw_run_diff(const tw_run *a, const tw_run *b, char *why, size_t cap) {
  if (a->load_status != b->load_status || a->exec_status != b->exec_status) {
    snprintf(why, cap, "status load %s/%s exec %s/%s", pte_status_name(a->load_status), pte_status_name(b->load_status),
             pte_status_name(a->exec_status), pte_status_name(b->exec_status));
    return 1;
  }
  if (a->n_out != b->n_out) {
    snprintf(why, cap, "outputs %zu vs %zu", a->n_out, b->n_out);
    return 1;
  }
  for (size_t i = 0; i < a->n_out; i++) {
    if (a->tags[i] != b->tags[i] || a->dtypes[i] != b->dtypes[i] || a->dims[i] != b->dims[i] ||
        a->nbytes[i] != b->nbytes[i] || a->ints[i] != b->ints[i] ||
        memcmp(&a->dbls[i], &b->dbls[i], sizeof(double)) != 0 ||
        memcmp(a->sizes[i], b->sizes[i], sizeof(int32_t) * (size_t)a->dims[i]) != 0 ||
        (a->nbytes[i] && memcmp(a->data[i], b->data[i], a->nbytes[i]) != 0)) {
      snprintf(why, cap, "output %zu differs", i);
      return 1;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ structural compare */
#define TW_DIFF(...)                          \
  do {                                        \
    snprintf(why, cap, __VA_ARGS__);          \
    return 1;                                 \
  } while (0)

static inline pte_fb_table tw_root(const pte_program *p) {
  size_t n = 0;
  const uint8_t *fb = pte_program_flatbuffer(p, &n);
  return pte_fb_root(fb, n);
}

static inline bool tw_vec_eq_i32(pte_fb_vec a, pte_fb_vec b) {
  if (a.len != b.len) return false;
  for (uint32_t i = 0; i < a.len; i++)
    if (pte_fb_vec_i32(a, i) != pte_fb_vec_i32(b, i)) return false;
  return true;
}

static inline bool tw_str_eq(pte_fb_str a, pte_fb_str b) {
  if (!a.ptr || !b.ptr) return !a.ptr && !b.ptr;
  return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

/* Blob bytes of delegate d of a program (segment or inline), malloc'd. */
static inline uint8_t *tw_delegate_blob(const pte_program *p, pte_fb_table d, size_t *size) {
  pte_fb_table ref = pte_et_BackendDelegate_processed(d);
  uint32_t idx = pte_et_BackendDelegateDataReference_index(ref);
  *size = 0;
  if (pte_et_BackendDelegateDataReference_location(ref) == pte_et_DataLocation_SEGMENT) {
    pte_segment_info info = {PTE_SEGMENT_BACKEND, idx, NULL};
    pte_freeable_buffer fb;
    if (pte_program_load_segment(p, idx, &info, &fb) != PTE_OK) return NULL;
    uint8_t *c = (uint8_t *)malloc(fb.size + 1);
    memcpy(c, fb.data, fb.size);
    *size = fb.size;
    pte_freeable_buffer_free(&fb);
    return c;
  }
  pte_fb_vec dd = pte_et_Program_backend_delegate_data(tw_root(p));
  pte_fb_vec data = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(dd, idx));
  uint8_t *c = (uint8_t *)malloc(data.len + 1);
  if (data.len) memcpy(c, pte_fb_vec_data(data), data.len);
  *size = data.len;
  return c;
}

static inline int tw_cmp_tensor(const pte_program *pa, const pte_program *pb, pte_fb_table a, pte_fb_table b, char *why,
                                size_t cap) {
  if (pte_et_Tensor_scalar_type(a) != pte_et_Tensor_scalar_type(b)) TW_DIFF("dtype");
  if (!tw_vec_eq_i32(pte_et_Tensor_sizes(a), pte_et_Tensor_sizes(b))) TW_DIFF("sizes");
  pte_fb_vec da = pte_et_Tensor_dim_order(a), db = pte_et_Tensor_dim_order(b);
  if (da.len != db.len) TW_DIFF("dim_order length");
  for (uint32_t i = 0; i < da.len; i++)
    if (pte_fb_vec_u8(da, i) != pte_fb_vec_u8(db, i)) TW_DIFF("dim_order");
  if (pte_et_Tensor_requires_grad(a) != pte_et_Tensor_requires_grad(b) || pte_et_Tensor_layout(a) != pte_et_Tensor_layout(b) ||
      pte_et_Tensor_shape_dynamism(a) != pte_et_Tensor_shape_dynamism(b))
    TW_DIFF("grad/layout/dynamism");
  uint32_t dbi = pte_et_Tensor_data_buffer_idx(a);
  if (dbi != pte_et_Tensor_data_buffer_idx(b)) TW_DIFF("data_buffer_idx %u vs %u", dbi, pte_et_Tensor_data_buffer_idx(b));
  pte_fb_table aa = pte_et_Tensor_allocation_info(a), ab = pte_et_Tensor_allocation_info(b);
  if (pte_fb_table_present(aa) != pte_fb_table_present(ab)) TW_DIFF("allocation presence");
  if (pte_fb_table_present(aa) &&
      (pte_et_AllocationDetails_memory_id(aa) != pte_et_AllocationDetails_memory_id(ab) ||
       pte_et_AllocationDetails_memory_offset_low(aa) != pte_et_AllocationDetails_memory_offset_low(ab) ||
       pte_et_AllocationDetails_memory_offset_high(aa) != pte_et_AllocationDetails_memory_offset_high(ab)))
    TW_DIFF("allocation");
  pte_fb_table ea = pte_et_Tensor_extra_tensor_info(a), eb = pte_et_Tensor_extra_tensor_info(b);
  if (pte_fb_table_present(ea) != pte_fb_table_present(eb)) TW_DIFF("extra presence");
  bool external = false;
  if (pte_fb_table_present(ea)) {
    external = pte_et_ExtraTensorInfo_location(ea) == pte_et_TensorDataLocation_EXTERNAL;
    if (pte_et_ExtraTensorInfo_location(ea) != pte_et_ExtraTensorInfo_location(eb) ||
        !tw_str_eq(pte_et_ExtraTensorInfo_fully_qualified_name(ea), pte_et_ExtraTensorInfo_fully_qualified_name(eb)) ||
        pte_et_ExtraTensorInfo_device_type(ea) != pte_et_ExtraTensorInfo_device_type(eb) ||
        pte_et_ExtraTensorInfo_device_index(ea) != pte_et_ExtraTensorInfo_device_index(eb) ||
        pte_et_ExtraTensorInfo_mutable_data_segments_idx(ea) != pte_et_ExtraTensorInfo_mutable_data_segments_idx(eb))
      TW_DIFF("extra tensor info");
  }
  if (dbi && !external) {
    pte_fb_vec sz = pte_et_Tensor_sizes(a);
    size_t nb = pte_dtype_size(pte_et_Tensor_scalar_type(a));
    for (uint32_t i = 0; i < sz.len; i++) nb *= (size_t)pte_fb_vec_i32(sz, i);
    if (!pte_fb_table_present(aa)) {
      const void *x = NULL, *y = NULL;
      if (pte_program_constant_data(pa, dbi, nb, &x) != PTE_OK || pte_program_constant_data(pb, dbi, nb, &y) != PTE_OK)
        TW_DIFF("constant %u unreadable", dbi);
      if (nb && memcmp(x, y, nb) != 0) TW_DIFF("constant %u bytes differ", dbi);
    } else {
      uint8_t *x = (uint8_t *)calloc(1, nb + 1), *y = (uint8_t *)calloc(1, nb + 1);
      pte_status s1 = pte_program_load_mutable_into(pa, 0, dbi, nb, x), s2 = pte_program_load_mutable_into(pb, 0, dbi, nb, y);
      int bad = s1 != PTE_OK || s2 != PTE_OK || memcmp(x, y, nb) != 0;
      free(x);
      free(y);
      if (bad) TW_DIFF("mutable %u differs (%s/%s)", dbi, pte_status_name(s1), pte_status_name(s2));
    }
  }
  return 0;
}

static inline int tw_cmp_value(const pte_program *pa, const pte_program *pb, pte_fb_table ea, pte_fb_table eb, char *why,
                               size_t cap) {
  uint8_t tag = pte_et_EValue_val_type(ea);
  if (tag != pte_et_EValue_val_type(eb)) TW_DIFF("kind %u vs %u", tag, pte_et_EValue_val_type(eb));
  pte_fb_table a = pte_et_EValue_val(ea), b = pte_et_EValue_val(eb);
  switch (tag) {
    case pte_et_KernelTypes_Int: if (pte_et_Int_int_val(a) != pte_et_Int_int_val(b)) TW_DIFF("int"); break;
    case pte_et_KernelTypes_Bool: if (pte_et_Bool_bool_val(a) != pte_et_Bool_bool_val(b)) TW_DIFF("bool"); break;
    case pte_et_KernelTypes_Double: {
      double x = pte_et_Double_double_val(a), y = pte_et_Double_double_val(b);
      if (memcmp(&x, &y, 8) != 0) TW_DIFF("double");
      break;
    }
    case pte_et_KernelTypes_String: if (!tw_str_eq(pte_et_String_string_val(a), pte_et_String_string_val(b))) TW_DIFF("string"); break;
    case pte_et_KernelTypes_IntList: {
      pte_fb_vec x = pte_et_IntList_items(a), y = pte_et_IntList_items(b);
      if (x.len != y.len) TW_DIFF("int list length");
      for (uint32_t i = 0; i < x.len; i++)
        if (pte_fb_vec_i64(x, i) != pte_fb_vec_i64(y, i)) TW_DIFF("int list");
      break;
    }
    case pte_et_KernelTypes_DoubleList: {
      pte_fb_vec x = pte_et_DoubleList_items(a), y = pte_et_DoubleList_items(b);
      if (x.len != y.len || (x.len && memcmp(pte_fb_vec_data(x), pte_fb_vec_data(y), 8 * x.len))) TW_DIFF("double list");
      break;
    }
    case pte_et_KernelTypes_BoolList: {
      pte_fb_vec x = pte_et_BoolList_items(a), y = pte_et_BoolList_items(b);
      if (x.len != y.len || (x.len && memcmp(pte_fb_vec_data(x), pte_fb_vec_data(y), x.len))) TW_DIFF("bool list");
      break;
    }
    case pte_et_KernelTypes_TensorList:
      if (!tw_vec_eq_i32(pte_et_TensorList_items(a), pte_et_TensorList_items(b))) TW_DIFF("tensor list");
      break;
    case pte_et_KernelTypes_OptionalTensorList:
      if (!tw_vec_eq_i32(pte_et_OptionalTensorList_items(a), pte_et_OptionalTensorList_items(b))) TW_DIFF("optional tensor list");
      break;
    case pte_et_KernelTypes_Tensor: return tw_cmp_tensor(pa, pb, a, b, why, cap);
    default: break;
  }
  return 0;
}

static inline int tw_cmp_instr(pte_fb_table a, pte_fb_table b, char *why, size_t cap) {
  uint8_t k = pte_et_Instruction_instr_args_type(a);
  if (k != pte_et_Instruction_instr_args_type(b)) TW_DIFF("instruction kind");
  pte_fb_table x = pte_et_Instruction_instr_args(a), y = pte_et_Instruction_instr_args(b);
  switch (k) {
    case pte_et_InstructionArguments_KernelCall:
      if (pte_et_KernelCall_op_index(x) != pte_et_KernelCall_op_index(y) || !tw_vec_eq_i32(pte_et_KernelCall_args(x), pte_et_KernelCall_args(y)))
        TW_DIFF("kernel call");
      break;
    case pte_et_InstructionArguments_DelegateCall:
      if (pte_et_DelegateCall_delegate_index(x) != pte_et_DelegateCall_delegate_index(y) ||
          !tw_vec_eq_i32(pte_et_DelegateCall_args(x), pte_et_DelegateCall_args(y)))
        TW_DIFF("delegate call");
      break;
    case pte_et_InstructionArguments_MoveCall:
      if (pte_et_MoveCall_move_from(x) != pte_et_MoveCall_move_from(y) || pte_et_MoveCall_move_to(x) != pte_et_MoveCall_move_to(y))
        TW_DIFF("move call");
      break;
    case pte_et_InstructionArguments_JumpFalseCall:
      if (pte_et_JumpFalseCall_cond_value_index(x) != pte_et_JumpFalseCall_cond_value_index(y) ||
          pte_et_JumpFalseCall_destination_instruction(x) != pte_et_JumpFalseCall_destination_instruction(y))
        TW_DIFF("jump false call");
      break;
    case pte_et_InstructionArguments_FreeCall:
      if (pte_et_FreeCall_value_index(x) != pte_et_FreeCall_value_index(y)) TW_DIFF("free call");
      break;
    default: TW_DIFF("unknown instruction");
  }
  return 0;
}

/* 0 if b has the same structure and data as a (methods, values, constants, mutable data,
 * instructions, operators, delegates with their blobs, memory plan, named data). */
static inline int tw_cmp_programs(const pte_program *pa, const pte_program *pb, char *why, size_t cap) {
  pte_fb_table ra = tw_root(pa), rb = tw_root(pb);
  pte_fb_vec plans_a = pte_et_Program_execution_plan(ra), plans_b = pte_et_Program_execution_plan(rb);
  if (plans_a.len != plans_b.len) TW_DIFF("method count %u vs %u", plans_a.len, plans_b.len);
  for (uint32_t pi = 0; pi < plans_a.len; pi++) {
    pte_fb_table a = pte_fb_vec_table(plans_a, pi), b = pte_fb_vec_table(plans_b, pi);
    if (!tw_str_eq(pte_et_ExecutionPlan_name(a), pte_et_ExecutionPlan_name(b))) TW_DIFF("method %u name", pi);
    pte_fb_vec va = pte_et_ExecutionPlan_values(a), vb = pte_et_ExecutionPlan_values(b);
    if (va.len != vb.len) TW_DIFF("method %u: %u vs %u values", pi, va.len, vb.len);
    for (uint32_t i = 0; i < va.len; i++) {
      char sub[160];
      if (tw_cmp_value(pa, pb, pte_fb_vec_table(va, i), pte_fb_vec_table(vb, i), sub, sizeof sub))
        TW_DIFF("method %u value %u: %s", pi, i, sub);
    }
    if (!tw_vec_eq_i32(pte_et_ExecutionPlan_inputs(a), pte_et_ExecutionPlan_inputs(b))) TW_DIFF("method %u inputs", pi);
    if (!tw_vec_eq_i32(pte_et_ExecutionPlan_outputs(a), pte_et_ExecutionPlan_outputs(b))) TW_DIFF("method %u outputs", pi);
    pte_fb_vec ca = pte_et_ExecutionPlan_chains(a), cb = pte_et_ExecutionPlan_chains(b);
    if (ca.len != cb.len) TW_DIFF("method %u chains", pi);
    for (uint32_t c = 0; c < ca.len; c++) {
      pte_fb_vec ia = pte_et_Chain_instructions(pte_fb_vec_table(ca, c)), ib = pte_et_Chain_instructions(pte_fb_vec_table(cb, c));
      if (ia.len != ib.len) TW_DIFF("method %u chain %u: %u vs %u instructions", pi, c, ia.len, ib.len);
      for (uint32_t k = 0; k < ia.len; k++) {
        char sub[160];
        if (tw_cmp_instr(pte_fb_vec_table(ia, k), pte_fb_vec_table(ib, k), sub, sizeof sub))
          TW_DIFF("method %u chain %u instruction %u: %s", pi, c, k, sub);
      }
    }
    pte_fb_vec oa = pte_et_ExecutionPlan_operators(a), ob = pte_et_ExecutionPlan_operators(b);
    if (oa.len != ob.len) TW_DIFF("method %u operators", pi);
    for (uint32_t i = 0; i < oa.len; i++) {
      pte_fb_table x = pte_fb_vec_table(oa, i), y = pte_fb_vec_table(ob, i);
      if (!tw_str_eq(pte_et_Operator_name(x), pte_et_Operator_name(y)) || !tw_str_eq(pte_et_Operator_overload(x), pte_et_Operator_overload(y)))
        TW_DIFF("method %u operator %u", pi, i);
    }
    pte_fb_vec da = pte_et_ExecutionPlan_delegates(a), db = pte_et_ExecutionPlan_delegates(b);
    if (da.len != db.len) TW_DIFF("method %u delegates", pi);
    for (uint32_t i = 0; i < da.len; i++) {
      pte_fb_table x = pte_fb_vec_table(da, i), y = pte_fb_vec_table(db, i);
      if (!tw_str_eq(pte_et_BackendDelegate_id(x), pte_et_BackendDelegate_id(y))) TW_DIFF("delegate %u id", i);
      pte_fb_vec sx = pte_et_BackendDelegate_compile_specs(x), sy = pte_et_BackendDelegate_compile_specs(y);
      if (sx.len != sy.len) TW_DIFF("delegate %u compile spec count", i);
      for (uint32_t k = 0; k < sx.len; k++) {
        pte_fb_table cx = pte_fb_vec_table(sx, k), cy = pte_fb_vec_table(sy, k);
        pte_fb_vec vx = pte_et_CompileSpec_value(cx), vy = pte_et_CompileSpec_value(cy);
        if (!tw_str_eq(pte_et_CompileSpec_key(cx), pte_et_CompileSpec_key(cy)) || vx.len != vy.len ||
            (vx.len && memcmp(pte_fb_vec_data(vx), pte_fb_vec_data(vy), vx.len)))
          TW_DIFF("delegate %u compile spec %u", i, k);
      }
      size_t nx = 0, ny = 0;
      uint8_t *bx = tw_delegate_blob(pa, x, &nx), *by = tw_delegate_blob(pb, y, &ny);
      int bad = !bx || !by || nx != ny || (nx && memcmp(bx, by, nx) != 0);
      free(bx);
      free(by);
      if (bad) TW_DIFF("delegate %u blob (%zu vs %zu bytes)", i, nx, ny);
    }
    pte_fb_vec na = pte_et_ExecutionPlan_non_const_buffer_sizes(a), nb = pte_et_ExecutionPlan_non_const_buffer_sizes(b);
    if (na.len != nb.len) TW_DIFF("method %u buffer size count", pi);
    for (uint32_t i = 0; i < na.len; i++)
      if (pte_fb_vec_i64(na, i) != pte_fb_vec_i64(nb, i)) TW_DIFF("method %u buffer size %u", pi, i);
  }
  const pte_named_data_map *ma = pte_program_named_data_map(pa), *mb = pte_program_named_data_map(pb);
  if (!ma != !mb) TW_DIFF("named data presence");
  if (ma) {
    uint32_t ka = 0, kb = 0;
    pte_named_data_map_num_keys(ma, &ka);
    pte_named_data_map_num_keys(mb, &kb);
    if (ka != kb) TW_DIFF("named data count");
    for (uint32_t i = 0; i < ka; i++) {
      const char *key = NULL, *keyb = NULL;
      pte_named_data_map_get_key(ma, i, &key);
      pte_named_data_map_get_key(mb, i, &keyb);
      if (!key || !keyb || strcmp(key, keyb)) TW_DIFF("named data key %u", i);
      pte_freeable_buffer x, y;
      if (pte_named_data_map_get_data(ma, key, &x) != PTE_OK) TW_DIFF("named data %s unreadable", key);
      if (pte_named_data_map_get_data(mb, key, &y) != PTE_OK) {
        pte_freeable_buffer_free(&x);
        TW_DIFF("named data %s unreadable in copy", key);
      }
      int bad = x.size != y.size || (x.size && memcmp(x.data, y.data, x.size));
      pte_freeable_buffer_free(&x);
      pte_freeable_buffer_free(&y);
      if (bad) TW_DIFF("named data %s bytes", key);
    }
  }
  return 0;
}

/* A writer with options o (NULL: defaults); NULL (and a message on stderr) on failure. */
static inline pte_writer *tw_new_writer(const pte_writer_options *o) {
  pte_writer *w = NULL;
  pte_error_info err;
  if (pte_writer_create(o, &w, &err) != PTE_OK) {
    fprintf(stderr, "create: %s\n", err.msg);
    return NULL;
  }
  return w;
}

/* Writes into memory; returns a malloc'd 64-aligned copy. */
static inline uint8_t *tw_write_mem(pte_writer *w, size_t *n, pte_error_info *err) {
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  pte_status s = pte_writer_write(w, &mw.base, err);
  uint8_t *out = NULL;
  if (s == PTE_OK) {
    const uint8_t *d = pte_memory_writer_data(&mw, n);
    out = (uint8_t *)aligned_alloc(64, (*n + 63) / 64 * 64 + 64);
    memcpy(out, d, *n);
  }
  pte_data_writer_destroy(&mw.base);
  return out;
}

#endif
