/* program.c — loading, verifying and querying a .pte program (core: no allocation, no stdio).
 *
 * Load path (upstream Program::load semantics, see pte/program.h for the differences):
 *   head (64 bytes) -> eh00 header -> flatbuffer region [0, program_size) -> identifier ->
 *   verification (root offset, or full structure + semantic validation) -> named data map ->
 *   constant segment.
 * Every flatbuffer read goes through the bounds-checked reader, so even a program loaded with
 * PTE_VERIFY_MINIMAL cannot make pte read outside the buffer.
 */
#include <stdint.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/headers.h"
#include "pte/program.h"
#include "pte/tensor.h"
#include "pte_gen/program_gen.h"
#include "runtime/prog_internal.h"

#define MAX_UNSORTED_SEGMENTS 4096u

static inline unsigned long long ull(uint64_t x) { return (unsigned long long)x; }

/* ================================================================== shared helpers */

int pte_rt_check_shape(int dtype, pte_fb_vec sizes, pte_fb_vec dim_order, bool require_dim_order,
                       uint64_t *nbytes, pte_error_info *detail) {
  if (nbytes) *nbytes = 0;
  if (!pte_dtype_valid(dtype)) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "invalid scalar type %d", dtype);
    return PTE_RT_SHAPE_BAD;
  }
  if (!sizes.present) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor has no sizes");
    return PTE_RT_SHAPE_BAD;
  }
  uint32_t rank = sizes.len;
  if (rank > PTE_MAX_RANK) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor rank %u exceeds the maximum of %d", rank,
                  PTE_MAX_RANK);
    return PTE_RT_SHAPE_BAD;
  }
  if (!pte_rt_vec_fits(sizes, 4)) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor sizes run past the end of the buffer");
    return PTE_RT_SHAPE_BAD;
  }
  if (dim_order.present || require_dim_order) {
    if (!dim_order.present) {
      pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor has no dim_order");
      return PTE_RT_SHAPE_BAD;
    }
    if (dim_order.len != rank) {
      pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "dim_order has %u entries for rank %u", dim_order.len,
                    rank);
      return PTE_RT_SHAPE_BAD;
    }
    if (!pte_rt_vec_fits(dim_order, 1)) {
      pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "dim_order runs past the end of the buffer");
      return PTE_RT_SHAPE_BAD;
    }
    const uint8_t *d = dim_order.buf + dim_order.data;
    uint32_t seen = 0;
    for (uint32_t i = 0; i < rank; i++) {
      if (d[i] >= rank || (seen & (1u << d[i]))) {
        pte_error_set(detail, PTE_ERR_INVALID_PROGRAM,
                      "dim_order is not a permutation of 0..%u (entry %u is %u)", rank ? rank - 1 : 0, i,
                      (unsigned)d[i]);
        return PTE_RT_SHAPE_BAD;
      }
      seen |= 1u << d[i];
    }
  }
  const uint8_t *s = sizes.buf + sizes.data;
  const uint64_t limit = (uint64_t)PTRDIFF_MAX;
  uint64_t numel = 1;
  bool overflow = false;
  for (uint32_t i = 0; i < rank; i++) {
    int32_t v = pte_fb_ld_i32(s + 4u * i);
    if (v < 0) {
      pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "size %d at dimension %u is negative", (int)v, i);
      return PTE_RT_SHAPE_BAD;
    }
    if (!overflow && v != 0 && numel > limit / (uint64_t)v) overflow = true;
    if (!overflow) numel *= (uint64_t)v;
  }
  size_t es = pte_dtype_size(dtype);
  if (!overflow && numel > limit / es) overflow = true;
  if (overflow) {
    pte_error_set(detail, PTE_ERR_INVALID_PROGRAM, "tensor byte size overflows (rank %u, element size %zu)",
                  rank, es);
    return PTE_RT_SHAPE_OVERFLOW;
  }
  if (nbytes) *nbytes = numel * es;
  return PTE_RT_SHAPE_OK;
}

static inline void seg_get(pte_fb_table t, uint64_t *off, uint64_t *size) {
  *off = pte_et_DataSegment_offset(t);
  *size = pte_et_DataSegment_size(t);
}

pte_status pte_rt_check_segments(pte_fb_vec segments, uint64_t limit, const char *what, pte_status bad,
                                 pte_error_info *err) {
  if (!segments.present) return PTE_OK;
  uint64_t prev_end = 0;
  bool sorted = true;
  for (uint32_t i = 0; i < segments.len; i++) {
    pte_fb_table t = pte_fb_vec_table(segments, i);
    if (!pte_fb_table_present(t)) return pte_error_set(err, bad, "%s segment %u is missing", what, i);
    uint64_t off, size;
    seg_get(t, &off, &size);
    if (size > UINT64_MAX - off)
      return pte_error_set(err, bad, "%s segment %u: offset %llu + size %llu overflows", what, i, ull(off),
                           ull(size));
    if (off + size > limit)
      return pte_error_set(err, bad,
                           "%s segment %u (offset %llu, size %llu) lies outside the segment data (%llu bytes)",
                           what, i, ull(off), ull(size), ull(limit));
    if (size == 0) continue;
    if (off < prev_end) sorted = false;
    else prev_end = off + size;
  }
  if (sorted) return PTE_OK;
  /* Unsorted: pairwise check of non-empty segments (bounded, so a hostile table cannot make this
   * quadratic in an unbounded way). */
  if (segments.len > MAX_UNSORTED_SEGMENTS)
    return pte_error_set(err, bad, "%s has %u segments that are not in ascending order (at most %u allowed)",
                         what, segments.len, MAX_UNSORTED_SEGMENTS);
  for (uint32_t i = 0; i < segments.len; i++) {
    uint64_t oi, si;
    seg_get(pte_fb_vec_table(segments, i), &oi, &si);
    if (si == 0) continue;
    for (uint32_t j = i + 1; j < segments.len; j++) {
      uint64_t oj, sj;
      seg_get(pte_fb_vec_table(segments, j), &oj, &sj);
      if (sj == 0) continue;
      if (oi < oj + sj && oj < oi + si)
        return pte_error_set(err, bad,
                             "%s segments %u (offset %llu, size %llu) and %u (offset %llu, size %llu) overlap",
                             what, i, ull(oi), ull(si), j, ull(oj), ull(sj));
    }
  }
  return PTE_OK;
}

uint32_t pte_rt_find_key(pte_fb_vec entries, unsigned key_slot, const char *key) {
  if (!key || !entries.present) return UINT32_MAX;
  size_t klen = strlen(key);
  for (uint32_t i = 0; i < entries.len; i++) {
    pte_fb_str s = pte_fb_get_str(pte_fb_vec_table(entries, i), key_slot);
    if (s.ptr && s.len == klen && memcmp(s.ptr, key, klen) == 0) return i;
  }
  return UINT32_MAX;
}

/* Byte order of two keys (a shorter key that is a prefix of the other sorts first). */
static int rt_key_cmp(const char *a, size_t alen, const char *b, size_t blen) {
  int c = memcmp(a, b, alen < blen ? alen : blen);
  if (c) return c;
  return alen < blen ? -1 : alen > blen;
}

bool pte_rt_keys_sorted(pte_fb_vec entries, unsigned key_slot) {
  if (!entries.present) return false;
  pte_fb_str prev = {NULL, 0};
  for (uint32_t i = 0; i < entries.len; i++) {
    pte_fb_str s = pte_fb_get_str(pte_fb_vec_table(entries, i), key_slot);
    if (!s.ptr) return false;
    if (i > 0 && rt_key_cmp(prev.ptr, prev.len, s.ptr, s.len) >= 0) return false;
    prev = s;
  }
  return true;
}

uint32_t pte_rt_find_key_sorted(pte_fb_vec entries, unsigned key_slot, const char *key) {
  if (!key || !entries.present) return UINT32_MAX;
  const size_t klen = strlen(key);
  uint32_t lo = 0, hi = entries.len;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    pte_fb_str s = pte_fb_get_str(pte_fb_vec_table(entries, mid), key_slot);
    if (!s.ptr) return pte_rt_find_key(entries, key_slot, key); /* not what the sortedness check saw */
    const int c = rt_key_cmp(s.ptr, s.len, key, klen);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return UINT32_MAX;
}

/* ================================================================== semantic validation
 *
 * Runs only after the generated verifier accepted the whole buffer (PTE_VERIFY_INTERNAL_CONSISTENCY),
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
                 ull(off), ull(nbytes), mem_id, ull(bsize));
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
                   ull(off), ull(nbytes), ull(c->cs_size));
    } else if (c->storage == PTE_CONSTANTS_INLINE) {
      if (idx >= c->constant_buffer.len)
        VALUE_FAIL(c, pc, j, "data_buffer_idx %u out of range (constant_buffer has %u entries)", idx,
                   c->constant_buffer.len);
      vvec st = pte_et_Buffer_storage_at(b, vtab(b, c->constant_buffer, idx));
      if (nbytes_known && (uint64_t)st.len < nbytes)
        VALUE_FAIL(c, pc, j, "constant_buffer[%u] has %u bytes, tensor needs %llu", idx, st.len, ull(nbytes));
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
                 ull(off), ull(nbytes), ull(c->ms_size));
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

static pte_status check_value_index(const pv *c, const plan_ctx *pc, int32_t idx, uint32_t ch, uint32_t k,
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
          s = check_value_index(c, pc, pte_et_MoveCall_move_from_at(b, a), ch, k, "MoveCall move_from");
          if (s == PTE_OK) s = check_value_index(c, pc, pte_et_MoveCall_move_to_at(b, a), ch, k, "MoveCall move_to");
          break;
        case pte_et_InstructionArguments_JumpFalseCall: {
          s = check_value_index(c, pc, pte_et_JumpFalseCall_cond_value_index_at(b, a), ch, k, "JumpFalseCall cond_value_index");
          int32_t dst = pte_et_JumpFalseCall_destination_instruction_at(b, a);
          if (s == PTE_OK && (dst < 0 || (uint32_t)dst > instrs.len))
            INSTR_FAIL(c, pc, ch, k, "JumpFalseCall destination %d out of range (%u instructions)", (int)dst,
                       instrs.len);
          break;
        }
        case pte_et_InstructionArguments_FreeCall: s = check_value_index(c, pc, pte_et_FreeCall_value_index_at(b, a), ch, k, "FreeCall value_index"); break;
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
                           which, k, ull(o), si, ull(size));
  }
  return PTE_OK;
}

/* Whole-program semantic checks (after the structural verifier passed). */
static pte_status validate_program(const pte_program *p, pte_error_info *err) {
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

/* ================================================================== PteDataMap (named_data in the .pte) */

static pte_fb_table prog_root(const pte_program *p) { return pte_fb_table_at(p->fb, p->fb_size, p->root); }

static pte_status pdm_find(const pte_program *p, const char *key, uint32_t *seg) {
  if (!key) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec named = pte_et_Program_named_data(prog_root(p));
  uint32_t i = p->named_data_sorted ? pte_rt_find_key_sorted(named, pte_et_NamedData_key_SLOT, key)
                                     : pte_rt_find_key(named, pte_et_NamedData_key_SLOT, key);
  if (i == UINT32_MAX) return PTE_ERR_NOT_FOUND;
  *seg = pte_et_NamedData_segment_index(pte_fb_vec_table(named, i));
  return PTE_OK;
}

static pte_status pdm_get_tensor_layout(const pte_named_data_map *m, const char *key, pte_tensor_layout *out) {
  (void)m;
  (void)key;
  (void)out;
  return PTE_ERR_NOT_IMPLEMENTED; /* opaque blobs only, as upstream */
}

static pte_status pdm_get_data(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out) {
  const pte_program *p = ((const pte_pte_data_map *)m)->program;
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  uint32_t seg;
  pte_status s = pdm_find(p, key, &seg);
  if (s != PTE_OK) return s;
  pte_segment_info info = {PTE_SEGMENT_CONSTANT, seg, NULL};
  return pte_program_load_segment(p, seg, &info, out);
}

static pte_status pdm_load_data_into(const pte_named_data_map *m, const char *key, void *buf, size_t size) {
  const pte_program *p = ((const pte_pte_data_map *)m)->program;
  uint32_t seg;
  pte_status s = pdm_find(p, key, &seg);
  if (s != PTE_OK) return s;
  uint64_t off, ssize;
  s = pte_program_segment(p, seg, &off, &ssize);
  if (s != PTE_OK) return s;
  if ((uint64_t)size != ssize || (!buf && size)) return PTE_ERR_INVALID_ARGUMENT;
  if (p->header.segment_base_offset == 0) return PTE_ERR_NOT_FOUND;
  if (off > UINT64_MAX - p->header.segment_base_offset) return PTE_ERR_INVALID_PROGRAM;
  pte_segment_info info = {PTE_SEGMENT_MUTABLE, seg, NULL};
  return pte_loader_load_into(p->loader, p->header.segment_base_offset + off, size, &info, buf);
}

static pte_status pdm_num_keys(const pte_named_data_map *m, uint32_t *out) {
  const pte_program *p = ((const pte_pte_data_map *)m)->program;
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec named = pte_et_Program_named_data(prog_root(p));
  *out = named.present ? named.len : 0;
  return PTE_OK;
}

static pte_status pdm_get_key(const pte_named_data_map *m, uint32_t index, const char **out) {
  const pte_program *p = ((const pte_pte_data_map *)m)->program;
  if (!out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec named = pte_et_Program_named_data(prog_root(p));
  if (!named.present || index >= named.len) return PTE_ERR_INVALID_ARGUMENT;
  const char *k = pte_et_NamedData_key(pte_fb_vec_table(named, index)).ptr;
  if (!k) return PTE_ERR_INVALID_PROGRAM;
  *out = k;
  return PTE_OK;
}

static const pte_named_data_map_vtable pte_data_map_vt = {pdm_get_tensor_layout, pdm_get_data, pdm_load_data_into,
                                                          pdm_num_keys, pdm_get_key};

/* ================================================================== load */

static pte_status fail_free(pte_program *p, pte_status s) {
  pte_freeable_buffer_free(&p->constant_segment);
  pte_freeable_buffer_free(&p->program_data);
  memset(p, 0, sizeof *p);
  return s;
}

pte_status pte_program_load(const pte_data_loader *loader, pte_verification verification, pte_program *program,
                            pte_error_info *err) {
  return pte_program_load_with_limits(loader, verification, NULL, program, err);
}

pte_status pte_program_load_with_limits(const pte_data_loader *loader, pte_verification verification,
                                        const pte_program_limits *limits, pte_program *program,
                                        pte_error_info *err) {
  if (!program) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "program load: NULL program");
  memset(program, 0, sizeof *program);
  if (!loader || !loader->vt) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "program load: NULL loader");
  if (verification != PTE_VERIFY_MINIMAL && verification != PTE_VERIFY_INTERNAL_CONSISTENCY)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "program load: unknown verification level %d",
                         (int)verification);
  pte_program *p = program;
  p->loader = loader;

  /* 1. Size, limits, head bytes and the extended header. */
  uint64_t file_size = 0;
  pte_status s = pte_loader_size(loader, &file_size);
  if (s != PTE_OK) return fail_free(p, pte_error_set(err, s, "program load: cannot get the data size"));
  p->file_size = file_size;
  if (limits && limits->max_file_size && file_size > limits->max_file_size)
    return fail_free(p, pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "program file is %llu bytes, over the limit of %llu",
                                      ull(file_size), ull(limits->max_file_size)));
  if (file_size < PTE_HEAD_BYTES)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                      "program file is %llu bytes, too small (at least %d needed); file may be truncated",
                                      ull(file_size), PTE_HEAD_BYTES));
  pte_segment_info prog_info = {PTE_SEGMENT_PROGRAM, 0, NULL};
  pte_freeable_buffer head;
  s = pte_loader_load(loader, 0, PTE_HEAD_BYTES, &prog_info, &head);
  if (s != PTE_OK) return fail_free(p, pte_error_set(err, s, "program load: cannot load the first %d bytes", PTE_HEAD_BYTES));
  if (!head.data || head.size < PTE_HEAD_BYTES) {
    pte_freeable_buffer_free(&head);
    return fail_free(p, pte_error_set(err, PTE_ERR_ACCESS_FAILED, "program load: loader returned a short head"));
  }
  pte_extended_header eh;
  s = pte_extended_header_parse(head.data, head.size, &eh, err);
  pte_freeable_buffer_free(&head);
  uint64_t program_size;
  if (s == PTE_OK) {
    s = pte_extended_header_validate(&eh, file_size, err);
    if (s != PTE_OK) return fail_free(p, s);
    p->header.present = true;
    p->header.header_length = eh.header_length;
    p->header.program_size = eh.program_size;
    p->header.segment_base_offset = eh.segment_base_offset;
    p->header.segment_data_size = eh.segment_data_size;
    program_size = eh.program_size;
  } else if (s == PTE_ERR_NOT_FOUND) {
    program_size = file_size;
    p->header.program_size = file_size;
  } else {
    return fail_free(p, s);
  }
  if (program_size < 8)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "program_size %llu is too small for a flatbuffer",
                                      ull(program_size)));
  if (program_size > 0x7FFFFFFFull || program_size > (uint64_t)SIZE_MAX)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                      "program flatbuffer of %llu bytes exceeds the 2 GiB FlatBuffers limit",
                                      ull(program_size)));

  /* 2. The flatbuffer region. */
  s = pte_loader_load(loader, 0, (size_t)program_size, &prog_info, &p->program_data);
  if (s != PTE_OK)
    return fail_free(p, pte_error_set(err, s, "program load: cannot load the program data (%llu bytes)",
                                      ull(program_size)));
  if (!p->program_data.data || p->program_data.size < (size_t)program_size)
    return fail_free(p, pte_error_set(err, PTE_ERR_ACCESS_FAILED, "program load: loader returned a short buffer"));
  p->fb = (const uint8_t *)p->program_data.data;
  p->fb_size = (size_t)program_size;
  if ((uintptr_t)p->fb % PTE_RT_BUFFER_ALIGN != 0)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "program data at 0x%llx must be aligned to %d bytes",
                                      ull((uint64_t)(uintptr_t)p->fb), PTE_RT_BUFFER_ALIGN));
  if (memcmp(p->fb + 4, "ET12", 4) != 0) {
    char id[5];
    pte_rt_ident(p->fb + 4, id);
    if (p->fb[4] == 'E' && p->fb[5] == 'T')
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "program identifier '%s' is an incompatible version (expected 'ET12')", id));
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                      "not a program: identifier '%s' != expected 'ET12'", id));
  }

  /* 3. Verification. */
  uint32_t root = pte_fb_ld_u32(p->fb);
  if (root < 8 || (uint64_t)root > (uint64_t)p->fb_size - 4)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                      "root table offset %u out of range [8, %llu]; data may be truncated or corrupt",
                                      root, ull(p->fb_size - 4)));
  p->root = root;
  if (verification == PTE_VERIFY_INTERNAL_CONSISTENCY) {
    s = pte_et_verify_root(p->fb, p->fb_size, err);
    if (s != PTE_OK) return fail_free(p, pte_rt_remap(s, PTE_ERR_INVALID_PROGRAM, err));
  }
  pte_fb_table rt = pte_fb_table_at(p->fb, p->fb_size, root);
  if (!pte_fb_table_present(rt))
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "root table at %u is malformed", root));

  pte_fb_vec segments = pte_et_Program_segments(rt);
  uint32_t n_segments = segments.present ? segments.len : 0;
  pte_fb_vec constant_buffer = pte_et_Program_constant_buffer(rt);

  /* 4. Named data needs a segment table. */
  pte_fb_vec named = pte_et_Program_named_data(rt);
  if (named.present && !segments.present)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                                      "program has named_data (%u entries) but no segments", named.len));

  /* 5. Where the constants live. */
  pte_fb_table cs = pte_et_Program_constant_segment(rt);
  pte_fb_vec cs_offsets = pte_et_SubsegmentOffsets_offsets(cs);
  uint32_t cb_len = constant_buffer.present ? constant_buffer.len : 0;
  uint64_t cs_off = 0, cs_size = 0;
  if (cs_offsets.present && cs_offsets.len > 1) {
    if (cb_len > 0)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "constants stored both inline (constant_buffer has %u entries) and in a "
                                        "segment (constant_segment has %u offsets); only one should be used",
                                        cb_len, cs_offsets.len));
    if (!segments.present)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "constant_segment is used but the program has no segments"));
    uint32_t si = pte_et_SubsegmentOffsets_segment_index(cs);
    if (si >= n_segments)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "constant segment index %u out of range (%u segments)", si, n_segments));
    seg_get(pte_fb_vec_table(segments, si), &cs_off, &cs_size);
    if (cs_size > 0 && p->header.segment_base_offset == 0)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "constant segment %u has %llu bytes but the file has no segment data", si,
                                        ull(cs_size)));
    if (cs_off > UINT64_MAX - p->header.segment_base_offset || cs_size > (uint64_t)SIZE_MAX)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "constant segment %u offset/size overflow", si));
    p->constant_storage = PTE_CONSTANTS_SEGMENT;
    p->constant_segment_index = si;
  } else if (cb_len > 0) {
    p->constant_storage = PTE_CONSTANTS_INLINE;
  } else {
    p->constant_storage = PTE_CONSTANTS_NONE;
  }

  /* 6. Semantic validation. */
  if (verification == PTE_VERIFY_INTERNAL_CONSISTENCY) {
    s = validate_program(p, err);
    if (s != PTE_OK) return fail_free(p, s);
  }

  /* 7. Named data map and constant segment. */
  if (named.present) {
    p->has_named_data = true;
    /* keys in byte order (pte's writer emits them so): lookups by binary search */
    p->named_data_sorted = pte_rt_keys_sorted(named, pte_et_NamedData_key_SLOT);
    p->named_data.base.vt = &pte_data_map_vt;
    p->named_data.program = p;
  }
  if (p->constant_storage == PTE_CONSTANTS_SEGMENT && cs_size > 0) {
    pte_segment_info ci = {PTE_SEGMENT_CONSTANT, p->constant_segment_index, NULL};
    s = pte_loader_load(loader, p->header.segment_base_offset + cs_off, (size_t)cs_size, &ci, &p->constant_segment);
    if (s != PTE_OK)
      return fail_free(p, pte_error_set(err, s, "cannot load constant segment %u (offset %llu, %llu bytes)",
                                        p->constant_segment_index, ull(p->header.segment_base_offset + cs_off),
                                        ull(cs_size)));
    if (p->constant_segment.size < (size_t)cs_size || !p->constant_segment.data)
      return fail_free(p, pte_error_set(err, PTE_ERR_ACCESS_FAILED, "loader returned a short constant segment"));
  }
  if (err) {
    err->status = PTE_OK;
    err->msg[0] = 0;
  }
  return PTE_OK;
}

void pte_program_destroy(pte_program *program) {
  if (!program) return;
  pte_freeable_buffer_free(&program->constant_segment);
  pte_freeable_buffer_free(&program->program_data);
  memset(program, 0, sizeof *program);
}

/* ================================================================== queries */

static pte_fb_vec plans_of(const pte_program *p) {
  if (!p || !p->fb) {
    pte_fb_vec v;
    memset(&v, 0, sizeof v);
    return v;
  }
  return pte_et_Program_execution_plan(prog_root(p));
}

size_t pte_program_num_methods(const pte_program *program) {
  pte_fb_vec v = plans_of(program);
  return v.present ? v.len : 0;
}

const char *pte_program_method_name(const pte_program *program, size_t i) {
  pte_fb_vec v = plans_of(program);
  if (!v.present || i >= v.len) return NULL;
  return pte_et_ExecutionPlan_name(pte_fb_vec_table(v, (uint32_t)i)).ptr;
}

pte_status pte_program_find_method(const pte_program *program, const char *name, size_t *index) {
  if (!name) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec v = plans_of(program);
  size_t n = strlen(name);
  for (uint32_t i = 0; v.present && i < v.len; i++) {
    pte_fb_str s = pte_et_ExecutionPlan_name(pte_fb_vec_table(v, i));
    if (s.ptr && s.len == n && memcmp(s.ptr, name, n) == 0) {
      if (index) *index = i;
      return PTE_OK;
    }
  }
  return PTE_ERR_INVALID_ARGUMENT;
}

const pte_program_header *pte_program_get_header(const pte_program *program) {
  return program ? &program->header : NULL;
}

pte_constant_storage pte_program_constant_storage(const pte_program *program) {
  return program ? (pte_constant_storage)program->constant_storage : PTE_CONSTANTS_NONE;
}

static const uint8_t pte_empty_constant[1] = {0};

pte_status pte_program_constant_data(const pte_program *program, size_t idx, size_t nbytes, const void **out) {
  if (!program || !program->fb || !out) return PTE_ERR_INVALID_ARGUMENT;
  *out = NULL;
  pte_fb_table rt = prog_root(program);
  if (program->constant_storage == PTE_CONSTANTS_SEGMENT) {
    pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(pte_et_Program_constant_segment(rt));
    if (!offs.present || idx >= offs.len) return PTE_ERR_INVALID_ARGUMENT;
    uint64_t off = pte_fb_vec_u64(offs, (uint32_t)idx);
    size_t size = program->constant_segment.size;
    if (off > size || nbytes > size - off) return PTE_ERR_INVALID_ARGUMENT;
    *out = program->constant_segment.data ? (const uint8_t *)program->constant_segment.data + off
                                          : pte_empty_constant;
    return PTE_OK;
  }
  if (program->constant_storage == PTE_CONSTANTS_INLINE) {
    pte_fb_vec cb = pte_et_Program_constant_buffer(rt);
    if (!cb.present || idx >= cb.len) return PTE_ERR_INVALID_ARGUMENT;
    pte_fb_vec st = pte_et_Buffer_storage(pte_fb_vec_table(cb, (uint32_t)idx));
    if ((uint64_t)st.len < (uint64_t)nbytes || (st.present && !pte_rt_vec_fits(st, 1)))
      return PTE_ERR_INVALID_ARGUMENT;
    *out = st.present ? (const void *)pte_fb_vec_data(st) : (const void *)pte_empty_constant;
    return PTE_OK;
  }
  return PTE_ERR_INVALID_ARGUMENT;
}

size_t pte_program_num_segments(const pte_program *program) {
  if (!program || !program->fb) return 0;
  pte_fb_vec v = pte_et_Program_segments(prog_root(program));
  return v.present ? v.len : 0;
}

pte_status pte_program_segment(const pte_program *program, size_t i, uint64_t *offset, uint64_t *size) {
  if (!program || !program->fb) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec v = pte_et_Program_segments(prog_root(program));
  if (!v.present || i >= v.len) return PTE_ERR_NOT_FOUND;
  pte_fb_table t = pte_fb_vec_table(v, (uint32_t)i);
  if (!pte_fb_table_present(t)) return PTE_ERR_INVALID_PROGRAM;
  uint64_t o, s;
  seg_get(t, &o, &s);
  if (offset) *offset = o;
  if (size) *size = s;
  return PTE_OK;
}

pte_status pte_program_load_segment(const pte_program *program, size_t i, const pte_segment_info *info,
                                    pte_freeable_buffer *out) {
  if (!program || !program->fb || !out) return PTE_ERR_INVALID_ARGUMENT;
  *out = pte_freeable_buffer_view(NULL, 0);
  uint64_t base = program->header.segment_base_offset;
  if (!program->loader || base == 0) return PTE_ERR_NOT_FOUND;
  uint64_t off, size;
  pte_status s = pte_program_segment(program, i, &off, &size);
  if (s != PTE_OK) return s;
  if (off > UINT64_MAX - base || size > (uint64_t)SIZE_MAX || size > UINT64_MAX - (base + off))
    return PTE_ERR_INVALID_PROGRAM;
  pte_segment_info def = {PTE_SEGMENT_BACKEND, i, NULL};
  return pte_loader_load(program->loader, base + off, (size_t)size, info ? info : &def, out);
}

pte_status pte_program_load_mutable_into(const pte_program *program, size_t msi, size_t offset_index, size_t size,
                                         void *dst) {
  if (!program || !program->fb || (!dst && size)) return PTE_ERR_INVALID_ARGUMENT;
  uint64_t base = program->header.segment_base_offset;
  if (!program->loader || base == 0) return PTE_ERR_NOT_FOUND;
  pte_fb_table rt = prog_root(program);
  pte_fb_vec ms = pte_et_Program_mutable_data_segments(rt);
  if (!ms.present || msi >= ms.len) return PTE_ERR_NOT_FOUND;
  pte_fb_table ss = pte_fb_vec_table(ms, (uint32_t)msi);
  pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(ss);
  if (!offs.present || offset_index >= offs.len) return PTE_ERR_NOT_FOUND;
  uint64_t off = pte_fb_vec_u64(offs, (uint32_t)offset_index);
  uint32_t si = pte_et_SubsegmentOffsets_segment_index(ss);
  uint64_t soff, ssize;
  pte_status s = pte_program_segment(program, si, &soff, &ssize);
  if (s != PTE_OK) return s;
  if (off > ssize || (uint64_t)size > ssize - off) return PTE_ERR_INVALID_ARGUMENT;
  if (soff > UINT64_MAX - base || off > UINT64_MAX - (base + soff)) return PTE_ERR_INVALID_PROGRAM;
  pte_segment_info info = {PTE_SEGMENT_MUTABLE, si, NULL};
  return pte_loader_load_into(program->loader, base + soff + off, size, &info, dst);
}

const pte_named_data_map *pte_program_named_data_map(const pte_program *program) {
  if (!program || !program->has_named_data) return NULL;
  return &program->named_data.base;
}

const uint8_t *pte_program_flatbuffer(const pte_program *program, size_t *size) {
  if (size) *size = program ? program->fb_size : 0;
  return program ? program->fb : NULL;
}

uint32_t pte_program_root(const pte_program *program) { return (program && program->fb) ? program->root : 0; }
