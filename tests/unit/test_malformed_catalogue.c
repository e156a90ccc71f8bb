#define _POSIX_C_SOURCE 200809L
/* The malformed-input catalogue runner (docs/robustness.md describes the catalogue).
 *
 * Reads every tests/malformed/<name>.cases file. Each case names a base input (a corpus file, a
 * segment of a corpus file, or a program generated here), applies byte-level mutations (raw
 * offsets or schema paths such as execution_plan[0].values[1].val.sizes[0], resolved through the
 * generated field descriptors), runs one entry point (program load, method load, execute, .ptd
 * load, .bpte load...) and asserts the exact status and a message substring. Inputs are copied
 * into heap memory of their exact size, so under ASan (make test-asan) any out-of-bounds read,
 * leak or UB in the entry point fails the case.
 *
 *   test_malformed_catalogue                 run every case
 *   test_malformed_catalogue --list          one line per case (id, entry point, expectation)
 *   test_malformed_catalogue --markdown      the catalogue table of docs/robustness.md
 *   test_malformed_catalogue --write ID OUT  write case ID's mutated input to OUT (for debugging)
 *   test_malformed_catalogue --write-all DIR every case's input as DIR/<id>.<ext> (fuzzing seeds)
 *   test_malformed_catalogue SUBSTRING       run only the cases whose id contains SUBSTRING
 */
#include <dirent.h>
#include <errno.h>

#include "format/flatbuf.h"
#include "format/fb_json.h"
#include "fuzz/fuzz_util.h"
#include "pte/backend_xnnpack.h"
#include "pte/bundled.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/ptd.h"
#include "pte/data_writer.h"
#include "pte/writer.h"
#include "pte_gen/bundled_program_gen.h"
#include "pte_gen/flat_tensor_gen.h"
#include "pte_gen/program_gen.h"
#include "pte_gen/xnnpack_gen.h"
#include "test.h"

/* ================================================================== the case model */

#define MAX_PATCHES 16

typedef enum patch_op {
  P_TRUNCATE = 1, /* size = value */
  P_APPEND,       /* value zero bytes added at the end */
  P_RAW,          /* write `width` bytes of value at absolute offset */
  P_BYTES,        /* write text at absolute offset */
  P_FIELD,        /* write value at the resolved schema path (scalar field or vector element) */
  P_VLEN,         /* write the u32 length of the vector at path */
  P_STR,          /* rewrite the string at path (same or shorter length) */
  P_HDR           /* named header field (eh00.*, fh01.*) */
} patch_op;

typedef struct patch {
  patch_op op;
  int width;        /* P_RAW: 1, 2, 4 or 8 */
  uint64_t offset;  /* P_RAW/P_BYTES */
  char path[160];   /* P_FIELD/P_VLEN/P_STR/P_HDR */
  char text[64];    /* P_BYTES/P_STR */
  int64_t value;
} patch;

typedef enum action {
  A_PROGRAM = 1, /* pte_program_load (+ every accessor) */
  A_METHOD,      /* program load, then pte_method_load_ex */
  A_EXECUTE,     /* program + method load (must succeed), fixed inputs, pte_method_execute */
  A_NAMED_DATA,  /* program load, then get_data of every key of the program's named data map */
  A_PTD,         /* pte_ptd_load (+ every accessor) */
  A_BPTE,        /* pte_bundled_program_load (+ every accessor) */
  A_BPTE_PROGRAM, /* bundled load (must succeed), then the embedded program's load */
  A_BPTE_METHOD,  /* bundled + embedded program load (must succeed), then a method load */
  A_XNN           /* pte_xnn_delegate_init on an XNNPACK blob (named data from the `with` program) */
} action;

typedef struct mcase {
  char id[64];
  char desc[240];
  char source[96]; /* file:line of the case */
  char file[96];   /* corpus file name, or "gen:<name>" */
  int segment;     /* >= 0: the input is that segment of `file` */
  char companion[96]; /* .ptd for a .pte case (or .pte for a .ptd case), unpatched */
  patch patches[MAX_PATCHES];
  int n_patches;
  action act;
  char method[32];
  int level;       /* -1 both (program action), else pte_verification */
  int planned;     /* 0 exact, 1 none, 2 shrink */
  uint64_t shrink;
  size_t pool;     /* method allocator bytes */
  uint64_t max_instructions;
  int runs;
  int bind_outputs;
  pte_status expect;
  char expect_msg[200];
} mcase;

static mcase cases[256];
static int n_cases;

/* ================================================================== small helpers */

/* Bounded copy (truncates; always NUL-terminates). */
static void copy_str(char *dst, size_t cap, const char *src) {
  size_t i = 0;
  for (; src[i] && i + 1 < cap; i++) dst[i] = src[i];
  dst[i] = '\0';
}

static void st_le(uint8_t *p, uint64_t v, int width) {
  for (int i = 0; i < width; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static const char *catalogue_dir(void) {
  static char dir[1024];
  const char *env = getenv("PTE_MALFORMED_DIR");
  if (env) return env;
  /* This file is tests/unit/test_malformed_catalogue.c: the catalogue is ../malformed. */
  snprintf(dir, sizeof dir, "%s", __FILE__);
  char *slash = strrchr(dir, '/');
  if (!slash) return "tests/malformed";
  *slash = '\0';
  slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  strncat(dir, "/malformed", sizeof dir - strlen(dir) - 1);
  return dir;
}

static const struct {
  const char *name;
  pte_status s;
} k_status[] = {
    {"OK", PTE_OK},
    {"INTERNAL", PTE_ERR_INTERNAL},
    {"INVALID_STATE", PTE_ERR_INVALID_STATE},
    {"NOT_SUPPORTED", PTE_ERR_NOT_SUPPORTED},
    {"NOT_IMPLEMENTED", PTE_ERR_NOT_IMPLEMENTED},
    {"INVALID_ARGUMENT", PTE_ERR_INVALID_ARGUMENT},
    {"INVALID_TYPE", PTE_ERR_INVALID_TYPE},
    {"OPERATOR_MISSING", PTE_ERR_OPERATOR_MISSING},
    {"NOT_FOUND", PTE_ERR_NOT_FOUND},
    {"MEMORY_ALLOCATION_FAILED", PTE_ERR_MEMORY_ALLOCATION_FAILED},
    {"ACCESS_FAILED", PTE_ERR_ACCESS_FAILED},
    {"INVALID_PROGRAM", PTE_ERR_INVALID_PROGRAM},
    {"INVALID_EXTERNAL_DATA", PTE_ERR_INVALID_EXTERNAL_DATA},
    {"OUT_OF_RESOURCES", PTE_ERR_OUT_OF_RESOURCES},
    {"DELEGATE_INVALID_COMPATIBILITY", PTE_ERR_DELEGATE_INVALID_COMPATIBILITY},
};

static int parse_status(const char *s, pte_status *out) {
  for (size_t i = 0; i < sizeof k_status / sizeof k_status[0]; i++)
    if (strcmp(s, k_status[i].name) == 0) {
      *out = k_status[i].s;
      return 0;
    }
  return -1;
}

static const char *status_word(pte_status s) {
  for (size_t i = 0; i < sizeof k_status / sizeof k_status[0]; i++)
    if (k_status[i].s == s) return k_status[i].name;
  return "?";
}

static const char *action_name(action a) {
  switch (a) {
    case A_PROGRAM: return "program";
    case A_METHOD: return "method";
    case A_EXECUTE: return "execute";
    case A_NAMED_DATA: return "named-data";
    case A_PTD: return "ptd";
    case A_BPTE: return "bpte";
    case A_BPTE_PROGRAM: return "bpte-program";
    case A_BPTE_METHOD: return "bpte-method";
    case A_XNN: return "xnn";
  }
  return "?";
}

/* ================================================================== generated programs
 *
 * gen:control — every field written explicitly (force_defaults), so any scalar can be patched:
 *   forward(x: FLOAT[2] planned @0) -> y: FLOAT[2] planned @16, non_const_buffer_sizes [0, 32]
 *   values: v0 x, v1 y, v2 Bool false, v3 Int 1, v4 Int 0, v5 TensorList [0, 1], v6 IntList [3, 4],
 *           v7 Null, v8 constant FLOAT[2] = [1, 2] (data_buffer_idx 1), v9 Double 0.5
 *   operators: [aten::add.out]; delegates: [FuzzBackend, INLINE data 0 (4 bytes)]
 *   chain 0: 0 KernelCall add(v0, v8, v3, v1, v1)   y = x + [1, 2]
 *            1 DelegateCall 0 (v0, v1)
 *            2 MoveCall v3 -> v4
 *            3 JumpFalseCall cond v2 -> 5 (always taken: skips 4)
 *            4 FreeCall v0
 *   segments: [(0, 16)], constant_segment {0, [0, 0]}, eh00 header (32 bytes).
 * gen:unplanned-output — the same with y unplanned (no allocation_info: the caller binds it). */

static pte_fb_ref gen_tensor(pte_fb_builder *b, int32_t n, uint32_t dbi, int planned, uint32_t off) {
  int32_t sizes[1] = {n};
  uint8_t order[1] = {0};
  pte_fb_ref sv = pte_et_Tensor_create_sizes(b, sizes, 1);
  pte_fb_ref dv = pte_et_Tensor_create_dim_order(b, order, 1);
  pte_fb_ref alloc = 0;
  if (planned) {
    pte_et_AllocationDetails_start(b);
    pte_et_AllocationDetails_add_memory_id(b, 1);
    pte_et_AllocationDetails_add_memory_offset_low(b, off);
    pte_et_AllocationDetails_add_memory_offset_high(b, 0);
    alloc = pte_et_AllocationDetails_end(b);
  }
  pte_et_Tensor_start(b);
  pte_et_Tensor_add_scalar_type(b, PTE_DTYPE_FLOAT);
  pte_et_Tensor_add_storage_offset(b, 0);
  pte_et_Tensor_add_sizes(b, sv);
  pte_et_Tensor_add_dim_order(b, dv);
  pte_et_Tensor_add_requires_grad(b, false);
  pte_et_Tensor_add_data_buffer_idx(b, dbi);
  if (alloc) pte_et_Tensor_add_allocation_info(b, alloc);
  pte_et_Tensor_add_layout(b, 0);
  pte_et_Tensor_add_shape_dynamism(b, 0);
  return pte_et_Tensor_end(b);
}

static pte_fb_ref gen_evalue(pte_fb_builder *b, uint8_t tag, pte_fb_ref val) {
  pte_et_EValue_start(b);
  pte_et_EValue_add_val_type(b, tag);
  if (val) pte_et_EValue_add_val(b, val);
  return pte_et_EValue_end(b);
}

static pte_fb_ref gen_instr(pte_fb_builder *b, uint8_t tag, pte_fb_ref args) {
  pte_et_Instruction_start(b);
  pte_et_Instruction_add_instr_args_type(b, tag);
  pte_et_Instruction_add_instr_args(b, args);
  return pte_et_Instruction_end(b);
}

static uint8_t *gen_control(size_t *out_size, int unplanned_output) {
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  b.force_defaults = true;
  pte_fb_ref v[10], r;
  v[0] = gen_evalue(&b, 5, gen_tensor(&b, 2, 0, 1, 0));
  v[1] = gen_evalue(&b, 5, gen_tensor(&b, 2, 0, !unplanned_output, 16));
  pte_et_Bool_start(&b);
  pte_et_Bool_add_bool_val(&b, false);
  v[2] = gen_evalue(&b, 3, pte_et_Bool_end(&b));
  pte_et_Int_start(&b);
  pte_et_Int_add_int_val(&b, 1);
  v[3] = gen_evalue(&b, 2, pte_et_Int_end(&b));
  pte_et_Int_start(&b);
  pte_et_Int_add_int_val(&b, 0);
  v[4] = gen_evalue(&b, 2, pte_et_Int_end(&b));
  int32_t tl[2] = {0, 1};
  r = pte_et_TensorList_create_items(&b, tl, 2);
  pte_et_TensorList_start(&b);
  pte_et_TensorList_add_items(&b, r);
  v[5] = gen_evalue(&b, 10, pte_et_TensorList_end(&b));
  int64_t il[2] = {3, 4};
  r = pte_et_IntList_create_items(&b, il, 2);
  pte_et_IntList_start(&b);
  pte_et_IntList_add_items(&b, r);
  v[6] = gen_evalue(&b, 7, pte_et_IntList_end(&b));
  pte_et_Null_start(&b);
  v[7] = gen_evalue(&b, 1, pte_et_Null_end(&b));
  v[8] = gen_evalue(&b, 5, gen_tensor(&b, 2, 1, 0, 0));
  pte_et_Double_start(&b);
  pte_et_Double_add_double_val(&b, 0.5);
  v[9] = gen_evalue(&b, 4, pte_et_Double_end(&b));
  pte_fb_ref values = pte_et_ExecutionPlan_create_values(&b, v, 10);

  pte_fb_ref ins[5];
  int32_t kargs[5] = {0, 8, 3, 1, 1};
  r = pte_et_KernelCall_create_args(&b, kargs, 5);
  pte_et_KernelCall_start(&b);
  pte_et_KernelCall_add_op_index(&b, 0);
  pte_et_KernelCall_add_args(&b, r);
  ins[0] = gen_instr(&b, 1, pte_et_KernelCall_end(&b));
  int32_t dargs[2] = {0, 1};
  r = pte_et_DelegateCall_create_args(&b, dargs, 2);
  pte_et_DelegateCall_start(&b);
  pte_et_DelegateCall_add_delegate_index(&b, 0);
  pte_et_DelegateCall_add_args(&b, r);
  ins[1] = gen_instr(&b, 2, pte_et_DelegateCall_end(&b));
  pte_et_MoveCall_start(&b);
  pte_et_MoveCall_add_move_from(&b, 3);
  pte_et_MoveCall_add_move_to(&b, 4);
  ins[2] = gen_instr(&b, 3, pte_et_MoveCall_end(&b));
  pte_et_JumpFalseCall_start(&b);
  pte_et_JumpFalseCall_add_cond_value_index(&b, 2);
  pte_et_JumpFalseCall_add_destination_instruction(&b, 5);
  ins[3] = gen_instr(&b, 4, pte_et_JumpFalseCall_end(&b));
  pte_et_FreeCall_start(&b);
  pte_et_FreeCall_add_value_index(&b, 0);
  ins[4] = gen_instr(&b, 5, pte_et_FreeCall_end(&b));
  r = pte_et_Chain_create_instructions(&b, ins, 5);
  int32_t cin[1] = {0}, cout[1] = {1};
  pte_fb_ref ci = pte_et_Chain_create_inputs(&b, cin, 1), co = pte_et_Chain_create_outputs(&b, cout, 1);
  pte_et_Chain_start(&b);
  pte_et_Chain_add_inputs(&b, ci);
  pte_et_Chain_add_outputs(&b, co);
  pte_et_Chain_add_instructions(&b, r);
  pte_fb_ref chain = pte_et_Chain_end(&b);
  pte_fb_ref chains = pte_et_ExecutionPlan_create_chains(&b, &chain, 1);

  pte_fb_ref nm = pte_fb_create_string(&b, "aten::add", 9), ov = pte_fb_create_string(&b, "out", 3);
  pte_et_Operator_start(&b);
  pte_et_Operator_add_name(&b, nm);
  pte_et_Operator_add_overload(&b, ov);
  pte_fb_ref op = pte_et_Operator_end(&b);
  pte_fb_ref ops = pte_et_ExecutionPlan_create_operators(&b, &op, 1);

  pte_fb_ref did = pte_fb_create_string(&b, "FuzzBackend", 11);
  pte_et_BackendDelegateDataReference_start(&b);
  pte_et_BackendDelegateDataReference_add_location(&b, 0);
  pte_et_BackendDelegateDataReference_add_index(&b, 0);
  pte_fb_ref dref = pte_et_BackendDelegateDataReference_end(&b);
  pte_fb_ref csk = pte_fb_create_string(&b, "k", 1);
  static const uint8_t csv_bytes[2] = {7, 8};
  pte_fb_ref csv = pte_et_CompileSpec_create_value(&b, csv_bytes, 2);
  pte_et_CompileSpec_start(&b);
  pte_et_CompileSpec_add_key(&b, csk);
  pte_et_CompileSpec_add_value(&b, csv);
  pte_fb_ref spec = pte_et_CompileSpec_end(&b);
  pte_fb_ref specs = pte_et_BackendDelegate_create_compile_specs(&b, &spec, 1);
  pte_et_BackendDelegate_start(&b);
  pte_et_BackendDelegate_add_id(&b, did);
  pte_et_BackendDelegate_add_processed(&b, dref);
  pte_et_BackendDelegate_add_compile_specs(&b, specs);
  pte_fb_ref del = pte_et_BackendDelegate_end(&b);
  pte_fb_ref dels = pte_et_ExecutionPlan_create_delegates(&b, &del, 1);

  int32_t pin[1] = {0}, pout[1] = {1};
  pte_fb_ref inputs = pte_et_ExecutionPlan_create_inputs(&b, pin, 1);
  pte_fb_ref outputs = pte_et_ExecutionPlan_create_outputs(&b, pout, 1);
  int64_t nbs_v[2] = {0, 32};
  pte_fb_ref nbs = pte_et_ExecutionPlan_create_non_const_buffer_sizes(&b, nbs_v, 2);
  pte_fb_ref name = pte_fb_create_string(&b, "forward", 7);
  pte_et_ExecutionPlan_start(&b);
  pte_et_ExecutionPlan_add_name(&b, name);
  pte_et_ExecutionPlan_add_values(&b, values);
  pte_et_ExecutionPlan_add_inputs(&b, inputs);
  pte_et_ExecutionPlan_add_outputs(&b, outputs);
  pte_et_ExecutionPlan_add_chains(&b, chains);
  pte_et_ExecutionPlan_add_operators(&b, ops);
  pte_et_ExecutionPlan_add_delegates(&b, dels);
  pte_et_ExecutionPlan_add_non_const_buffer_sizes(&b, nbs);
  pte_fb_ref plan = pte_et_ExecutionPlan_end(&b);
  pte_fb_ref plans = pte_et_Program_create_execution_plan(&b, &plan, 1);

  static const uint8_t blob[4] = {1, 2, 3, 4};
  r = pte_et_BackendDelegateInlineData_create_data(&b, blob, 4);
  pte_et_BackendDelegateInlineData_start(&b);
  pte_et_BackendDelegateInlineData_add_data(&b, r);
  pte_fb_ref inl = pte_et_BackendDelegateInlineData_end(&b);
  pte_fb_ref bdd = pte_et_Program_create_backend_delegate_data(&b, &inl, 1);
  pte_et_DataSegment_start(&b);
  pte_et_DataSegment_add_offset(&b, 0);
  pte_et_DataSegment_add_size(&b, 16);
  pte_fb_ref seg = pte_et_DataSegment_end(&b);
  pte_fb_ref segs = pte_et_Program_create_segments(&b, &seg, 1);
  uint64_t cso[2] = {0, 0};
  r = pte_et_SubsegmentOffsets_create_offsets(&b, cso, 2);
  pte_et_SubsegmentOffsets_start(&b);
  pte_et_SubsegmentOffsets_add_segment_index(&b, 0);
  pte_et_SubsegmentOffsets_add_offsets(&b, r);
  pte_fb_ref cs = pte_et_SubsegmentOffsets_end(&b);
  pte_et_Program_start(&b);
  pte_et_Program_add_version(&b, 0);
  pte_et_Program_add_execution_plan(&b, plans);
  pte_et_Program_add_backend_delegate_data(&b, bdd);
  pte_et_Program_add_segments(&b, segs);
  pte_et_Program_add_constant_segment(&b, cs);
  pte_fb_ref root = pte_et_Program_end(&b);
  const uint8_t *fb;
  size_t fbs;
  if (pte_et_finish(&b, root, &fb, &fbs) != PTE_OK) {
    pte_fb_builder_free(&b);
    return NULL;
  }
  /* eh00 header inserted at byte 8 (32 bytes: alignment is kept), segment data at a 128 boundary. */
  size_t program_size = fbs + 32, base = (program_size + 127) / 128 * 128, total = base + 16;
  uint8_t *out = (uint8_t *)calloc(1, total);
  if (out) {
    st_le(out, pte_fb_ld_u32(fb) + 32, 4);
    memcpy(out + 4, fb + 4, 4);
    pte_extended_header h = {32, program_size, base, 16, true};
    pte_extended_header_write(&h, 32, out + 8, 32, NULL);
    memcpy(out + 40, fb + 8, fbs - 8);
    float c[2] = {1.0f, 2.0f};
    memcpy(out + base, c, sizeof c);
    *out_size = total;
  }
  pte_fb_builder_free(&b);
  return out;
}

/* ================================================================== schema paths
 *
 * PATH := step ('.' step)*;  step := field | field '[' index ']'
 * Fields are looked up by name in the generated descriptors, starting at the root table of the
 * input's schema (Program, FlatTensor or BundledProgram). A union field ('val', 'instr_args')
 * continues in the member table its tag selects. The path must end at a scalar field, an element
 * of a scalar vector, or (for vlen/str patches) a vector or string field. */

typedef struct schema {
  const pte_fbgen_type *types;
  size_t n_types;
  const char *root;
} schema;

static const schema k_schema_pte = {pte_et_types, sizeof pte_et_types / sizeof pte_et_types[0],
                                    "executorch_flatbuffer.Program"};
static const schema k_schema_ptd = {pte_ft_types, sizeof pte_ft_types / sizeof pte_ft_types[0],
                                    "flat_tensor_flatbuffer.FlatTensor"};
static const schema k_schema_bpte = {pte_bp_types, sizeof pte_bp_types / sizeof pte_bp_types[0],
                                     "bundled_program_flatbuffer.BundledProgram"};
static const schema k_schema_xnn = {pte_xn_types, sizeof pte_xn_types / sizeof pte_xn_types[0], "fb_xnnpack.XNNGraph"};

static const pte_fbgen_type *find_type(const schema *sc, const char *name, size_t len) {
  for (size_t i = 0; i < sc->n_types; i++)
    if (sc->types[i].name && strlen(sc->types[i].name) == len && strncmp(sc->types[i].name, name, len) == 0)
      return &sc->types[i];
  return NULL;
}

/* Type of union member `member` when the schema declares it as an alias ("XNNAdd: _XNNNode2x1" in
 * schema/xnnpack.fbs); `member` itself otherwise. Reads $PTE_SCHEMA_DIR/xnnpack.fbs once. */
static const char *union_alias(const char *member, char *buf, size_t cap) {
  static char *text;
  static int loaded;
  if (!loaded) {
    loaded = 1;
    const char *dir = getenv("PTE_SCHEMA_DIR");
    char path[1024];
    size_t n;
    snprintf(path, sizeof path, "%s/xnnpack.fbs", dir ? dir : "schema");
    text = (char *)test_read_file(path, &n); /* NUL-padded by test_read_file; kept for the process */
  }
  if (!text) return member;
  char pat[96];
  snprintf(pat, sizeof pat, "  %s: ", member);
  const char *hit = strstr(text, pat);
  if (!hit) return member;
  hit += strlen(pat);
  size_t i = 0;
  while (hit[i] && hit[i] != ',' && hit[i] != '\n' && hit[i] != ' ' && i + 1 < cap) {
    buf[i] = hit[i];
    i++;
  }
  buf[i] = '\0';
  return buf;
}

static const char *union_member(const char *union_type, uint8_t tag, char *buf, size_t cap) {
  if (strcmp(union_type, "executorch_flatbuffer.KernelTypes") == 0) return pte_et_KernelTypes_name(tag);
  if (strcmp(union_type, "executorch_flatbuffer.InstructionArguments") == 0) return pte_et_InstructionArguments_name(tag);
  if (strcmp(union_type, "bundled_program_flatbuffer.ValueUnion") == 0) return pte_bp_ValueUnion_name(tag);
  const char *m = NULL;
  if (strcmp(union_type, "fb_xnnpack.XNodeUnion") == 0) m = pte_xn_XNodeUnion_name(tag);
  if (strcmp(union_type, "fb_xnnpack.XValueUnion") == 0) m = pte_xn_XValueUnion_name(tag);
  return m ? union_alias(m, buf, cap) : NULL;
}

typedef struct resolved {
  uint32_t pos;  /* scalar / element position, or the uoffset field position for vectors/strings */
  uint8_t kind;  /* pte_fbgen_kind of the scalar (or PTE_FBGEN_VECTOR / PTE_FBGEN_STRING) */
  pte_fb_vec vec;
  pte_fb_str str;
} resolved;

/* Resolves path; returns NULL on success or a static error message. */
static const char *resolve(const schema *sc, const uint8_t *buf, size_t size, const char *path, resolved *out) {
  static char msg[256];
  const pte_fbgen_type *ty = find_type(sc, sc->root, strlen(sc->root));
  pte_fb_table t = pte_fb_root(buf, size);
  const char *p = path;
  if (!ty || !pte_fb_table_present(t)) return "no root table";
  for (;;) {
    const char *end = p;
    while (*end && *end != '.' && *end != '[') end++;
    size_t nlen = (size_t)(end - p);
    const pte_fbgen_field *f = NULL;
    for (const pte_fbgen_field *g = ty->fields; g->name; g++)
      if (strlen(g->name) == nlen && strncmp(g->name, p, nlen) == 0) f = g;
    if (!f) {
      snprintf(msg, sizeof msg, "%s has no field '%.*s'", ty->name, (int)nlen, p);
      return msg;
    }
    long idx = -1;
    if (*end == '[') {
      idx = strtol(end + 1, (char **)&end, 10);
      if (*end != ']') return "bad index";
      end++;
    }
    int last = *end == '\0';
    uint8_t kind = (uint8_t)(f->kind);
    if (kind == PTE_FBGEN_TABLE || kind == PTE_FBGEN_UNION) {
      const char *tname = f->type;
      size_t tlen = strlen(tname);
      char member[160];
      if (kind == PTE_FBGEN_UNION) {
        uint8_t tag = pte_fb_get_u8(t, (unsigned)f->slot - 1u, 0);
        char alias[64];
        const char *mn = union_member(f->type, tag, alias, sizeof alias);
        const char *dot = strrchr(f->type, '.');
        if (!mn || !dot) return "union member not found";
        snprintf(member, sizeof member, "%.*s.%s", (int)(dot - f->type), f->type, mn);
        tname = member;
        tlen = strlen(member);
      }
      ty = find_type(sc, tname, tlen);
      t = pte_fb_get_table(t, f->slot);
      if (!ty || !pte_fb_table_present(t) || last || idx >= 0) {
        snprintf(msg, sizeof msg, "field '%s' is absent or not a leaf", f->name);
        return msg;
      }
    } else if (kind == PTE_FBGEN_VECTOR) {
      pte_fb_vec v = pte_fb_get_vec(t, f->slot);
      if (!v.present) {
        snprintf(msg, sizeof msg, "vector '%s' is absent", f->name);
        return msg;
      }
      if (idx < 0) {
        if (!last) return "vector step without an index";
        out->pos = pte_fb_field_pos(t, f->slot);
        out->kind = PTE_FBGEN_VECTOR;
        out->vec = v;
        return NULL;
      }
      if ((uint32_t)idx >= v.len) {
        snprintf(msg, sizeof msg, "index %ld past the %u elements of '%s'", idx, v.len, f->name);
        return msg;
      }
      if (f->elem_kind == PTE_FBGEN_TABLE) {
        const char *tn = f->type + 1; /* "[name]" */
        ty = find_type(sc, tn, strlen(tn) - 1);
        t = pte_fb_vec_table(v, (uint32_t)idx);
        if (!ty || !pte_fb_table_present(t) || last) return "bad table vector step";
      } else {
        size_t es = pte_fbgen_kind_size((pte_fbgen_kind)f->elem_kind);
        if (!es || !last) return "scalar vector element must end the path";
        out->pos = v.data + (uint32_t)idx * (uint32_t)es;
        out->kind = f->elem_kind;
        return NULL;
      }
    } else if (kind == PTE_FBGEN_STRING) {
      if (!last) return "string must end the path";
      out->str = pte_fb_get_str(t, f->slot);
      out->pos = pte_fb_field_pos(t, f->slot);
      out->kind = PTE_FBGEN_STRING;
      if (!out->str.ptr) return "string is absent";
      return NULL;
    } else {
      if (!last) return "scalar must end the path";
      out->pos = pte_fb_field_pos(t, f->slot);
      out->kind = kind;
      if (!out->pos) {
        snprintf(msg, sizeof msg, "field '%s' is not stored in the buffer (default value)", f->name);
        return msg;
      }
      return NULL;
    }
    p = end + 1;
  }
}

/* Header fields: eh00.* at byte 8 of a .pte; fh01.* at byte 8 of a .ptd. */
static int header_field(const char *name, uint64_t *off, int *width) {
  static const struct {
    const char *n;
    uint64_t off;
    int w;
  } k[] = {{"eh00.header_length", 12, 4},     {"eh00.program_size", 16, 8},      {"eh00.segment_base_offset", 24, 8},
           {"eh00.segment_data_size", 32, 8}, {"fh01.header_length", 12, 4},     {"fh01.flatbuffer_offset", 16, 8},
           {"fh01.flatbuffer_size", 24, 8},   {"fh01.segment_base_offset", 32, 8}, {"fh01.segment_data_size", 40, 8}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (strcmp(k[i].n, name) == 0) {
      *off = k[i].off;
      *width = k[i].w;
      return 0;
    }
  return -1;
}

/* ================================================================== catalogue parsing */

/* Next token of *s: a "quoted string" or a run of non-blanks. Returns 0 when none. */
static int next_token(const char **s, char *out, size_t cap) {
  const char *p = *s;
  while (*p == ' ' || *p == '\t') p++;
  if (!*p || *p == '\n' || *p == '#') return 0;
  size_t n = 0;
  if (*p == '"') {
    p++;
    while (*p && *p != '"') {
      char c = *p++;
      if (c == '\\' && *p) c = *p++;
      if (n + 1 < cap) out[n++] = c;
    }
    if (*p == '"') p++;
  } else {
    while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
      if (n + 1 < cap) out[n++] = *p;
      p++;
    }
  }
  out[n] = '\0';
  *s = p;
  return 1;
}

static int parse_int(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  if (s[0] == '-') *out = (int64_t)strtoll(s, &end, 0);
  else *out = (int64_t)strtoull(s, &end, 0);
  return (errno || *end) ? -1 : 0;
}

static int load_catalogue_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[512];
  int lineno = 0;
  mcase *c = NULL;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    const char *s = line;
    char kw[64], a1[200], a2[200], a3[200];
    if (!next_token(&s, kw, sizeof kw)) continue;
#define BAD(...)                                                       \
  do {                                                                 \
    fprintf(stderr, "%s:%d: ", path, lineno);                          \
    fprintf(stderr, __VA_ARGS__);                                      \
    fputc('\n', stderr);                                               \
    fclose(f);                                                         \
    return -1;                                                         \
  } while (0)
    if (strcmp(kw, "case") == 0) {
      if (n_cases >= (int)(sizeof cases / sizeof cases[0])) BAD("too many cases");
      c = &cases[n_cases++];
      memset(c, 0, sizeof *c);
      if (!next_token(&s, c->id, sizeof c->id)) BAD("case without id");
      snprintf(c->source, sizeof c->source, "%s:%d", base, lineno);
      c->segment = -1;
      c->level = -1;
      c->pool = 1u << 20;
      c->max_instructions = 10000;
      c->runs = 1;
      c->bind_outputs = 1;
      c->expect = (pte_status)-1;
      continue;
    }
    if (!c) BAD("'%s' outside a case", kw);
    if (strcmp(kw, "desc") == 0) {
      while (*s == ' ' || *s == '\t') s++;
      copy_str(c->desc, sizeof c->desc, s);
      size_t l = strlen(c->desc);
      while (l && (c->desc[l - 1] == '\n' || c->desc[l - 1] == '\r')) c->desc[--l] = '\0';
    } else if (strcmp(kw, "file") == 0) {
      if (!next_token(&s, c->file, sizeof c->file)) BAD("file needs a name");
      if (next_token(&s, a1, sizeof a1)) {
        int64_t v;
        if (strcmp(a1, "segment") != 0 || !next_token(&s, a2, sizeof a2) || parse_int(a2, &v)) BAD("file X [segment N]");
        c->segment = (int)v;
      }
    } else if (strcmp(kw, "with") == 0) {
      if (!next_token(&s, c->companion, sizeof c->companion)) BAD("with needs a file");
    } else if (strcmp(kw, "truncate") == 0 || strcmp(kw, "append") == 0 || strcmp(kw, "u8") == 0 || strcmp(kw, "u16") == 0 ||
               strcmp(kw, "u32") == 0 || strcmp(kw, "u64") == 0 || strcmp(kw, "bytes") == 0 || strcmp(kw, "set") == 0 ||
               strcmp(kw, "vlen") == 0 || strcmp(kw, "str") == 0) {
      if (c->n_patches >= MAX_PATCHES) BAD("too many patches");
      patch *p = &c->patches[c->n_patches++];
      memset(p, 0, sizeof *p);
      int64_t v;
      if (!next_token(&s, a1, sizeof a1)) BAD("%s needs arguments", kw);
      if (strcmp(kw, "truncate") == 0 || strcmp(kw, "append") == 0) {
        if (parse_int(a1, &v) || v < 0 || v > 4096) BAD("bad size");
        p->op = kw[0] == 't' ? P_TRUNCATE : P_APPEND;
        p->value = v;
        continue;
      }
      if (!next_token(&s, a2, sizeof a2)) BAD("%s needs two arguments", kw);
      if (kw[0] == 'u') { /* u32 @OFFSET VALUE */
        if (a1[0] != '@' || parse_int(a1 + 1, &v)) BAD("raw writes take @OFFSET");
        p->op = P_RAW;
        p->offset = (uint64_t)v;
        p->width = atoi(kw + 1) / 8;
        if (parse_int(a2, &p->value)) BAD("bad value '%s'", a2);
      } else if (strcmp(kw, "bytes") == 0) {
        if (a1[0] != '@' || parse_int(a1 + 1, &v)) BAD("bytes takes @OFFSET");
        p->op = P_BYTES;
        p->offset = (uint64_t)v;
        copy_str(p->text, sizeof p->text, a2);
      } else {
        copy_str(p->path, sizeof p->path, a1);
        if (strcmp(kw, "str") == 0) {
          p->op = P_STR;
          copy_str(p->text, sizeof p->text, a2);
        } else {
          uint64_t ho;
          int hw;
          p->op = strcmp(kw, "vlen") == 0 ? P_VLEN : (header_field(a1, &ho, &hw) == 0 ? P_HDR : P_FIELD);
          if (parse_int(a2, &p->value)) BAD("bad value '%s'", a2);
        }
      }
    } else if (strcmp(kw, "run") == 0) {
      if (!next_token(&s, a1, sizeof a1)) BAD("run needs an entry point");
      if (strcmp(a1, "program") == 0) c->act = A_PROGRAM;
      else if (strcmp(a1, "method") == 0) c->act = A_METHOD;
      else if (strcmp(a1, "execute") == 0) c->act = A_EXECUTE;
      else if (strcmp(a1, "named-data") == 0) c->act = A_NAMED_DATA;
      else if (strcmp(a1, "ptd") == 0) c->act = A_PTD;
      else if (strcmp(a1, "bpte") == 0) c->act = A_BPTE;
      else if (strcmp(a1, "bpte-program") == 0) c->act = A_BPTE_PROGRAM;
      else if (strcmp(a1, "bpte-method") == 0) c->act = A_BPTE_METHOD;
      else if (strcmp(a1, "xnn") == 0) c->act = A_XNN;
      else BAD("unknown entry point '%s'", a1);
      if (c->act == A_METHOD || c->act == A_EXECUTE || c->act == A_BPTE_METHOD) {
        if (!next_token(&s, c->method, sizeof c->method)) BAD("method name missing");
        c->level = PTE_VERIFY_INTERNAL_CONSISTENCY;
      }
      if (c->act == A_NAMED_DATA) c->level = PTE_VERIFY_INTERNAL_CONSISTENCY;
      while (next_token(&s, a3, sizeof a3)) {
        char *eq = strchr(a3, '=');
        if (!eq) BAD("option '%s' is not key=value", a3);
        *eq = '\0';
        const char *val = eq + 1;
        int64_t v = 0;
        if (strcmp(a3, "level") == 0) {
          if (strcmp(val, "minimal") == 0) c->level = PTE_VERIFY_MINIMAL;
          else if (strcmp(val, "internal") == 0) c->level = PTE_VERIFY_INTERNAL_CONSISTENCY;
          else if (strcmp(val, "both") == 0 && c->act == A_PROGRAM) c->level = -1;
          else BAD("bad level");
        } else if (strcmp(a3, "planned") == 0) {
          if (strcmp(val, "exact") == 0) c->planned = 0;
          else if (strcmp(val, "none") == 0) c->planned = 1;
          else BAD("planned=exact|none");
        } else if (strcmp(a3, "shrink") == 0 && parse_int(val, &v) == 0) {
          c->planned = 2;
          c->shrink = (uint64_t)v;
        } else if (strcmp(a3, "pool") == 0 && parse_int(val, &v) == 0 && v > 0 && v <= (8 << 20)) {
          c->pool = (size_t)v;
        } else if (strcmp(a3, "max_instructions") == 0 && parse_int(val, &v) == 0) {
          c->max_instructions = (uint64_t)v;
        } else if (strcmp(a3, "runs") == 0 && parse_int(val, &v) == 0) {
          c->runs = (int)v;
        } else if (strcmp(a3, "bind_outputs") == 0) {
          c->bind_outputs = strcmp(val, "no") != 0;
        } else {
          BAD("unknown option '%s'", a3);
        }
      }
    } else if (strcmp(kw, "expect") == 0) {
      if (!next_token(&s, a1, sizeof a1) || parse_status(a1, &c->expect)) BAD("expect STATUS \"message\"");
      if (next_token(&s, a2, sizeof a2)) copy_str(c->expect_msg, sizeof c->expect_msg, a2);
      if (c->expect != PTE_OK && !c->expect_msg[0]) BAD("an error expectation needs a message substring");
    } else {
      BAD("unknown keyword '%s'", kw);
    }
#undef BAD
  }
  fclose(f);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int load_catalogue(void) {
  const char *dir = catalogue_dir();
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cannot open the catalogue directory %s\n", dir);
    return -1;
  }
  char *names[64];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 64) {
    size_t l = strlen(e->d_name);
    if (l > 6 && strcmp(e->d_name + l - 6, ".cases") == 0) names[n++] = strdup(e->d_name);
  }
  closedir(d);
  /* Open findings (bugs reported to their owners, tests/malformed/pending/): only on request. */
  if (getenv("PTE_CATALOGUE_PENDING")) {
    char pdir[1200];
    snprintf(pdir, sizeof pdir, "%s/pending", dir);
    DIR *pd = opendir(pdir);
    while (pd && (e = readdir(pd)) != NULL && n < 64) {
      size_t l = strlen(e->d_name);
      if (l > 6 && strcmp(e->d_name + l - 6, ".cases") == 0) {
        char rel[300];
        snprintf(rel, sizeof rel, "pending/%s", e->d_name);
        names[n++] = strdup(rel);
      }
    }
    if (pd) closedir(pd);
  }
  qsort(names, (size_t)n, sizeof names[0], cmp_str);
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (load_catalogue_file(path) != 0) rc = -1;
    free(names[i]);
  }
  for (int i = 0; i < n_cases && rc == 0; i++) {
    for (int j = 0; j < i; j++)
      if (strcmp(cases[i].id, cases[j].id) == 0) {
        fprintf(stderr, "%s: duplicate case id %s\n", cases[i].source, cases[i].id);
        rc = -1;
      }
    if (!cases[i].act || (int)cases[i].expect < 0 || !cases[i].file[0] || !cases[i].desc[0]) {
      fprintf(stderr, "%s: case %s needs file, desc, run and expect\n", cases[i].source, cases[i].id);
      rc = -1;
    }
  }
  return rc;
}

/* gen:op-<name> — single-operator programs built with the program builder (pte/writer.h), for bad
 * operator arguments at execute time (issue 13; the oracle, tests/oracle, has the same cases):
 *   op-intdiv        div.out_mode(x: INT[2] planned input, c: const INT[2] = [3, 0],
 *                    "trunc") -> y INT[2]; values: v0 x, v1 c, v2 String, v3 y
 *   op-index-select  index_select.out(x: FLOAT[3, 2] input, dim: Int -2, index: const LONG[1] =
 *                    [7]) -> y FLOAT[1, 2]; values: v0 x, v1 dim, v2 index, v3 y */
static uint8_t *gen_op(const char *which, size_t *out_size) {
  static const int32_t k_idiv[2] = {3, 0};
  static const int64_t k_index[1] = {7};
  pte_writer *w = NULL;
  uint32_t m = 0, chain = 0, op = 0;
  int32_t v[4] = {-1, -1, -1, -1};
  bool ok = pte_writer_create(NULL, &w, NULL) == PTE_OK && pte_writer_add_method(w, "forward", &m, NULL) == PTE_OK;
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.plan = PTE_WR_PLAN_AUTO;
  t.mem_id = 1;
  if (strcmp(which, "op-intdiv") == 0) {
    const int32_t s2[1] = {2};
    t.dtype = PTE_DTYPE_INT;
    t.dim = 1;
    t.sizes = s2;
    ok = ok && pte_writer_add_tensor(w, m, &t, &v[0], NULL) == PTE_OK;
    pte_wr_tensor c = t;
    c.plan = PTE_WR_PLAN_NONE;
    c.mem_id = 0;
    pte_source src = pte_source_memory(k_idiv, sizeof k_idiv);
    ok = ok && pte_writer_add_constant_tensor(w, m, &c, &src, &v[1], NULL) == PTE_OK;
    ok = ok && pte_writer_add_string(w, m, "trunc", 5, &v[2], NULL) == PTE_OK;
    ok = ok && pte_writer_add_tensor(w, m, &t, &v[3], NULL) == PTE_OK;
    ok = ok && pte_writer_add_operator(w, m, "aten::div", "out_mode", &op, NULL) == PTE_OK;
  } else if (strcmp(which, "op-index-select") == 0) {
    const int32_t s32[2] = {3, 2}, s12[2] = {1, 2}, s1[1] = {1};
    t.dtype = PTE_DTYPE_FLOAT;
    t.dim = 2;
    t.sizes = s32;
    ok = ok && pte_writer_add_tensor(w, m, &t, &v[0], NULL) == PTE_OK;
    ok = ok && pte_writer_add_int(w, m, -2, &v[1], NULL) == PTE_OK; /* dim 0 (a stored value) */
    pte_wr_tensor c;
    memset(&c, 0, sizeof c);
    c.dtype = PTE_DTYPE_LONG;
    c.dim = 1;
    c.sizes = s1;
    pte_source src = pte_source_memory(k_index, sizeof k_index);
    ok = ok && pte_writer_add_constant_tensor(w, m, &c, &src, &v[2], NULL) == PTE_OK;
    t.sizes = s12;
    ok = ok && pte_writer_add_tensor(w, m, &t, &v[3], NULL) == PTE_OK;
    ok = ok && pte_writer_add_operator(w, m, "aten::index_select", "out", &op, NULL) == PTE_OK;
  } else {
    ok = false;
  }
  const int32_t args[5] = {v[0], v[1], v[2], v[3], v[3]};
  ok = ok && pte_writer_set_inputs(w, m, &v[0], 1, NULL) == PTE_OK &&
       pte_writer_set_outputs(w, m, &v[3], 1, NULL) == PTE_OK &&
       pte_writer_add_chain(w, m, &v[0], 1, &v[3], 1, &chain, NULL) == PTE_OK &&
       pte_writer_add_kernel_call(w, m, chain, op, args, 5, NULL, NULL) == PTE_OK;
  uint8_t *out = NULL;
  pte_memory_writer mw;
  if (ok && pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0) == PTE_OK) {
    if (pte_writer_write(w, &mw.base, NULL) == PTE_OK) {
      const uint8_t *d = pte_memory_writer_data(&mw, out_size);
      out = (uint8_t *)malloc(*out_size ? *out_size : 1);
      if (out) memcpy(out, d, *out_size);
    }
    pte_data_writer_destroy(&mw.base);
  }
  pte_writer_destroy(w);
  return out;
}

/* ================================================================== building a case's input */

static const schema *schema_of(const mcase *c) {
  if (c->act == A_PTD) return &k_schema_ptd;
  if (c->act == A_XNN) return &k_schema_xnn;
  if (c->act == A_BPTE || c->act == A_BPTE_PROGRAM || c->act == A_BPTE_METHOD) return &k_schema_bpte;
  return &k_schema_pte;
}

/* Base bytes of the case (heap, caller frees); NULL with a message on failure. */
static uint8_t *base_input(const mcase *c, size_t *n, char *why, size_t why_cap) {
  if (strncmp(c->file, "gen:", 4) == 0) {
    if (strcmp(c->file + 4, "control") == 0) return gen_control(n, 0);
    if (strcmp(c->file + 4, "unplanned-output") == 0) return gen_control(n, 1);
    if (strncmp(c->file + 4, "op-", 3) == 0) {
      uint8_t *d = gen_op(c->file + 4, n);
      if (!d) snprintf(why, why_cap, "generator %s failed", c->file);
      return d;
    }
    snprintf(why, why_cap, "unknown generator %s", c->file);
    return NULL;
  }
  const char *path = test_corpus_path(c->file);
  size_t sz = 0;
  uint8_t *d = path ? test_read_file(path, &sz) : NULL;
  if (!d) {
    snprintf(why, why_cap, "cannot read corpus file %s", c->file);
    return NULL;
  }
  if (c->segment < 0) {
    *n = sz;
    return d;
  }
  /* The input is one segment of a program (e.g. a delegate blob). */
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, sz);
  pte_program p;
  uint8_t *out = NULL;
  if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL) == PTE_OK) {
    uint64_t off, size;
    if (pte_program_segment(&p, (size_t)c->segment, &off, &size) == PTE_OK) {
      uint64_t abs = pte_program_get_header(&p)->segment_base_offset + off;
      out = (uint8_t *)malloc(size ? (size_t)size : 1);
      if (out) memcpy(out, d + abs, (size_t)size);
      *n = (size_t)size;
    }
    pte_program_destroy(&p);
  }
  free(d);
  if (!out) snprintf(why, why_cap, "%s has no segment %d", c->file, c->segment);
  return out;
}

/* Applies the patches; returns NULL or an error message. May change *n (truncate). */
/* Where the flatbuffer that schema paths address starts: 0, or an XNNPACK blob's flatbuffer
 * offset (XH00 header). */
static size_t flatbuffer_base(const mcase *c, const uint8_t *d, size_t n) {
  if (c->act != A_XNN || n < 18 || memcmp(d + 4, "XH00", 4) != 0) return 0;
  size_t off = pte_fb_ld_u32(d + 10);
  return off < n ? off : 0;
}

static const char *apply_patches(const mcase *c, uint8_t **dp, size_t *n) {
  static char msg[300];
  uint8_t *d = *dp;
  const schema *sc = schema_of(c);
  for (int i = 0; i < c->n_patches; i++) {
    const patch *p = &c->patches[i];
    resolved r;
    memset(&r, 0, sizeof r);
    const char *e;
    switch (p->op) {
      case P_TRUNCATE:
        if ((uint64_t)p->value > *n) return "truncate past the end";
        *n = (size_t)p->value;
        break;
      case P_APPEND: {
        uint8_t *g = (uint8_t *)realloc(d, *n + (size_t)p->value);
        if (!g) return "out of memory";
        memset(g + *n, 0, (size_t)p->value);
        *dp = d = g;
        *n += (size_t)p->value;
        break;
      }
      case P_RAW:
        if (p->offset + (uint64_t)p->width > *n) return "raw write past the end";
        st_le(d + p->offset, (uint64_t)p->value, p->width);
        break;
      case P_BYTES:
        if (p->offset + strlen(p->text) > *n) return "bytes past the end";
        memcpy(d + p->offset, p->text, strlen(p->text));
        break;
      case P_HDR: {
        uint64_t off = 0;
        int w = 0;
        if (header_field(p->path, &off, &w) != 0) return "unknown header field";
        if (off + (uint64_t)w > *n) return "header field past the end";
        st_le(d + off, (uint64_t)p->value, w);
        break;
      }
      case P_FIELD:
        if ((e = resolve(sc, d + flatbuffer_base(c, d, *n), *n - flatbuffer_base(c, d, *n), p->path, &r)) != NULL) {
          snprintf(msg, sizeof msg, "path %s: %s", p->path, e);
          return msg;
        }
        if (r.kind == PTE_FBGEN_VECTOR || r.kind == PTE_FBGEN_STRING) return "set needs a scalar path";
        st_le(d + flatbuffer_base(c, d, *n) + r.pos, (uint64_t)p->value, (int)pte_fbgen_kind_size((pte_fbgen_kind)r.kind));
        break;
      case P_VLEN:
        if ((e = resolve(sc, d + flatbuffer_base(c, d, *n), *n - flatbuffer_base(c, d, *n), p->path, &r)) != NULL) {
          snprintf(msg, sizeof msg, "path %s: %s", p->path, e);
          return msg;
        }
        if (r.kind != PTE_FBGEN_VECTOR) return "vlen needs a vector path";
        st_le(d + flatbuffer_base(c, d, *n) + r.vec.data - 4, (uint64_t)p->value, 4);
        break;
      case P_STR: {
        if ((e = resolve(sc, d + flatbuffer_base(c, d, *n), *n - flatbuffer_base(c, d, *n), p->path, &r)) != NULL) {
          snprintf(msg, sizeof msg, "path %s: %s", p->path, e);
          return msg;
        }
        if (r.kind != PTE_FBGEN_STRING) return "str needs a string path";
        size_t l = strlen(p->text);
        if (l > r.str.len) return "str: the new text must not be longer";
        uint8_t *sp = (uint8_t *)(uintptr_t)r.str.ptr;
        st_le(sp - 4, l, 4);
        memcpy(sp, p->text, l);
        sp[l] = 0;
        break;
      }
    }
  }
  return NULL;
}

/* ================================================================== running a case */

static uint8_t *g_pool, *g_temp;

/* Result of running an entry point: status + message. */
typedef struct outcome {
  pte_status s;
  char msg[PTE_ERROR_MSG_MAX];
  char setup[200]; /* non-empty: the case could not reach its entry point */
} outcome;

static void touch_program(const pte_program *p) {
  size_t nm = pte_program_num_methods(p);
  for (size_t i = 0; i <= nm; i++) (void)pte_program_method_name(p, i);
  const void *cd;
  for (size_t i = 0; i < 4; i++) (void)pte_program_constant_data(p, i, 4, &cd);
  for (size_t i = 0; i < pte_program_num_segments(p) && i < 64; i++) {
    pte_freeable_buffer b;
    if (pte_program_load_segment(p, i, NULL, &b) == PTE_OK) pte_freeable_buffer_free(&b);
  }
}

static void run_method_action(const mcase *c, const pte_program *prog, const pte_named_data_map *ext, outcome *o) {
  pte_method_meta meta;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = pte_method_meta_get(prog, c->method, &meta, &err);
  if (s != PTE_OK) {
    o->s = s;
    memcpy(o->msg, err.msg, sizeof o->msg);
    return;
  }
  size_t np = pte_method_meta_num_planned_buffers(&meta);
  pte_planned_buffer pb[8];
  memset(pb, 0, sizeof pb);
  size_t provided = c->planned == 1 ? 0 : np;
  if (provided > 8) {
    snprintf(o->setup, sizeof o->setup, "%zu planned buffers", np);
    return;
  }
  for (size_t i = 0; i < provided; i++) {
    uint64_t sz = 0;
    if (pte_method_meta_planned_buffer_size(&meta, i, &sz) != PTE_OK || sz > (64u << 20)) {
      snprintf(o->setup, sizeof o->setup, "planned buffer %zu unusable", i);
      goto out;
    }
    if (c->planned == 2) sz = sz > c->shrink ? sz - c->shrink : 0;
    pb[i].size = (size_t)sz;
    pb[i].data = sz ? calloc(1, (size_t)sz) : NULL;
  }
  pte_allocator ma, ta;
  pte_allocator_init(&ma, g_pool, c->pool);
  pte_allocator_init(&ta, g_temp, 1u << 20);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, pb, provided, &ta);
  pte_method_options mo;
  memset(&mo, 0, sizeof mo);
  mo.external_data = ext;
  mo.max_instructions = c->max_instructions;
  pte_method *m = NULL;
  s = pte_method_load_ex(prog, c->method, &mm, &mo, &m, &err);
  if (s != PTE_OK && (ma.used != 0 || m != NULL)) { /* documented: a failed load rewinds the allocator */
    snprintf(o->setup, sizeof o->setup, "failed load left %zu bytes allocated (or set *out)", ma.used);
    goto out;
  }
  if (c->act == A_METHOD) {
    o->s = s;
    memcpy(o->msg, err.msg, sizeof o->msg);
    if (s == PTE_OK) pte_method_destroy(m);
    goto out;
  }
  if (s != PTE_OK) {
    snprintf(o->setup, sizeof o->setup, "method load failed: %s (%.150s)", pte_status_name(s), err.msg);
    goto out;
  }
  {
    size_t nin = pte_method_num_inputs(m), nout = pte_method_num_outputs(m);
    void **inb = (void **)calloc(nin + 1, sizeof(void *));
    void **outb = (void **)calloc(nout + 1, sizeof(void *));
    s = c->bind_outputs ? fz_bind_outputs(m, &meta, 64u << 20, outb, &err) : PTE_OK;
    if (s != PTE_OK) snprintf(o->setup, sizeof o->setup, "binding outputs failed: %.150s", err.msg);
    for (int k = 0; k < c->runs && s == PTE_OK; k++) {
      memset(&err, 0, sizeof err);
      s = fz_set_inputs(m, &meta, 64u << 20, inb, (unsigned)k, &err);
      if (s != PTE_OK) { /* refusing an input is a valid outcome (e.g. after a FreeCall) */
        o->s = s;
        snprintf(o->msg, sizeof o->msg, "set_input: %.200s", err.msg);
        break;
      }
      memset(&err, 0, sizeof err);
      s = pte_method_execute(m, &err);
      o->s = s;
      memcpy(o->msg, err.msg, sizeof o->msg);
      if (s == PTE_OK) fz_touch_outputs(m);
    }
    pte_method_destroy(m);
    fz_free_all(inb, nin);
    fz_free_all(outb, nout);
  }
out:
  for (size_t i = 0; i < provided; i++) free(pb[i].data);
}

static void run_program_level(const mcase *c, const uint8_t *d, size_t n, int level, outcome *o) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = pte_program_load(&bl.base, (pte_verification)level, &p, &err);
  if (c->act == A_PROGRAM) {
    o->s = s;
    memcpy(o->msg, err.msg, sizeof o->msg);
    if (s == PTE_OK) {
      touch_program(&p);
      pte_program_destroy(&p);
    }
    return;
  }
  if (s != PTE_OK) {
    snprintf(o->setup, sizeof o->setup, "program load failed: %s (%.150s)", pte_status_name(s), err.msg);
    return;
  }
  if (c->act == A_NAMED_DATA) {
    const pte_named_data_map *m = pte_program_named_data_map(&p);
    uint32_t nk = 0;
    o->s = PTE_OK;
    if (!m || pte_named_data_map_num_keys(m, &nk) != PTE_OK) {
      snprintf(o->setup, sizeof o->setup, "program has no named data");
    }
    for (uint32_t k = 0; k < nk && o->s == PTE_OK; k++) {
      const char *key;
      pte_freeable_buffer b;
      if ((o->s = pte_named_data_map_get_key(m, k, &key)) != PTE_OK) break;
      if ((o->s = pte_named_data_map_get_data(m, key, &b)) == PTE_OK) pte_freeable_buffer_free(&b);
      else snprintf(o->msg, sizeof o->msg, "named data key %u ('%s'): get_data failed", k, key);
    }
    pte_program_destroy(&p);
    return;
  }
  /* method / execute, with an optional (unpatched) .ptd companion */
  pte_ptd ptd;
  uint8_t *pd = NULL;
  const pte_named_data_map *ext = NULL;
  pte_buffer_loader pl;
  if (c->companion[0]) {
    size_t pn = 0;
    uint8_t *raw = test_read_corpus(c->companion, &pn);
    pd = raw ? fz_aligned_copy(raw, pn) : NULL;
    free(raw);
    pte_buffer_loader_init(&pl, pd, pn);
    if (!pd || pte_ptd_load(&pl.base, &ptd, NULL) != PTE_OK) {
      snprintf(o->setup, sizeof o->setup, "companion %s does not load", c->companion);
      free(pd);
      pte_program_destroy(&p);
      return;
    }
    ext = pte_ptd_map(&ptd);
  }
  run_method_action(c, &p, ext, o);
  if (ext) pte_ptd_destroy(&ptd);
  free(pd);
  pte_program_destroy(&p);
}

static void run_ptd(const mcase *c, const uint8_t *d, size_t n, outcome *o) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_ptd ptd;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  o->s = pte_ptd_load(&bl.base, &ptd, &err);
  memcpy(o->msg, err.msg, sizeof o->msg);
  if (o->s != PTE_OK) return;
  /* A .ptd that loads must also serve a program that uses it (companion .pte, unpatched). */
  if (c->companion[0]) {
    size_t pn = 0;
    uint8_t *raw = test_read_corpus(c->companion, &pn);
    uint8_t *pp = raw ? fz_aligned_copy(raw, pn) : NULL;
    free(raw);
    pte_buffer_loader pl;
    pte_buffer_loader_init(&pl, pp, pn);
    pte_program prog;
    if (pp && pte_program_load(&pl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, NULL) == PTE_OK) {
      mcase mc = *c;
      mc.act = A_METHOD; /* first the load (its failure is the outcome)... */
      snprintf(mc.method, sizeof mc.method, "%s", "forward");
      outcome o2;
      memset(&o2, 0, sizeof o2);
      run_method_action(&mc, &prog, pte_ptd_map(&ptd), &o2);
      if (!o2.setup[0] && o2.s == PTE_OK) { /* ...then a run */
        mc.act = A_EXECUTE;
        memset(&o2, 0, sizeof o2);
        run_method_action(&mc, &prog, pte_ptd_map(&ptd), &o2);
      }
      if (o2.setup[0]) {
        o->s = PTE_ERR_INTERNAL; /* report the first failure of the companion run */
        snprintf(o->msg, sizeof o->msg, "companion: %.200s", o2.setup);
      } else if (o2.s != PTE_OK) {
        o->s = o2.s;
        memcpy(o->msg, o2.msg, sizeof o->msg);
      }
      pte_program_destroy(&prog);
    } else {
      snprintf(o->setup, sizeof o->setup, "companion %s does not load", c->companion);
    }
    free(pp);
  }
  pte_ptd_destroy(&ptd);
}

static void run_bpte(const mcase *c, const uint8_t *d, size_t n, outcome *o) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_bundled_program bp;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = pte_bundled_program_load(&bl.base, &bp, &err);
  if (c->act == A_BPTE) {
    o->s = s;
    memcpy(o->msg, err.msg, sizeof o->msg);
    if (s == PTE_OK) pte_bundled_program_destroy(&bp);
    return;
  }
  if (s != PTE_OK) {
    snprintf(o->setup, sizeof o->setup, "bundled load failed: %s (%.150s)", pte_status_name(s), err.msg);
    return;
  }
  pte_program p;
  memset(&err, 0, sizeof err);
  pte_status ps = pte_program_load(pte_bundled_program_loader(&bp), (pte_verification)(c->level < 0 ? 1 : c->level), &p, &err);
  o->s = ps;
  memcpy(o->msg, err.msg, sizeof o->msg);
  if (ps == PTE_OK) {
    if (c->act == A_BPTE_METHOD) {
      mcase mc = *c;
      mc.act = A_METHOD;
      run_method_action(&mc, &p, NULL, o);
    }
    pte_program_destroy(&p);
  } else if (c->act == A_BPTE_METHOD) {
    snprintf(o->setup, sizeof o->setup, "embedded program load failed: %s (%.150s)", pte_status_name(ps), err.msg);
  }
  pte_bundled_program_destroy(&bp);
}

static void run_xnn(const mcase *c, const uint8_t *d, size_t n, outcome *o) {
  pte_program prog;
  uint8_t *pp = NULL;
  const pte_named_data_map *ndm = NULL;
  pte_buffer_loader pl;
  if (c->companion[0]) {
    size_t pn = 0;
    uint8_t *raw = test_read_corpus(c->companion, &pn);
    pp = raw ? fz_aligned_copy(raw, pn) : NULL;
    free(raw);
    pte_buffer_loader_init(&pl, pp, pn);
    if (!pp || pte_program_load(&pl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, NULL) != PTE_OK) {
      snprintf(o->setup, sizeof o->setup, "companion %s does not load", c->companion);
      free(pp);
      return;
    }
    ndm = pte_program_named_data_map(&prog);
  }
  pte_xnn_header h;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  o->s = pte_xnn_parse_header(d, n, &h, &err);
  if (o->s == PTE_OK) {
    pte_xnnpack_options xo = {1, PTE_XNN_ISA_SCALAR};
    pte_xnn_delegate *del = NULL;
    o->s = pte_xnn_delegate_init(d, n, ndm, &xo, &del, &err);
    if (o->s == PTE_OK) pte_xnn_delegate_destroy(del);
  }
  memcpy(o->msg, err.msg, sizeof o->msg);
  if (pp) {
    pte_program_destroy(&prog);
    free(pp);
  }
}

/* Builds the case's input. Returns exact-size heap bytes (free) or NULL with *why. */
static uint8_t *case_input(const mcase *c, size_t *n, char *why, size_t why_cap) {
  uint8_t *d = base_input(c, n, why, why_cap);
  if (!d) return NULL;
  const char *e = apply_patches(c, &d, n);
  if (e) {
    snprintf(why, why_cap, "%s", e);
    free(d);
    return NULL;
  }
  uint8_t *exact = fz_aligned_copy(d, *n);
  free(d);
  return exact;
}

static const mcase *g_case;

static void check_outcome(const mcase *c, const outcome *o, const char *what) {
  if (getenv("PTE_CATALOGUE_VERBOSE"))
    printf("  %s [%s]: %s: %s%s\n", c->id, what, status_word(o->s), o->msg, o->setup[0] ? " (SETUP FAILED)" : "");
  CHECK_MSG(!o->setup[0], "%s [%s]: %s", c->id, what, o->setup);
  CHECK_MSG(o->s == c->expect, "%s [%s]: got %s (%s), expected %s", c->id, what, pte_status_name(o->s), o->msg,
            pte_status_name(c->expect));
  if (c->expect != PTE_OK) CHECK_MSG(strstr(o->msg, c->expect_msg) != NULL, "%s [%s]: message \"%s\" lacks \"%s\"", c->id,
                                     what, o->msg, c->expect_msg);
}

static void run_case(void) {
  const mcase *c = g_case;
  size_t n = 0;
  char why[300] = "";
  uint8_t *d = case_input(c, &n, why, sizeof why);
  CHECK_MSG(d, "%s (%s): cannot build the input: %s", c->id, c->source, why);
  outcome o;
  switch (c->act) {
    case A_PROGRAM:
      for (int lv = 0; lv < 2; lv++) {
        if (c->level >= 0 && c->level != lv) continue;
        memset(&o, 0, sizeof o);
        run_program_level(c, d, n, lv, &o);
        check_outcome(c, &o, lv ? "internal" : "minimal");
        if (test_current_failed) break;
      }
      break;
    case A_METHOD:
    case A_EXECUTE:
    case A_NAMED_DATA:
      memset(&o, 0, sizeof o);
      run_program_level(c, d, n, c->level, &o);
      check_outcome(c, &o, c->level ? "internal" : "minimal");
      break;
    case A_PTD:
      memset(&o, 0, sizeof o);
      run_ptd(c, d, n, &o);
      check_outcome(c, &o, "ptd");
      break;
    case A_BPTE:
    case A_BPTE_PROGRAM:
    case A_BPTE_METHOD:
      memset(&o, 0, sizeof o);
      run_bpte(c, d, n, &o);
      check_outcome(c, &o, "bpte");
      break;
    case A_XNN:
      memset(&o, 0, sizeof o);
      run_xnn(c, d, n, &o);
      check_outcome(c, &o, "xnn");
      break;
  }
  free(d);
}

/* ================================================================== meta checks */

/* Every case id appears in docs/robustness.md (the catalogue is documented). */
static void docs_list_every_case(void) {
  char path[1200];
  snprintf(path, sizeof path, "%s/../../docs/robustness.md", catalogue_dir());
  size_t n = 0;
  uint8_t *doc = test_read_file(path, &n);
  CHECK_MSG(doc, "cannot read %s", path);
  int missing = 0;
  for (int i = 0; i < n_cases; i++) {
    char needle[80];
    snprintf(needle, sizeof needle, "`%s`", cases[i].id);
    if (!strstr((const char *)doc, needle)) {
      fprintf(stderr, "  docs/robustness.md does not list %s\n", cases[i].id);
      missing++;
    }
  }
  free(doc);
  CHECK_MSG(missing == 0, "%d catalogue cases are missing from docs/robustness.md (run --markdown)", missing);
}

/* The catalogue covers every format and entry point, with at least 40 cases. */
static void catalogue_coverage(void) {
  int per_action[16] = {0};
  for (int i = 0; i < n_cases; i++) per_action[cases[i].act]++;
  CHECK_MSG(n_cases >= 40, "only %d cases", n_cases);
  for (int a = A_PROGRAM; a <= A_XNN; a++)
    CHECK_MSG(per_action[a] > 0, "no case for entry point %s", action_name((action)a));
}

/* The generated program is itself valid and computes y = x + [1, 2]. */
static void generated_control_program_runs(void) {
  size_t n = 0;
  uint8_t *raw = gen_control(&n, 0);
  CHECK(raw);
  uint8_t *d = fz_aligned_copy(raw, n);
  free(raw);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  float planned[8] = {0};
  pte_planned_buffer pb = {planned, sizeof planned};
  pte_allocator ma;
  pte_allocator_init(&ma, g_pool, 1u << 20);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, &pb, 1, NULL);
  pte_method *m = NULL;
  CHECK_OK(pte_method_load(&p, "forward", &mm, NULL, NULL, &m, &err));
  float x[2] = {10.0f, 20.0f};
  int32_t sizes[1] = {2};
  CHECK_OK(pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, sizes, 1, x, sizeof x, &err));
  for (int k = 0; k < 3; k++) CHECK_OK(pte_method_execute(m, &err)); /* FreeCall is jumped over */
  const pte_evalue *y = pte_method_get_output(m, 0);
  CHECK(y && y->tag == PTE_TAG_TENSOR);
  CHECK_NEAR(((const float *)y->u.tensor->data)[0], 11.0, 0);
  CHECK_NEAR(((const float *)y->u.tensor->data)[1], 22.0, 0);
  CHECK_EQ_INT(pte_method_get_value(m, 4)->u.i, 1); /* MoveCall v3 -> v4 ran */
  pte_method_destroy(m);
  pte_program_destroy(&p);
  free(d);
}

/* ================================================================== main */

static void print_markdown(void) {
  char file[96] = "";
  for (int i = 0; i < n_cases; i++) {
    const mcase *c = &cases[i];
    size_t fl = strcspn(c->source, ":");
    if (strncmp(file, c->source, fl) != 0 || file[fl] != '\0') {
      snprintf(file, sizeof file, "%.*s", (int)fl, c->source);
      printf("%s#### tests/malformed/%s\n\n", i ? "\n" : "", file);
      printf("| id | input | entry point | expected status | message contains | what it checks |\n");
      printf("|---|---|---|---|---|---|\n");
    }
    char input[160];
    if (c->segment >= 0) snprintf(input, sizeof input, "%s seg %d", c->file, c->segment);
    else snprintf(input, sizeof input, "%s", c->file);
    const char *lv = "";
    if (c->act == A_PROGRAM && c->level == 0) lv = " (minimal)";
    else if (c->act == A_PROGRAM && c->level == 1) lv = " (internal)";
    else if ((c->act == A_METHOD || c->act == A_EXECUTE || c->act == A_BPTE_METHOD) && c->level == 0) lv = " (minimal)";
    printf("| `%s` | %s | %s%s | %s | %s | %s |\n", c->id, input, action_name(c->act), lv, status_word(c->expect),
           c->expect_msg[0] ? c->expect_msg : "-", c->desc);
  }
}

int main(int argc, char **argv) {
  if (load_catalogue() != 0) {
    fprintf(stderr, "catalogue has errors\n");
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (int i = 0; i < n_cases; i++)
      printf("%-40s %-12s %-26s %s\n", cases[i].id, action_name(cases[i].act), status_word(cases[i].expect),
             cases[i].expect_msg);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--markdown") == 0) {
    print_markdown();
    return 0;
  }
  if (argc > 3 && strcmp(argv[1], "--write") == 0) {
    for (int i = 0; i < n_cases; i++) {
      if (strcmp(cases[i].id, argv[2]) != 0) continue;
      size_t n;
      char why[300];
      uint8_t *d = case_input(&cases[i], &n, why, sizeof why);
      if (!d) {
        fprintf(stderr, "%s\n", why);
        return 1;
      }
      int rc = test_write_file(argv[3], d, n);
      free(d);
      return rc ? 1 : 0;
    }
    fprintf(stderr, "no case %s\n", argv[2]);
    return 1;
  }
  if (argc > 2 && strcmp(argv[1], "--write-all") == 0) {
    /* Every case's input, named <id>.<pte|ptd|bpte> (fuzzing seeds: tests/fuzz/run.sh). */
    int written = 0;
    for (int i = 0; i < n_cases; i++) {
      size_t n;
      char why[300], path[1200];
      uint8_t *d = case_input(&cases[i], &n, why, sizeof why);
      if (!d) continue;
      const char *ext = cases[i].act == A_PTD ? "ptd" : cases[i].act == A_XNN ? "xnn" : schema_of(&cases[i]) == &k_schema_bpte ? "bpte" : "pte";
      snprintf(path, sizeof path, "%s/%s.%s", argv[2], cases[i].id, ext);
      if (test_write_file(path, d, n) == 0) written++;
      free(d);
    }
    printf("%d inputs written to %s\n", written, argv[2]);
    return written ? 0 : 1;
  }
  (void)pte_register_portable_kernels();
  (void)pte_register_xnnpack_backend(); /* the real backend for XnnpackBackend delegates */
  fz_register_stub_backends();          /* stubs for the other ids (FuzzBackend, OpenvinoBackend) */
  g_pool = (uint8_t *)malloc(8u << 20);
  g_temp = (uint8_t *)malloc(1u << 20);
  const char *only = argc > 1 ? argv[1] : NULL;
  RUN(catalogue_coverage);
  RUN(docs_list_every_case);
  RUN(generated_control_program_runs);
  for (int i = 0; i < n_cases; i++) {
    if (only && !strstr(cases[i].id, only)) continue;
    g_case = &cases[i];
    test_run(cases[i].id, run_case);
  }
  free(g_pool);
  free(g_temp);
  return test_summary();
}
