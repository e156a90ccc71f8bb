/* pte inspect FILE [--json] [--data FILE.ptd] — what a .pte / .ptd / .bpte contains. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "format/flatbuf.h"
#include "jsonw.h"
#include "inspect.h"
#include "runner.h"
#include "pte/bundled.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte/program.h"
#include "pte/prepare.h"
#include "pte/ptd.h"
#include "pte/tensor.h"
#include "pte_gen/flat_tensor_gen.h"
#include "pte_gen/program_gen.h"

static void help(FILE *f) {
  fprintf(f,
          "usage: pte inspect FILE [--json] [--data FILE.ptd]\n"
          "\n"
          "Shows what a .pte program, .ptd data file or .bpte bundled program contains: header,\n"
          "methods (inputs/outputs, operators, instruction counts, delegates, memory plan),\n"
          "segments, constant storage, named data, mutable data; for .ptd its tensors; for .bpte\n"
          "the embedded program and its test suites.\n"
          "\n"
          "  --json          print one JSON object (for scripts)\n"
          "  --data FILE     also describe this .ptd (external data for the program)\n"
          "  -h, --help      this help\n"
          "\n"
          "Operators without a kernel in this build are marked '(no kernel in this build)'\n"
          "(JSON: missing_kernels per method).\n");
}

/* ------------------------------------------------------------------ small helpers */
void inspect_put_fbstr(out *o, pte_fb_str s) {
  if (s.ptr) jw_strn(&o->w, s.ptr, s.len);
  else jw_null(&o->w);
}

static const char *instr_kind_name(unsigned k) {
  static const char *const names[] = {"None", "KernelCall", "DelegateCall", "MoveCall", "JumpFalseCall", "FreeCall"};
  return k < 6 ? names[k] : "Unknown";
}

/* Fills `buf` with "DTYPE[2, 3]" style text for a tensor table. */
static void tensor_text(pte_fb_table t, char *buf, size_t cap) {
  pte_fb_vec sz = pte_et_Tensor_sizes(t);
  int8_t st = pte_et_Tensor_scalar_type(t);
  size_t n = (size_t)snprintf(buf, cap, "%s[", pte_dtype_name(st));
  for (uint32_t i = 0; i < sz.len && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%d", i ? ", " : "", pte_fb_vec_i32(sz, i));
  if (n < cap) n += (size_t)snprintf(buf + n, cap - n, "]");
  pte_fb_vec dord = pte_et_Tensor_dim_order(t);
  bool contiguous = true;
  for (uint32_t i = 0; i < dord.len; i++)
    if (pte_fb_vec_u8(dord, i) != i) contiguous = false;
  if (!contiguous && n < cap) {
    n += (size_t)snprintf(buf + n, cap - n, " dim_order=[");
    for (uint32_t i = 0; i < dord.len && n < cap; i++)
      n += (size_t)snprintf(buf + n, cap - n, "%s%u", i ? "," : "", pte_fb_vec_u8(dord, i));
    if (n < cap) n += (size_t)snprintf(buf + n, cap - n, "]");
  }
  int8_t dyn = pte_et_Tensor_shape_dynamism(t);
  if (dyn == 1 && n < cap) n += (size_t)snprintf(buf + n, cap - n, " (dynamic, sizes are upper bounds)");
  if (dyn == 2 && n < cap) n += (size_t)snprintf(buf + n, cap - n, " (dynamic, unbound)");
  pte_fb_table alloc = pte_et_Tensor_allocation_info(t);
  if (!pte_fb_table_present(alloc) && pte_et_Tensor_data_buffer_idx(t) == 0 && n < cap)
    snprintf(buf + n, cap - n, " (unplanned)");
}

static void json_value(out *o, pte_fb_vec values, int32_t idx) {
  jsonw *w = &o->w;
  jw_obj(w);
  jw_kint(w, "value", idx);
  pte_fb_table ev = pte_fb_vec_table(values, (uint32_t)idx);
  uint8_t tag = pte_et_EValue_val_type(ev);
  pte_fb_table val = pte_et_EValue_val(ev);
  jw_kstr(w, "kind", pte_et_KernelTypes_name(tag));
  switch (tag) {
    case pte_et_KernelTypes_Tensor: {
      int8_t st = pte_et_Tensor_scalar_type(val);
      jw_kstr(w, "dtype", pte_dtype_name(st));                 /* as pte run --json names it */
      jw_kstr(w, "scalar_type", pte_dtype_upstream_name(st));  /* the schema's enum name */
      jw_key(w, "sizes");
      jw_arr(w);
      pte_fb_vec sz = pte_et_Tensor_sizes(val);
      for (uint32_t i = 0; i < sz.len; i++) jw_int(w, pte_fb_vec_i32(sz, i));
      jw_arr_end(w);
      jw_key(w, "dim_order");
      jw_arr(w);
      pte_fb_vec d = pte_et_Tensor_dim_order(val);
      for (uint32_t i = 0; i < d.len; i++) jw_int(w, pte_fb_vec_u8(d, i));
      jw_arr_end(w);
      jw_kstr(w, "dynamism", pte_et_TensorShapeDynamism_name(pte_et_Tensor_shape_dynamism(val)));
      pte_fb_table alloc = pte_et_Tensor_allocation_info(val);
      jw_kbool(w, "planned", pte_fb_table_present(alloc));
      break;
    }
    case pte_et_KernelTypes_Int: jw_kint(w, "int", pte_et_Int_int_val(val)); break;
    case pte_et_KernelTypes_Double: jw_key(w, "double"); jw_double(w, pte_et_Double_double_val(val)); break;
    case pte_et_KernelTypes_Bool: jw_kbool(w, "bool", pte_et_Bool_bool_val(val)); break;
    case pte_et_KernelTypes_String: jw_key(w, "string"); inspect_put_fbstr(o, pte_et_String_string_val(val)); break;
    default: break;
  }
  jw_obj_end(w);
}

static void value_text(pte_fb_vec values, int32_t idx, char *buf, size_t cap) {
  pte_fb_table ev = pte_fb_vec_table(values, (uint32_t)idx);
  uint8_t tag = pte_et_EValue_val_type(ev);
  pte_fb_table val = pte_et_EValue_val(ev);
  int n = snprintf(buf, cap, "v%d ", idx);
  if (n < 0 || (size_t)n >= cap) return;
  switch (tag) {
    case pte_et_KernelTypes_Tensor: tensor_text(val, buf + n, cap - (size_t)n); break;
    case pte_et_KernelTypes_Int: snprintf(buf + n, cap - (size_t)n, "Int %lld", (long long)pte_et_Int_int_val(val)); break;
    case pte_et_KernelTypes_Double: snprintf(buf + n, cap - (size_t)n, "Double %g", pte_et_Double_double_val(val)); break;
    case pte_et_KernelTypes_Bool: snprintf(buf + n, cap - (size_t)n, "Bool %s", pte_et_Bool_bool_val(val) ? "true" : "false"); break;
    default: snprintf(buf + n, cap - (size_t)n, "%s", pte_et_KernelTypes_name(tag)); break;
  }
}

static uint64_t delegate_size(pte_fb_table root, pte_fb_table ref, bool *segment) {
  uint32_t loc = (uint32_t)pte_et_BackendDelegateDataReference_location(ref);
  uint32_t index = pte_et_BackendDelegateDataReference_index(ref);
  *segment = loc == pte_et_DataLocation_SEGMENT;
  if (*segment) {
    pte_fb_vec segs = pte_et_Program_segments(root);
    pte_fb_table s = pte_fb_vec_table(segs, index);
    return pte_et_DataSegment_size(s);
  }
  pte_fb_vec inl = pte_et_Program_backend_delegate_data(root);
  pte_fb_table d = pte_fb_vec_table(inl, index);
  return pte_et_BackendDelegateInlineData_data(d).len;
}

static const char *constants_kind(const pte_program *p) {
  switch (pte_program_constant_storage(p)) {
    case PTE_CONSTANTS_SEGMENT: return "segment";
    case PTE_CONSTANTS_INLINE: return "inline";
    default: return "none";
  }
}

/* First bytes of a delegate blob or named-data value, enough to recognise a prepared envelope. */
typedef struct data_head {
  uint8_t bytes[PTE_PREPARED_HEADER_SIZE];
  size_t len;
  uint64_t total;
  bool ok;
} data_head;

static data_head segment_head(const pte_program *p, uint32_t seg) {
  data_head h = {{0}, 0, 0, false};
  uint64_t off = 0, size = 0;
  if (pte_program_segment(p, seg, &off, &size) != PTE_OK) return h;
  const pte_program_header *hd = pte_program_get_header(p);
  h.total = size;
  h.len = size < sizeof h.bytes ? (size_t)size : sizeof h.bytes;
  pte_segment_info info = {PTE_SEGMENT_CONSTANT, seg, NULL};
  h.ok = pte_data_loader_load_into(p->loader, hd->segment_base_offset + off, h.len, &info, h.bytes) == PTE_OK;
  return h;
}

static data_head delegate_head(const pte_program *p, pte_fb_table root, pte_fb_table ref) {
  uint32_t index = pte_et_BackendDelegateDataReference_index(ref);
  if (pte_et_BackendDelegateDataReference_location(ref) == pte_et_DataLocation_SEGMENT) return segment_head(p, index);
  data_head h = {{0}, 0, 0, false};
  pte_fb_vec data = pte_et_BackendDelegateInlineData_data(pte_fb_vec_table(pte_et_Program_backend_delegate_data(root), index));
  h.total = data.len;
  h.len = data.len < sizeof h.bytes ? data.len : sizeof h.bytes;
  if (h.len) memcpy(h.bytes, pte_fb_vec_data(data), h.len);
  h.ok = true;
  return h;
}

/* JSON "data": "portable" | {"prepared": {...}} | "malformed envelope" */
static void json_data_state(jsonw *w, const data_head *h) {
  jw_key(w, "data");
  if (!h->ok) {
    jw_str(w, "unreadable");
    return;
  }
  pte_prepared_info info;
  pte_status s = pte_prepared_describe(h->bytes, h->len, h->total, &info);
  if (s == PTE_ERR_NOT_FOUND) {
    jw_str(w, "portable");
  } else if (s == PTE_OK) {
    char fp[2 * PTE_PREPARED_FINGERPRINT_MAX + 8];
    jw_obj(w);
    jw_key(w, "prepared");
    jw_obj(w);
    jw_kstr(w, "backend", info.backend_id);
    jw_kuint(w, "format", info.format_version);
    jw_kstr(w, "fingerprint", pte_prepared_fingerprint_text(info.fingerprint, info.fingerprint_size, fp, sizeof fp));
    jw_kuint(w, "payload_size", info.payload_size);
    jw_obj_end(w);
    jw_obj_end(w);
  } else {
    jw_str(w, "malformed envelope");
  }
}

static const char *text_data_state(const data_head *h, char *buf, size_t cap) {
  if (!h->ok) return "unreadable";
  return pte_prepared_describe_text(h->bytes, h->len, h->total, buf, cap);
}

/* ------------------------------------------------------------------ .pte */
/* "name.overload" of an Operator table. */
static void op_full_name(pte_fb_table op, char *buf, size_t cap) {
  pte_fb_str name = pte_et_Operator_name(op), ov = pte_et_Operator_overload(op);
  snprintf(buf, cap, "%.*s%s%.*s", (int)name.len, name.ptr ? name.ptr : "", ov.len ? "." : "", (int)ov.len,
           ov.ptr ? ov.ptr : "");
}

static void describe_program_json(out *o, const pte_program *p) {
  jsonw *w = &o->w;
  size_t fbsize;
  const uint8_t *fb = pte_program_flatbuffer(p, &fbsize);
  pte_fb_table root = pte_fb_root(fb, fbsize);
  const pte_program_header *h = pte_program_get_header(p);
  jw_key(w, "header");
  if (h->present) {
    jw_obj(w);
    jw_kuint(w, "header_length", h->header_length);
    jw_kuint(w, "program_size", h->program_size);
    jw_kuint(w, "segment_base_offset", h->segment_base_offset);
    jw_kuint(w, "segment_data_size", h->segment_data_size);
    jw_obj_end(w);
  } else {
    jw_null(w);
  }
  jw_kuint(w, "schema_version", pte_et_Program_version(root));
  jw_key(w, "methods");
  jw_arr(w);
  pte_fb_vec plans = pte_et_Program_execution_plan(root);
  for (uint32_t m = 0; m < plans.len; m++) {
    pte_fb_table plan = pte_fb_vec_table(plans, m);
    pte_fb_vec values = pte_et_ExecutionPlan_values(plan);
    jw_obj(w);
    jw_key(w, "name");
    inspect_put_fbstr(o, pte_et_ExecutionPlan_name(plan));
    jw_kuint(w, "num_values", values.len);
    const char *io_names[2] = {"inputs", "outputs"};
    pte_fb_vec io[2] = {pte_et_ExecutionPlan_inputs(plan), pte_et_ExecutionPlan_outputs(plan)};
    for (int k = 0; k < 2; k++) {
      jw_key(w, io_names[k]);
      jw_arr(w);
      for (uint32_t i = 0; i < io[k].len; i++) json_value(o, values, pte_fb_vec_i32(io[k], i));
      jw_arr_end(w);
    }
    /* operators actually used, in operator-table order, plus instruction counts */
    pte_fb_vec ops = pte_et_ExecutionPlan_operators(plan);
    jw_key(w, "operators");
    jw_arr(w);
    for (uint32_t i = 0; i < ops.len; i++) {
      pte_fb_table op = pte_fb_vec_table(ops, i);
      pte_fb_str name = pte_et_Operator_name(op), ov = pte_et_Operator_overload(op);
      char buf[512];
      snprintf(buf, sizeof buf, "%.*s%s%.*s", (int)name.len, name.ptr ? name.ptr : "", ov.len ? "." : "",
               (int)ov.len, ov.ptr ? ov.ptr : "");
      jw_str(w, buf);
    }
    jw_arr_end(w);
    /* operators this build has no kernel for (pte run would fail with OperatorMissing) */
    jw_key(w, "missing_kernels");
    jw_arr(w);
    for (uint32_t i = 0; i < ops.len; i++) {
      char buf[512];
      op_full_name(pte_fb_vec_table(ops, i), buf, sizeof buf);
      if (!pte_cli_op_available(buf)) jw_str(w, buf);
    }
    jw_arr_end(w);
    unsigned counts[6] = {0};
    pte_fb_vec chains = pte_et_ExecutionPlan_chains(plan);
    for (uint32_t c = 0; c < chains.len; c++) {
      pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, c));
      for (uint32_t i = 0; i < ins.len; i++) {
        uint8_t k = pte_et_Instruction_instr_args_type(pte_fb_vec_table(ins, i));
        counts[k < 6 ? k : 0]++;
      }
    }
    jw_kuint(w, "chains", chains.len);
    jw_key(w, "instructions");
    jw_obj(w);
    for (unsigned k = 1; k < 6; k++) jw_kuint(w, instr_kind_name(k), counts[k]);
    jw_obj_end(w);
    jw_key(w, "delegates");
    jw_arr(w);
    pte_fb_vec dels = pte_et_ExecutionPlan_delegates(plan);
    for (uint32_t i = 0; i < dels.len; i++) {
      pte_fb_table d = pte_fb_vec_table(dels, i);
      pte_fb_table ref = pte_et_BackendDelegate_processed(d);
      bool seg;
      uint64_t size = delegate_size(root, ref, &seg);
      jw_obj(w);
      jw_key(w, "id");
      inspect_put_fbstr(o, pte_et_BackendDelegate_id(d));
      jw_kstr(w, "location", seg ? "segment" : "inline");
      jw_kuint(w, "index", pte_et_BackendDelegateDataReference_index(ref));
      jw_kuint(w, "size", size);
      jw_kbool(w, "share_handle", pte_et_BackendDelegate_share_handle(d));
      data_head dh = delegate_head(p, root, ref);
      json_data_state(w, &dh);
      jw_key(w, "scratch");
      jw_arr(w);
      pte_fb_vec scr = pte_et_BackendDelegate_scratch(d);
      for (uint32_t s = 0; s < scr.len; s++) {
        pte_fb_table sc = pte_fb_vec_table(scr, s);
        jw_obj(w);
        jw_kuint(w, "memory_id", pte_et_DelegateScratch_memory_id(sc));
        jw_kuint(w, "offset", pte_et_DelegateScratch_offset(sc));
        jw_kuint(w, "size", pte_et_DelegateScratch_size(sc));
        jw_obj_end(w);
      }
      jw_arr_end(w);
      jw_key(w, "compile_specs");
      jw_arr(w);
      pte_fb_vec specs = pte_et_BackendDelegate_compile_specs(d);
      for (uint32_t s = 0; s < specs.len; s++) {
        pte_fb_table cs = pte_fb_vec_table(specs, s);
        jw_obj(w);
        jw_key(w, "key");
        inspect_put_fbstr(o, pte_et_CompileSpec_key(cs));
        jw_kuint(w, "value_size", pte_et_CompileSpec_value(cs).len);
        jw_obj_end(w);
      }
      jw_arr_end(w);
      jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "non_const_buffer_sizes");
    jw_arr(w);
    pte_fb_vec nc = pte_et_ExecutionPlan_non_const_buffer_sizes(plan);
    for (uint32_t i = 0; i < nc.len; i++) jw_int(w, pte_fb_vec_i64(nc, i));
    jw_arr_end(w);
    jw_obj_end(w);
  }
  jw_arr_end(w);

  jw_key(w, "segments");
  jw_arr(w);
  size_t ns = pte_program_num_segments(p);
  for (size_t i = 0; i < ns; i++) {
    uint64_t off = 0, size = 0;
    pte_program_segment(p, i, &off, &size);
    jw_obj(w);
    jw_kuint(w, "offset", off);
    jw_kuint(w, "size", size);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_kstr(w, "constants", constants_kind(p));
  pte_fb_table cseg = pte_et_Program_constant_segment(root);
  pte_fb_vec cbuf = pte_et_Program_constant_buffer(root);
  jw_key(w, "constant_buffers");
  jw_uint(w, pte_program_constant_storage(p) == PTE_CONSTANTS_INLINE ? cbuf.len
                                                                     : pte_et_SubsegmentOffsets_offsets(cseg).len);
  jw_key(w, "named_data");
  jw_arr(w);
  pte_fb_vec nd = pte_et_Program_named_data(root);
  for (uint32_t i = 0; i < nd.len; i++) {
    pte_fb_table e = pte_fb_vec_table(nd, i);
    uint32_t si = pte_et_NamedData_segment_index(e);
    uint64_t off = 0, size = 0;
    jw_obj(w);
    jw_key(w, "key");
    inspect_put_fbstr(o, pte_et_NamedData_key(e));
    jw_kuint(w, "segment_index", si);
    if (pte_program_segment(p, si, &off, &size) == PTE_OK) jw_kuint(w, "size", size);
    data_head dh = segment_head(p, si);
    json_data_state(w, &dh);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "mutable_data_segments");
  jw_arr(w);
  pte_fb_vec mds = pte_et_Program_mutable_data_segments(root);
  for (uint32_t i = 0; i < mds.len; i++) {
    pte_fb_table e = pte_fb_vec_table(mds, i);
    jw_obj(w);
    jw_kuint(w, "segment_index", pte_et_SubsegmentOffsets_segment_index(e));
    jw_kuint(w, "offsets", pte_et_SubsegmentOffsets_offsets(e).len);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static void describe_program_text(out *o, const pte_program *p) {
  FILE *f = o->f;
  size_t fbsize;
  const uint8_t *fb = pte_program_flatbuffer(p, &fbsize);
  pte_fb_table root = pte_fb_root(fb, fbsize);
  const pte_program_header *h = pte_program_get_header(p);
  if (h->present)
    fprintf(f, "header     eh00 (%u bytes): program_size %llu, segment_base %llu, segment_data %llu\n",
            h->header_length, (unsigned long long)h->program_size, (unsigned long long)h->segment_base_offset,
            (unsigned long long)h->segment_data_size);
  else
    fprintf(f, "header     none (plain flatbuffer, %zu bytes)\n", fbsize);
  fprintf(f, "schema     ET12 version %u\n", pte_et_Program_version(root));
  pte_fb_table cseg = pte_et_Program_constant_segment(root);
  pte_fb_vec cbuf = pte_et_Program_constant_buffer(root);
  if (pte_program_constant_storage(p) == PTE_CONSTANTS_INLINE)
    fprintf(f, "constants  inline constant_buffer (%u buffers, legacy format)\n", cbuf.len);
  else if (pte_program_constant_storage(p) == PTE_CONSTANTS_SEGMENT)
    fprintf(f, "constants  segment %u (%u offsets)\n", pte_et_SubsegmentOffsets_segment_index(cseg),
            pte_et_SubsegmentOffsets_offsets(cseg).len);
  else
    fprintf(f, "constants  none\n");
  size_t ns = pte_program_num_segments(p);
  fprintf(f, "segments   %zu", ns);
  for (size_t i = 0; i < ns; i++) {
    uint64_t off = 0, size = 0;
    pte_program_segment(p, i, &off, &size);
    fprintf(f, "%s[%zu] @%llu %llu B", i ? ", " : ": ", i, (unsigned long long)off, (unsigned long long)size);
    if (i >= 7 && ns > 9) {
      fprintf(f, ", ... (%zu more)", ns - i - 1);
      break;
    }
  }
  fputc('\n', f);
  pte_fb_vec nd = pte_et_Program_named_data(root);
  if (nd.len) {
    fprintf(f, "named data %u key(s)\n", nd.len);
    for (uint32_t i = 0; i < nd.len; i++) {
      pte_fb_table e = pte_fb_vec_table(nd, i);
      pte_fb_str k = pte_et_NamedData_key(e);
      uint32_t si = pte_et_NamedData_segment_index(e);
      uint64_t off = 0, size = 0;
      pte_program_segment(p, si, &off, &size);
      data_head dh = segment_head(p, si);
      char state[256];
      fprintf(f, "           %.*s -> segment %u (%llu B), %s\n", (int)k.len, k.ptr ? k.ptr : "", si,
              (unsigned long long)size, text_data_state(&dh, state, sizeof state));
    }
  }
  pte_fb_vec mds = pte_et_Program_mutable_data_segments(root);
  for (uint32_t i = 0; i < mds.len; i++) {
    pte_fb_table e = pte_fb_vec_table(mds, i);
    fprintf(f, "mutable    segment %u (%u offsets: initial state of planned tensors)\n",
            pte_et_SubsegmentOffsets_segment_index(e), pte_et_SubsegmentOffsets_offsets(e).len);
  }
  pte_fb_vec plans = pte_et_Program_execution_plan(root);
  fprintf(f, "methods    %u\n", plans.len);
  for (uint32_t m = 0; m < plans.len; m++) {
    pte_fb_table plan = pte_fb_vec_table(plans, m);
    pte_fb_vec values = pte_et_ExecutionPlan_values(plan);
    pte_fb_str name = pte_et_ExecutionPlan_name(plan);
    fprintf(f, "\n%.*s  (%u values)\n", (int)name.len, name.ptr ? name.ptr : "", values.len);
    const char *io_names[2] = {"inputs ", "outputs"};
    pte_fb_vec io[2] = {pte_et_ExecutionPlan_inputs(plan), pte_et_ExecutionPlan_outputs(plan)};
    for (int k = 0; k < 2; k++) {
      fprintf(f, "  %s  ", io_names[k]);
      if (!io[k].len) fprintf(f, "(none)");
      for (uint32_t i = 0; i < io[k].len; i++) {
        char buf[256];
        value_text(values, pte_fb_vec_i32(io[k], i), buf, sizeof buf);
        fprintf(f, "%s%s", i ? "; " : "", buf);
      }
      fputc('\n', f);
    }
    unsigned counts[6] = {0};
    pte_fb_vec chains = pte_et_ExecutionPlan_chains(plan);
    pte_fb_vec ops = pte_et_ExecutionPlan_operators(plan);
    unsigned *op_uses = calloc(ops.len + 1, sizeof(unsigned));
    for (uint32_t c = 0; c < chains.len; c++) {
      pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, c));
      for (uint32_t i = 0; i < ins.len; i++) {
        pte_fb_table in = pte_fb_vec_table(ins, i);
        uint8_t k = pte_et_Instruction_instr_args_type(in);
        counts[k < 6 ? k : 0]++;
        if (k == pte_et_InstructionArguments_KernelCall && op_uses) {
          int32_t oi = pte_et_KernelCall_op_index(pte_et_Instruction_instr_args(in));
          if (oi >= 0 && (uint32_t)oi < ops.len) op_uses[oi]++;
        }
      }
    }
    fprintf(f, "  instrs   ");
    unsigned total = 0;
    for (unsigned k = 1; k < 6; k++) {
      if (!counts[k]) continue;
      fprintf(f, "%s%s %u", total ? ", " : "", instr_kind_name(k), counts[k]);
      total += counts[k];
    }
    if (!total) fprintf(f, "none (constant method)");
    fputc('\n', f);
    for (uint32_t i = 0; i < ops.len; i++) {
      pte_fb_table op = pte_fb_vec_table(ops, i);
      pte_fb_str on = pte_et_Operator_name(op), ov = pte_et_Operator_overload(op);
      fprintf(f, "  op       %.*s%s%.*s", (int)on.len, on.ptr ? on.ptr : "", ov.len ? "." : "", (int)ov.len,
              ov.ptr ? ov.ptr : "");
      if (op_uses && op_uses[i] != 1) fprintf(f, " x%u", op_uses[i]);
      char full[512];
      op_full_name(op, full, sizeof full);
      if (!pte_cli_op_available(full)) fprintf(f, "   (no kernel in this build)");
      fputc('\n', f);
    }
    free(op_uses);
    pte_fb_vec dels = pte_et_ExecutionPlan_delegates(plan);
    for (uint32_t i = 0; i < dels.len; i++) {
      pte_fb_table d = pte_fb_vec_table(dels, i);
      pte_fb_str id = pte_et_BackendDelegate_id(d);
      bool seg;
      uint64_t size = delegate_size(root, pte_et_BackendDelegate_processed(d), &seg);
      fprintf(f, "  delegate %.*s, %s %u, %llu B", (int)id.len, id.ptr ? id.ptr : "", seg ? "segment" : "inline",
              pte_et_BackendDelegateDataReference_index(pte_et_BackendDelegate_processed(d)), (unsigned long long)size);
      if (pte_et_BackendDelegate_share_handle(d)) fprintf(f, ", one handle shared by its calls");
      pte_fb_vec scr = pte_et_BackendDelegate_scratch(d);
      uint64_t scratch_bytes = 0;
      for (uint32_t s = 0; s < scr.len; s++) scratch_bytes += pte_et_DelegateScratch_size(pte_fb_vec_table(scr, s));
      if (scr.len) fprintf(f, ", scratch %llu B in %u region(s)", (unsigned long long)scratch_bytes, scr.len);
      data_head dh = delegate_head(p, root, pte_et_BackendDelegate_processed(d));
      char state[256];
      fprintf(f, ", %s", text_data_state(&dh, state, sizeof state));
      pte_fb_vec specs = pte_et_BackendDelegate_compile_specs(d);
      for (uint32_t s = 0; s < specs.len; s++) {
        pte_fb_str k = pte_et_CompileSpec_key(pte_fb_vec_table(specs, s));
        fprintf(f, "%s%.*s", s ? ", " : ", specs: ", (int)k.len, k.ptr ? k.ptr : "");
      }
      fputc('\n', f);
    }
    pte_fb_vec nc = pte_et_ExecutionPlan_non_const_buffer_sizes(plan);
    fprintf(f, "  memory   ");
    if (nc.len <= 1) fprintf(f, "no planned buffers");
    for (uint32_t i = 1; i < nc.len; i++)
      fprintf(f, "%sbuffer %u: %lld B", i > 1 ? ", " : "", i, (long long)pte_fb_vec_i64(nc, i));
    fputc('\n', f);
  }
}

/* ------------------------------------------------------------------ main */
static int fail(const char *path, pte_status s, const pte_error_info *err) {
  fprintf(stderr, "pte inspect: %s: %s (0x%02x): %s\n", path, pte_status_name(s), (unsigned)s,
          err && err->msg[0] ? err->msg : "failed");
  return PTE_EXIT_FAIL;
}

static int inspect_ptd_file(out *o, const char *path, bool nested) {
  pte_cli_source ml; /* mmap; "-" and pipes read into memory */
  pte_error_info err = {0};
  pte_status s = pte_cli_source_open(&ml, path, PTE_CLI_LOADER_MMAP, &err);
  if (s != PTE_OK) return fail(path, s, &err);
  pte_ptd ptd;
  s = pte_ptd_load(pte_cli_source_loader(&ml), &ptd, &err);
  if (s != PTE_OK) {
    pte_cli_source_close(&ml);
    return fail(path, s, &err);
  }
  if (nested) {
    if (o->json) {
      jw_key(&o->w, "data");
      jw_obj(&o->w);
      jw_kstr(&o->w, "file", path);
      jw_kstr(&o->w, "format", "ptd");
    } else {
      fprintf(o->f, "\ndata file  %s\n", path);
    }
  }
  inspect_describe_ptd(o, &ptd);
  if (nested && o->json) jw_obj_end(&o->w);
  pte_ptd_destroy(&ptd);
  pte_cli_source_close(&ml);
  return PTE_EXIT_OK;
}

static int inspect_into(int argc, char **argv, FILE *f) {
  const char *path = NULL, *data = NULL;
  out o = {0};
  o.f = f;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) o.json = true;
    else if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { help(stdout); return 0; }
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "pte inspect: unknown option '%s'\n", argv[i]);
      return PTE_EXIT_USAGE;
    } else if (!path) path = argv[i];
    else {
      fprintf(stderr, "pte inspect: more than one FILE given\n");
      return PTE_EXIT_USAGE;
    }
  }
  if (!path) {
    fprintf(stderr, "pte inspect: no FILE given\n");
    return PTE_EXIT_USAGE;
  }
  pte_error_info rerr = {0};
  if (pte_cli_register_all(&rerr) != PTE_OK) /* kernel availability per operator */
    fprintf(stderr, "pte inspect: %s (operator availability not shown reliably)\n", rerr.msg);
  pte_cli_source ml; /* mmap; "-" and pipes read into memory */
  pte_error_info err = {0};
  pte_status s = pte_cli_source_open(&ml, path, PTE_CLI_LOADER_MMAP, &err);
  if (s != PTE_OK) return fail(path, s, &err);
  uint8_t head[8] = {0};
  uint64_t fsize = 0;
  pte_data_loader_size(pte_cli_source_loader(&ml), &fsize);
  if (fsize >= 8) pte_data_loader_load_into(pte_cli_source_loader(&ml), 0, 8, NULL, head);
  pte_file_kind kind = pte_sniff_file_kind(head, fsize >= 8 ? 8 : (size_t)fsize);
  int rc = PTE_EXIT_OK;
  if (o.json) {
    jw_init(&o.w, stdout);
    jw_obj(&o.w);
    jw_kstr(&o.w, "file", path);
    jw_kuint(&o.w, "file_size", fsize);
  } else {
    fprintf(o.f, "file       %s (%llu bytes)\n", path, (unsigned long long)fsize);
  }
  if (kind == PTE_FILE_PTD) {
    pte_cli_source_close(&ml);
    if (o.json) jw_kstr(&o.w, "format", "ptd");
    else fprintf(o.f, "format     ptd (external tensor data)\n");
    rc = inspect_ptd_file(&o, path, false);
  } else if (kind == PTE_FILE_PTE || kind == PTE_FILE_BPTE) {
    pte_bundled_program bp;
    const pte_data_loader *pl = pte_cli_source_loader(&ml);
    bool bundled = kind == PTE_FILE_BPTE;
    if (bundled) {
      s = pte_bundled_program_load(pte_cli_source_loader(&ml), &bp, &err);
      if (s != PTE_OK) {
        pte_cli_source_close(&ml);
        return fail(path, s, &err);
      }
      pl = pte_bundled_program_loader(&bp);
    }
    pte_program prog;
    s = pte_program_load(pl, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, &err);
    if (s != PTE_OK) {
      if (bundled) pte_bundled_program_destroy(&bp);
      pte_cli_source_close(&ml);
      return fail(path, s, &err);
    }
    if (o.json) {
      jw_kstr(&o.w, "format", bundled ? "bpte" : "pte");
      if (bundled) inspect_describe_bundled(&o, &bp);
      describe_program_json(&o, &prog);
    } else {
      fprintf(o.f, "format     %s\n", bundled ? "bpte (bundled program with test cases)" : "pte (program)");
      if (bundled) inspect_describe_bundled(&o, &bp);
      describe_program_text(&o, &prog);
    }
    pte_program_destroy(&prog);
    if (bundled) pte_bundled_program_destroy(&bp);
    pte_cli_source_close(&ml);
    if (data) rc = inspect_ptd_file(&o, data, true);
  } else {
    pte_cli_source_close(&ml);
    const char *what = kind == PTE_FILE_PTE_WRONG_VERSION ? "a .pte of an incompatible schema version"
                       : kind == PTE_FILE_XNNPACK         ? "an XNNPACK delegate blob, not a program"
                                                          : "not a .pte, .ptd or .bpte file";
    fprintf(stderr, "pte inspect: %s: %s (identifier \"%.4s\")\n", path, what, fsize >= 8 ? (const char *)head + 4 : "");
    return PTE_EXIT_FAIL;
  }
  if (o.json) {
    jw_obj_end(&o.w);
    jw_end(&o.w);
  }
  return rc;
}

/* The text report is built in memory and printed whole, only when inspection succeeds: a failure
 * prints its one error line and nothing else. */
static int run_inspect(int argc, char **argv) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem) return inspect_into(argc, argv, stdout);
  int rc = inspect_into(argc, argv, mem);
  fclose(mem);
  if (rc == PTE_EXIT_OK && buf) fwrite(buf, 1, len, stdout);
  free(buf);
  return rc;
}

const pte_cli_verb pte_cli_verb_inspect = {"inspect", "show what a .pte/.ptd/.bpte file contains", run_inspect};
