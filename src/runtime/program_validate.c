/* program_validate.c — semantic validation of a program at PTE_VERIFY_INTERNAL_CONSISTENCY: values,
 * tensors against their storage, instructions, execution plans, segments and named data
 * (pte_rt_validate_program, prog_internal.h; core: no allocation, no stdio). */
#include <stdint.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/headers.h"
#include "pte/program.h"
#include "pte/tensor.h"
#include "pte_gen/program_gen.h"
#include "runtime/prog_internal.h"

/* Runs only after the generated verifier accepted the whole buffer (PTE_VERIFY_INTERNAL_CONSISTENCY),
 * so it reads with the unchecked helpers below: every table, vector, string and field they touch
 * (same schema, same paths, union members per their verified tag) was bounds-checked by the
 * verifier. That keeps this pass a small fraction of the load time. All fields read here default
 * to 0 (NONE / STATIC / SEGMENT / INLINE) when absent. */

/* Unchecked reads: the generated pte_et_<Table>_<field>_at accessors (flatbuf.h pte_fb_raw_*). */
typedef pte_fb_raw_vec vvec;
static inline uint32_t vtab(const uint8_t *b, vvec v, uint32_t i) { return pte_fb_raw_vec_ref(b, v, i); }
static inline int32_t vvi32(const uint8_t *b, vvec v, uint32_t i) { return pte_fb_raw_vec_i32(b, v, i); }
static inline int64_t vvi64(const uint8_t *b, vvec v, uint32_t i) { return pte_fb_raw_vec_i64(b, v, i); }
static inline uint64_t vvu64(const uint8_t *b, vvec v, uint32_t i) { return pte_fb_raw_vec_u64(b, v, i); }
static inline pte_fb_vec as_fb_vec(const uint8_t *b, size_t size, vvec v) {
  pte_fb_vec r;
  r.buf = b;
  r.size = size;
  r.data = v.data;
  r.len = v.len;
  r.present = v.data != 0;
  return r;
}

typedef struct pv {
  const uint8_t *b;
  size_t size;
  pte_error_info *err;
  vvec segments;
  int storage;
  vvec cs_offsets;   /* constant_segment.offsets (SEGMENT storage) */
  uint64_t cs_size;  /* size of the constant segment */
  vvec constant_buffer;
  bool has_ms;       /* mutable_data_segments[0] usable */
  vvec ms_offsets;
  uint64_t ms_size;
  uint32_t n_inline_delegates;
} pv;

typedef struct plan_ctx {
  const char *name;
  vvec values;
  vvec inputs;
  vvec nbs; /* non_const_buffer_sizes */
  uint32_t n_ops;
  uint32_t n_delegates;
} plan_ctx;

#define BAD PTE_ERR_INVALID_PROGRAM

/* Failure inside method `pc`, with a prefix naming what (value j, chain/instruction...). */
#define PLAN_FAIL(c, pc, ...)                                                                       \
  do {                                                                                              \
    if (!(c)->err) return BAD;                                                                      \
    pte_error_info d_;                                                                              \
    pte_error_set(&d_, BAD, __VA_ARGS__);                                                           \
    return pte_error_set((c)->err, BAD, "method '%s': %s", (pc)->name, d_.msg);                     \
  } while (0)
#define VALUE_FAIL(c, pc, j, ...)                                                                   \
  do {                                                                                              \
    if (!(c)->err) return BAD;                                                                      \
    pte_error_info d_;                                                                              \
    pte_error_set(&d_, BAD, __VA_ARGS__);                                                           \
    return pte_error_set((c)->err, BAD, "method '%s' value %u: %s", (pc)->name, (unsigned)(j), d_.msg); \
  } while (0)
#define INSTR_FAIL(c, pc, ch, k, ...)                                                               \
  do {                                                                                              \
    if (!(c)->err) return BAD;                                                                      \
    pte_error_info d_;                                                                              \
    pte_error_set(&d_, BAD, __VA_ARGS__);                                                           \
    return pte_error_set((c)->err, BAD, "method '%s' chain %u instruction %u: %s", (pc)->name,      \
                         (unsigned)(ch), (unsigned)(k), d_.msg);                                    \
  } while (0)

static inline uint8_t value_tag(const pv *c, const plan_ctx *pc, uint32_t idx) {
  return pte_et_EValue_val_type_at(c->b, vtab(c->b, pc->values, idx));
}

static bool is_method_input(const pv *c, const plan_ctx *pc, uint32_t j) {
  for (uint32_t i = 0; i < pc->inputs.len; i++)
    if (vvi32(c->b, pc->inputs, i) == (int32_t)j) return true;
  return false;
}

static inline void vseg(const pv *c, uint32_t i, uint64_t *off, uint64_t *size) {
  uint32_t t = vtab(c->b, c->segments, i);
  *off = pte_et_DataSegment_offset_at(c->b, t);
  *size = pte_et_DataSegment_size_at(c->b, t);
}

static pte_status validate_tensor(const pv *c, const plan_ctx *pc, uint32_t j, uint32_t t) {
  const uint8_t *b = c->b;
  int dtype = (int8_t)pte_et_Tensor_scalar_type_at(b, t);
  vvec sizes = pte_et_Tensor_sizes_at(b, t);
  vvec dim_order = pte_et_Tensor_dim_order_at(b, t);
  uint64_t nbytes = 0;
  pte_error_info detail;
  detail.msg[0] = 0;
  int r = pte_rt_check_shape(dtype, as_fb_vec(b, c->size, sizes), as_fb_vec(b, c->size, dim_order), true, &nbytes,
                             c->err ? &detail : NULL);
  bool nbytes_known = r == PTE_RT_SHAPE_OK;
  if (r == PTE_RT_SHAPE_OVERFLOW) {
    /* Forgiven for dynamic-shape method inputs (their bounds may be huge; upstream does the same). */
    if (pte_et_Tensor_shape_dynamism_at(b, t) == 0 || !is_method_input(c, pc, j)) r = PTE_RT_SHAPE_BAD;
  }
  if (r == PTE_RT_SHAPE_BAD) VALUE_FAIL(c, pc, j, "%s", detail.msg);

  uint32_t extra = pte_et_Tensor_extra_tensor_info_at(b, t);
  bool external = extra && pte_et_ExtraTensorInfo_location_at(b, extra) == pte_et_TensorDataLocation_EXTERNAL;
  if (external && !pte_et_ExtraTensorInfo_fully_qualified_name_present_at(b, extra)) VALUE_FAIL(c, pc, j, "external tensor has no fully_qualified_name");

  uint32_t alloc = pte_et_Tensor_allocation_info_at(b, t);
  if (alloc) {
    uint32_t mem_id = pte_et_AllocationDetails_memory_id_at(b, alloc);
    uint64_t off = (uint64_t)pte_et_AllocationDetails_memory_offset_low_at(b, alloc) | ((uint64_t)pte_et_AllocationDetails_memory_offset_high_at(b, alloc) << 32);
    if (mem_id == 0 || mem_id >= pc->nbs.len)
      VALUE_FAIL(c, pc, j, "memory_id %u out of range (method has %u planned buffers)", mem_id,
                 pc->nbs.len ? pc->nbs.len - 1 : 0);
    uint64_t bsize = (uint64_t)vvi64(b, pc->nbs, mem_id);
    if (nbytes_known && (off > bsize || nbytes > bsize - off))
      VALUE_FAIL(c, pc, j, "planned at offset %llu with %llu bytes, past the end of buffer %u (%llu bytes)",
                 pte_rt_ull(off), pte_rt_ull(nbytes), mem_id, pte_rt_ull(bsize));
  }
  if (external) return PTE_OK; /* data_buffer_idx is meaningless for EXTERNAL tensors */

  uint32_t idx = pte_et_Tensor_data_buffer_idx_at(b, t);
  if (idx == 0) return PTE_OK;
  if (!alloc) { /* constant stored in the program */
    if (c->storage == PTE_CONSTANTS_SEGMENT) {
      if (idx >= c->cs_offsets.len)
        VALUE_FAIL(c, pc, j, "data_buffer_idx %u out of range (constant segment has %u offsets)", idx,
                   c->cs_offsets.len);
      uint64_t off = vvu64(b, c->cs_offsets, idx);
      if (nbytes_known && nbytes > c->cs_size - off) /* off <= cs_size checked by validate_program */
        VALUE_FAIL(c, pc, j, "constant at offset %llu with %llu bytes runs past the constant segment (%llu bytes)",
                   pte_rt_ull(off), pte_rt_ull(nbytes), pte_rt_ull(c->cs_size));
    } else if (c->storage == PTE_CONSTANTS_INLINE) {
      if (idx >= c->constant_buffer.len)
        VALUE_FAIL(c, pc, j, "data_buffer_idx %u out of range (constant_buffer has %u entries)", idx,
                   c->constant_buffer.len);
      vvec st = pte_et_Buffer_storage_at(b, vtab(b, c->constant_buffer, idx));
      if (nbytes_known && (uint64_t)st.len < nbytes)
        VALUE_FAIL(c, pc, j, "constant_buffer[%u] has %u bytes, tensor needs %llu", idx, st.len, pte_rt_ull(nbytes));
    } else {
      VALUE_FAIL(c, pc, j, "data_buffer_idx %u but the program stores no constants", idx);
    }
  } else { /* planned with an initial value from mutable_data_segments[0] */
    if (!c->has_ms)
      VALUE_FAIL(c, pc, j, "has initial data (data_buffer_idx %u) but the program has no mutable_data_segments",
                 idx);
    if (idx >= c->ms_offsets.len)
      VALUE_FAIL(c, pc, j, "data_buffer_idx %u out of range (mutable data segment has %u offsets)", idx,
                 c->ms_offsets.len);
    uint64_t off = vvu64(b, c->ms_offsets, idx);
    if (nbytes_known && nbytes > c->ms_size - off)
      VALUE_FAIL(c, pc, j, "initial data at offset %llu with %llu bytes runs past the mutable segment (%llu bytes)",
                 pte_rt_ull(off), pte_rt_ull(nbytes), pte_rt_ull(c->ms_size));
  }
  return PTE_OK;
}

static pte_status validate_value(const pv *c, const plan_ctx *pc, uint32_t j) {
  const uint8_t *b = c->b;
  uint32_t ev = vtab(b, pc->values, j);
  uint8_t tag = pte_et_EValue_val_type_at(b, ev);
  uint32_t val = pte_et_EValue_val_at(b, ev);
  if (tag == pte_et_KernelTypes_NONE) VALUE_FAIL(c, pc, j, "value has type NONE");
  if (tag > pte_et_KernelTypes_OptionalTensorList) VALUE_FAIL(c, pc, j, "unknown value type %u", (unsigned)tag);
  if (!val) {
    if (tag == pte_et_KernelTypes_Null) return PTE_OK;
    VALUE_FAIL(c, pc, j, "value of type %u has no payload", (unsigned)tag);
  }
  switch (tag) {
    case pte_et_KernelTypes_Tensor: return validate_tensor(c, pc, j, val);
    case pte_et_KernelTypes_String:
      if (!pte_et_String_string_val_present_at(b, val)) VALUE_FAIL(c, pc, j, "String has no string_val");
      return PTE_OK;
    case pte_et_KernelTypes_IntList: {
      vvec items = pte_et_IntList_items_at(b, val);
      if (!items.data) VALUE_FAIL(c, pc, j, "IntList has no items");
      for (uint32_t k = 0; k < items.len; k++) {
        int64_t it = vvi64(b, items, k);
        if (it < 0 || it >= (int64_t)pc->values.len)
          VALUE_FAIL(c, pc, j, "IntList item %u is value index %lld, out of range (%u values)", k, (long long)it,
                     pc->values.len);
        if (value_tag(c, pc, (uint32_t)it) != pte_et_KernelTypes_Int)
          VALUE_FAIL(c, pc, j, "IntList item %u refers to value %lld, which is not an Int", k, (long long)it);
      }
      return PTE_OK;
    }
    case pte_et_KernelTypes_DoubleList:
      if (!pte_et_DoubleList_items_present_at(b, val)) VALUE_FAIL(c, pc, j, "DoubleList has no items");
      return PTE_OK;
    case pte_et_KernelTypes_BoolList:
      if (!pte_et_BoolList_items_present_at(b, val)) VALUE_FAIL(c, pc, j, "BoolList has no items");
      return PTE_OK;
    case pte_et_KernelTypes_TensorList:
    case pte_et_KernelTypes_OptionalTensorList: {
      bool opt = tag == pte_et_KernelTypes_OptionalTensorList;
      const char *kind = opt ? "OptionalTensorList" : "TensorList";
      vvec items = opt ? pte_et_OptionalTensorList_items_at(b, val) : pte_et_TensorList_items_at(b, val);
      if (!items.data) VALUE_FAIL(c, pc, j, "%s has no items", kind);
      for (uint32_t k = 0; k < items.len; k++) {
        int32_t it = vvi32(b, items, k);
        if (opt && it == -1) continue;
        if (it < 0 || (uint32_t)it >= pc->values.len)
          VALUE_FAIL(c, pc, j, "%s item %u is value index %d, out of range (%u values)", kind, k, (int)it,
                     pc->values.len);
        if ((uint32_t)it >= j)
          VALUE_FAIL(c, pc, j, "%s item %u refers to value %d, which does not come before the list", kind, k,
                     (int)it);
        uint8_t t = value_tag(c, pc, (uint32_t)it);
        if (t != pte_et_KernelTypes_Tensor && !(opt && t == pte_et_KernelTypes_Null))
          VALUE_FAIL(c, pc, j, "%s item %u refers to value %d, which is not a Tensor", kind, k, (int)it);
      }
      return PTE_OK;
    }
    default: return PTE_OK; /* Null, Int, Bool, Double: nothing more to check */
  }
}

static pte_status validate_value_index(const pv *c, const plan_ctx *pc, int32_t idx, uint32_t ch, uint32_t k,
                                    const char *what) {
  if (idx < 0 || (uint32_t)idx >= pc->values.len)
    INSTR_FAIL(c, pc, ch, k, "%s value index %d out of range (%u values)", what, (int)idx, pc->values.len);
  return PTE_OK;
}

static pte_status check_args(const pv *c, const plan_ctx *pc, vvec args, uint32_t ch, uint32_t k) {
  if (!args.data) INSTR_FAIL(c, pc, ch, k, "call has no args");
  for (uint32_t a = 0; a < args.len; a++) {
    int32_t v = vvi32(c->b, args, a);
    if (v < 0 || (uint32_t)v >= pc->values.len)
      INSTR_FAIL(c, pc, ch, k, "arg %u is value index %d, out of range (%u values)", a, (int)v, pc->values.len);
  }
  return PTE_OK;
}

static pte_status validate_instructions(const pv *c, const plan_ctx *pc, vvec chains) {
  const uint8_t *b = c->b;
  for (uint32_t ch = 0; ch < chains.len; ch++) {
    uint32_t chain = vtab(b, chains, ch);
    vvec instrs = pte_et_Chain_instructions_at(b, chain);
    if (!instrs.data) PLAN_FAIL(c, pc, "chain %u has no instructions field", ch);
    for (uint32_t k = 0; k < instrs.len; k++) {
      uint32_t in = vtab(b, instrs, k);
      uint8_t tag = pte_et_Instruction_instr_args_type_at(b, in);
      uint32_t a = pte_et_Instruction_instr_args_at(b, in);
      if (tag == pte_et_InstructionArguments_NONE || tag > pte_et_InstructionArguments_FreeCall) INSTR_FAIL(c, pc, ch, k, "invalid instruction type %u", (unsigned)tag);
      if (!a) INSTR_FAIL(c, pc, ch, k, "instruction of type %u has no arguments", tag);
      pte_status s = PTE_OK;
      switch (tag) {
        case pte_et_InstructionArguments_KernelCall: {
          int32_t op = pte_et_KernelCall_op_index_at(b, a);
          if (op < 0 || (uint32_t)op >= pc->n_ops)
            INSTR_FAIL(c, pc, ch, k, "KernelCall op_index %d out of range (%u operators)", (int)op, pc->n_ops);
          s = check_args(c, pc, pte_et_KernelCall_args_at(b, a), ch, k);
          break;
        }
        case pte_et_InstructionArguments_DelegateCall: {
          int32_t d = pte_et_DelegateCall_delegate_index_at(b, a);
          if (d < 0 || (uint32_t)d >= pc->n_delegates)
            INSTR_FAIL(c, pc, ch, k, "DelegateCall delegate_index %d out of range (%u delegates)", (int)d,
                       pc->n_delegates);
          s = check_args(c, pc, pte_et_DelegateCall_args_at(b, a), ch, k);
          break;
        }
        case pte_et_InstructionArguments_MoveCall:
          s = validate_value_index(c, pc, pte_et_MoveCall_move_from_at(b, a), ch, k, "MoveCall move_from");
          if (s == PTE_OK) s = validate_value_index(c, pc, pte_et_MoveCall_move_to_at(b, a), ch, k, "MoveCall move_to");
          break;
        case pte_et_InstructionArguments_JumpFalseCall: {
          s = validate_value_index(c, pc, pte_et_JumpFalseCall_cond_value_index_at(b, a), ch, k, "JumpFalseCall cond_value_index");
          int32_t dst = pte_et_JumpFalseCall_destination_instruction_at(b, a);
          if (s == PTE_OK && (dst < 0 || (uint32_t)dst > instrs.len))
            INSTR_FAIL(c, pc, ch, k, "JumpFalseCall destination %d out of range (%u instructions)", (int)dst,
                       instrs.len);
          break;
        }
        case pte_et_InstructionArguments_FreeCall: s = validate_value_index(c, pc, pte_et_FreeCall_value_index_at(b, a), ch, k, "FreeCall value_index"); break;
        default: break;
      }
      if (s != PTE_OK) return s;
    }
  }
  return PTE_OK;
}

static pte_status validate_plan(const pv *c, uint32_t p, uint32_t i) {
  const uint8_t *b = c->b;
  plan_ctx pc;
  memset(&pc, 0, sizeof pc);
  uint32_t name = pte_et_ExecutionPlan_name_at(b, p);
  if (!name) return pte_error_set(c->err, BAD, "execution plan %u has no name", i);
  pc.name = (const char *)(b + name + 4);
  pc.values = pte_et_ExecutionPlan_values_at(b, p);
  if (!pc.values.data) PLAN_FAIL(c, &pc, "missing values");
  pc.inputs = pte_et_ExecutionPlan_inputs_at(b, p);
  vvec outputs = pte_et_ExecutionPlan_outputs_at(b, p);
  if (!pc.inputs.data) PLAN_FAIL(c, &pc, "missing inputs");
  if (!outputs.data) PLAN_FAIL(c, &pc, "missing outputs");
  for (uint32_t k = 0; k < pc.inputs.len; k++) {
    int32_t v = vvi32(b, pc.inputs, k);
    if (v < 0 || (uint32_t)v >= pc.values.len)
      PLAN_FAIL(c, &pc, "input %u is value index %d, out of range (%u values)", k, (int)v, pc.values.len);
  }
  for (uint32_t k = 0; k < outputs.len; k++) {
    int32_t v = vvi32(b, outputs, k);
    if (v < 0 || (uint32_t)v >= pc.values.len)
      PLAN_FAIL(c, &pc, "output %u is value index %d, out of range (%u values)", k, (int)v, pc.values.len);
  }
  pc.nbs = pte_et_ExecutionPlan_non_const_buffer_sizes_at(b, p);
  if (!pc.nbs.data) PLAN_FAIL(c, &pc, "missing non_const_buffer_sizes");
  for (uint32_t k = 0; k < pc.nbs.len; k++)
    if (vvi64(b, pc.nbs, k) < 0)
      PLAN_FAIL(c, &pc, "non_const_buffer_sizes[%u] is negative (%lld)", k, (long long)vvi64(b, pc.nbs, k));

  vvec ops = pte_et_ExecutionPlan_operators_at(b, p);
  pc.n_ops = ops.len;
  for (uint32_t k = 0; k < ops.len; k++) {
    uint32_t op = vtab(b, ops, k);
    if (!pte_et_Operator_name_present_at(b, op)) PLAN_FAIL(c, &pc, "operator %u has no name", k);
    if (!pte_et_Operator_overload_present_at(b, op)) PLAN_FAIL(c, &pc, "operator %u has no overload", k);
  }
  vvec dels = pte_et_ExecutionPlan_delegates_at(b, p);
  if (!dels.data) PLAN_FAIL(c, &pc, "missing delegates");
  pc.n_delegates = dels.len;
  for (uint32_t k = 0; k < dels.len; k++) {
    uint32_t d = vtab(b, dels, k);
    if (!pte_et_BackendDelegate_id_present_at(b, d)) PLAN_FAIL(c, &pc, "delegate %u has no id", k);
    uint32_t ref = pte_et_BackendDelegate_processed_at(b, d);
    if (!ref) PLAN_FAIL(c, &pc, "delegate %u has no processed data reference", k);
    uint8_t loc = pte_et_BackendDelegateDataReference_location_at(b, ref);
    uint32_t idx = pte_et_BackendDelegateDataReference_index_at(b, ref);
    if (loc == pte_et_DataLocation_INLINE) {
      if (idx >= c->n_inline_delegates)
        PLAN_FAIL(c, &pc, "delegate %u: INLINE data index %u out of range (%u backend_delegate_data entries)", k,
                  idx, c->n_inline_delegates);
    } else if (loc == pte_et_DataLocation_SEGMENT) {
      if (idx >= c->segments.len)
        PLAN_FAIL(c, &pc, "delegate %u: segment index %u out of range (%u segments)", k, idx, c->segments.len);
    } else {
      PLAN_FAIL(c, &pc, "delegate %u: invalid data location %u", k, (unsigned)loc);
    }
    vvec specs = pte_et_BackendDelegate_compile_specs_at(b, d);
    for (uint32_t q = 0; q < specs.len; q++) {
      uint32_t sp = vtab(b, specs, q);
      if (!pte_et_CompileSpec_key_present_at(b, sp) || !pte_et_CompileSpec_value_present_at(b, sp))
        PLAN_FAIL(c, &pc, "delegate %u compile spec %u has no key or value", k, q);
    }
  }
  vvec chains = pte_et_ExecutionPlan_chains_at(b, p);
  if (!chains.data) PLAN_FAIL(c, &pc, "missing chains");
  pte_status s = validate_instructions(c, &pc, chains);
  if (s != PTE_OK) return s;
  for (uint32_t j = 0; j < pc.values.len; j++) {
    s = validate_value(c, &pc, j);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}

/* Bytes available after the segment base, for segment bounds. */
static uint64_t segment_limit(const pte_program *p) {
  const pte_program_header *h = &p->header;
  if (!h->present || h->segment_base_offset == 0) return 0;
  if (h->segment_data_size > 0) return h->segment_data_size;
  return h->segment_base_offset < p->file_size ? p->file_size - h->segment_base_offset : 0;
}

/* A SubsegmentOffsets table: segment index in range, every offset inside that segment. */
static pte_status subseg_check(const pv *c, uint32_t ss, const char *what, uint32_t which) {
  uint32_t si = pte_et_SubsegmentOffsets_segment_index_at(c->b, ss);
  if (si >= c->segments.len)
    return pte_error_set(c->err, BAD, "%s %u: segment_index %u out of range (%u segments)", what, which, si,
                         c->segments.len);
  uint64_t off, size;
  vseg(c, si, &off, &size);
  vvec offs = pte_et_SubsegmentOffsets_offsets_at(c->b, ss);
  for (uint32_t k = 0; k < offs.len; k++) {
    uint64_t o = vvu64(c->b, offs, k);
    if (o > size)
      return pte_error_set(c->err, BAD, "%s %u: offset %u (%llu) is past the end of segment %u (%llu bytes)", what,
                           which, k, pte_rt_ull(o), si, pte_rt_ull(size));
  }
  return PTE_OK;
}

/* Whole-program semantic checks (after the structural verifier passed). */
pte_status pte_rt_validate_program(const pte_program *p, pte_error_info *err) {
  pv c;
  memset(&c, 0, sizeof c);
  const uint8_t *b = p->fb;
  c.b = b;
  c.size = p->fb_size;
  c.err = err;
  c.storage = p->constant_storage;
  uint32_t root = p->root;
  vvec plans = pte_et_Program_execution_plan_at(b, root);
  if (!plans.data) return pte_error_set(err, BAD, "program has no execution_plan");
  c.segments = pte_et_Program_segments_at(b, root);
  c.constant_buffer = pte_et_Program_constant_buffer_at(b, root);
  c.n_inline_delegates = pte_et_Program_backend_delegate_data_at(b, root).len;

  pte_fb_table rt = pte_fb_table_at(b, c.size, root);
  pte_status s = pte_rt_check_segments(pte_et_Program_segments(rt), segment_limit(p), "program", BAD, err);
  if (s != PTE_OK) return s;

  if (c.storage == PTE_CONSTANTS_SEGMENT) {
    uint32_t cs = pte_et_Program_constant_segment_at(b, root);
    s = subseg_check(&c, cs, "constant_segment", 0);
    if (s != PTE_OK) return s;
    c.cs_offsets = pte_et_SubsegmentOffsets_offsets_at(b, cs);
    uint64_t off;
    vseg(&c, p->constant_segment_index, &off, &c.cs_size);
  }
  vvec ms = pte_et_Program_mutable_data_segments_at(b, root);
  for (uint32_t k = 0; k < ms.len; k++) {
    s = subseg_check(&c, vtab(b, ms, k), "mutable_data_segments", k);
    if (s != PTE_OK) return s;
  }
  if (ms.len > 0) {
    uint32_t m0 = vtab(b, ms, 0);
    c.ms_offsets = pte_et_SubsegmentOffsets_offsets_at(b, m0);
    if (c.ms_offsets.data) {
      uint64_t off;
      c.has_ms = true;
      vseg(&c, pte_et_SubsegmentOffsets_segment_index_at(b, m0), &off, &c.ms_size);
    }
  }
  vvec named = pte_et_Program_named_data_at(b, root);
  for (uint32_t k = 0; k < named.len; k++) {
    uint32_t nd = vtab(b, named, k);
    uint32_t key = pte_et_NamedData_key_at(b, nd);
    if (!key) return pte_error_set(err, BAD, "named_data %u has no key", k);
    uint32_t si = pte_et_NamedData_segment_index_at(b, nd);
    if (si >= c.segments.len)
      return pte_error_set(err, BAD, "named_data %u ('%s'): segment_index %u out of range (%u segments)", k,
                           (const char *)(b + key + 4), si, c.segments.len);
  }
  for (uint32_t i = 0; i < plans.len; i++) {
    s = validate_plan(&c, vtab(b, plans, i), i);
    if (s != PTE_OK) return s;
  }
  return PTE_OK;
}
