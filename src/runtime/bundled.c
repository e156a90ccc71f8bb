/* bundled.c — bundled programs (.bpte, "BP08"): the embedded program and the test cases.
 * Core code: no allocation, no stdio. */
#include <stdint.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/bundled.h"
#include "pte/headers.h"
#include "pte/tensor.h"
#include "pte_gen/bundled_program_gen.h"
#include "runtime/prog_internal.h"

/* pte_bundled_value_kind (public) numbers the value kinds as the ValueUnion tags. */
_Static_assert(PTE_BUNDLED_TENSOR == pte_bp_ValueUnion_Tensor && PTE_BUNDLED_INT == pte_bp_ValueUnion_Int &&
                   PTE_BUNDLED_BOOL == pte_bp_ValueUnion_Bool && PTE_BUNDLED_DOUBLE == pte_bp_ValueUnion_Double,
               "pte_bundled_value_kind differs from bundled_program.fbs ValueUnion");

#define BAD PTE_ERR_INVALID_PROGRAM


static pte_fb_table bp_root(const pte_bundled_program *bp) { return pte_fb_table_at(bp->fb, bp->fb_size, bp->root); }

/* Decodes a Value table; *detail gets a message on failure. */
static pte_status decode_value(pte_fb_table v, pte_bundled_value *out, pte_error_info *detail) {
  memset(out, 0, sizeof *out);
  if (!pte_fb_table_present(v)) return pte_error_set(detail, BAD, "value is null");
  uint8_t tag = pte_bp_Value_val_type(v);
  pte_fb_table val = pte_bp_Value_val(v);
  if (tag < PTE_BUNDLED_TENSOR || tag > PTE_BUNDLED_DOUBLE)
    return pte_error_set(detail, BAD, "invalid value type %u", (unsigned)tag);
  if (!pte_fb_table_present(val)) return pte_error_set(detail, BAD, "value of type %u has no payload", (unsigned)tag);
  out->kind = (pte_bundled_value_kind)tag;
  switch (tag) {
    case PTE_BUNDLED_INT: out->int_val = pte_bp_Int_int_val(val); return PTE_OK;
    case PTE_BUNDLED_BOOL: out->bool_val = pte_bp_Bool_bool_val(val); return PTE_OK;
    case PTE_BUNDLED_DOUBLE: out->double_val = pte_bp_Double_double_val(val); return PTE_OK;
    default: break;
  }
  int dtype = pte_bp_Tensor_scalar_type(val);
  pte_fb_vec sizes = pte_bp_Tensor_sizes(val);
  pte_fb_vec dim_order = pte_bp_Tensor_dim_order(val);
  pte_fb_vec data = pte_bp_Tensor_data(val);
  uint64_t nbytes;
  if (pte_rt_check_shape(dtype, sizes, dim_order, false, &nbytes, detail) != PTE_RT_SHAPE_OK) {
    if (detail) detail->status = BAD;
    return BAD;
  }
  uint64_t have = data.present ? data.len : 0;
  if (data.present && !pte_rt_vec_fits(data, 1)) return pte_error_set(detail, BAD, "tensor data out of bounds");
  if (have != nbytes)
    return pte_error_set(detail, BAD, "tensor data has %llu bytes, shape needs %llu", pte_rt_ull(have), pte_rt_ull(nbytes));
  out->tensor.dtype = (uint8_t)dtype;
  out->tensor.dim = (int32_t)sizes.len;
  out->tensor.sizes = (const int32_t *)(const void *)(sizes.buf + sizes.data);
  out->tensor.dim_order = dim_order.present ? dim_order.buf + dim_order.data : NULL;
  out->tensor.data = (have && data.present) ? (const void *)(data.buf + data.data) : NULL;
  out->tensor.nbytes = (size_t)nbytes;
  return PTE_OK;
}

static pte_status validate_values(pte_fb_vec vals, uint32_t suite, uint32_t c, const char *what,
                                  const char *method, pte_error_info *err) {
  if (!vals.present) return PTE_OK;
  for (uint32_t i = 0; i < vals.len; i++) {
    pte_bundled_value v;
    pte_error_info detail;
    detail.msg[0] = 0;
    if (decode_value(pte_fb_vec_table(vals, i), &v, err ? &detail : NULL) != PTE_OK)
      return pte_error_set(err, BAD, "bundled test suite %u ('%s') case %u %s %u: %s", suite, method, c, what, i,
                           detail.msg);
  }
  return PTE_OK;
}

static pte_status validate_suites(pte_fb_table rt, pte_error_info *err) {
  pte_fb_vec suites = pte_bp_BundledProgram_method_test_suites(rt);
  for (uint32_t s = 0; suites.present && s < suites.len; s++) {
    pte_fb_table st = pte_fb_vec_table(suites, s);
    const char *name = pte_bp_BundledMethodTestSuite_method_name(st).ptr;
    if (!pte_fb_table_present(st) || !name)
      return pte_error_set(err, BAD, "bundled test suite %u has no method_name", s);
    pte_fb_vec cases = pte_bp_BundledMethodTestSuite_test_cases(st);
    for (uint32_t c = 0; cases.present && c < cases.len; c++) {
      pte_fb_table tc = pte_fb_vec_table(cases, c);
      if (!pte_fb_table_present(tc)) return pte_error_set(err, BAD, "bundled test suite %u case %u is null", s, c);
      pte_status r = validate_values(pte_bp_BundledMethodTestCase_inputs(tc), s, c, "input", name, err);
      if (r == PTE_OK) r = validate_values(pte_bp_BundledMethodTestCase_expected_outputs(tc), s, c, "expected output", name, err);
      if (r != PTE_OK) return r;
    }
  }
  return PTE_OK;
}

static pte_status bp_fail(pte_bundled_program *bp, pte_status s) {
  pte_freeable_buffer_free(&bp->data);
  memset(bp, 0, sizeof *bp);
  return s;
}

pte_status pte_bundled_program_load(const pte_data_loader *loader, pte_bundled_program *bp, pte_error_info *err) {
  if (!bp) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "bundled program load: NULL output");
  memset(bp, 0, sizeof *bp);
  if (!loader || !loader->vt) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "bundled program load: NULL loader");
  bp->loader = loader;
  uint64_t file_size = 0;
  pte_status s = pte_data_loader_size(loader, &file_size);
  if (s != PTE_OK) return bp_fail(bp, pte_error_set(err, s, "bundled program load: cannot get the data size"));
  if (file_size < 8)
    return bp_fail(bp, pte_error_set(err, BAD, "bundled program file is %llu bytes, too small", pte_rt_ull(file_size)));
  if (file_size > 0x7FFFFFFFull || file_size > (uint64_t)SIZE_MAX)
    return bp_fail(bp, pte_error_set(err, BAD, "bundled program of %llu bytes exceeds the 2 GiB FlatBuffers limit",
                                     pte_rt_ull(file_size)));
  pte_segment_info info = {PTE_SEGMENT_PROGRAM, 0, NULL};
  s = pte_data_loader_load(loader, 0, (size_t)file_size, &info, &bp->data);
  if (s != PTE_OK) return bp_fail(bp, pte_error_set(err, s, "bundled program load: cannot load %llu bytes", pte_rt_ull(file_size)));
  if (!bp->data.data || bp->data.size < (size_t)file_size)
    return bp_fail(bp, pte_error_set(err, PTE_ERR_ACCESS_FAILED, "bundled program load: loader returned a short buffer"));
  bp->fb = (const uint8_t *)bp->data.data;
  bp->fb_size = (size_t)file_size;
  if ((uintptr_t)bp->fb % PTE_RT_BUFFER_ALIGN != 0)
    return bp_fail(bp, pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "bundled program data at 0x%llx must be aligned to %d bytes",
                                     pte_rt_ull((uint64_t)(uintptr_t)bp->fb), PTE_RT_BUFFER_ALIGN));
  if (memcmp(bp->fb + 4, "BP08", 4) != 0) {
    char id[5];
    pte_rt_ident(bp->fb + 4, id);
    return bp_fail(bp, pte_error_set(err, BAD, "not a bundled program: identifier '%s' != expected 'BP08'", id));
  }
  s = pte_bp_verify_root(bp->fb, bp->fb_size, err);
  if (s != PTE_OK) return bp_fail(bp, pte_rt_remap(s, BAD, err));
  s = pte_bundled_program_find_program(bp->fb, bp->fb_size, file_size, &bp->program_offset, &bp->program_size, err);
  if (s != PTE_OK) return bp_fail(bp, pte_rt_remap(s, BAD, err));
  bp->root = pte_fb_ld_u32(bp->fb);
  pte_fb_table rt = bp_root(bp);
  if (!pte_fb_table_present(rt)) return bp_fail(bp, pte_error_set(err, BAD, "bundled program root table is malformed"));
  s = validate_suites(rt, err);
  if (s != PTE_OK) return bp_fail(bp, s);
  s = pte_window_loader_init(&bp->program_loader, loader, bp->program_offset, bp->program_size);
  if (s != PTE_OK) return bp_fail(bp, pte_error_set(err, s, "bundled program: cannot open a window on the embedded program"));
  if (err) {
    err->status = PTE_OK;
    err->msg[0] = 0;
  }
  return PTE_OK;
}

void pte_bundled_program_destroy(pte_bundled_program *bp) {
  if (!bp) return;
  pte_freeable_buffer_free(&bp->data);
  memset(bp, 0, sizeof *bp);
}

const pte_data_loader *pte_bundled_program_loader(const pte_bundled_program *bp) {
  return (bp && bp->fb) ? &bp->program_loader.base : NULL;
}

void pte_bundled_program_location(const pte_bundled_program *bp, uint64_t *offset, uint64_t *size) {
  if (offset) *offset = bp ? bp->program_offset : 0;
  if (size) *size = bp ? bp->program_size : 0;
}

uint32_t pte_bundled_program_version(const pte_bundled_program *bp) {
  if (!bp || !bp->fb) return 0;
  return pte_bp_BundledProgram_version(bp_root(bp));
}

size_t pte_bundled_num_suites(const pte_bundled_program *bp) {
  if (!bp || !bp->fb) return 0;
  pte_fb_vec v = pte_bp_BundledProgram_method_test_suites(bp_root(bp));
  return v.present ? v.len : 0;
}

static void fill_suite(const pte_bundled_program *bp, pte_fb_table st, pte_bundled_suite *out) {
  pte_fb_vec cases = pte_bp_BundledMethodTestSuite_test_cases(st);
  out->method_name = pte_bp_BundledMethodTestSuite_method_name(st).ptr;
  out->num_cases = cases.present ? cases.len : 0;
  out->bp = bp;
  out->pos = st.pos;
}

pte_status pte_bundled_get_suite(const pte_bundled_program *bp, size_t i, pte_bundled_suite *out) {
  if (!bp || !bp->fb || !out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec v = pte_bp_BundledProgram_method_test_suites(bp_root(bp));
  if (!v.present || i >= v.len) return PTE_ERR_INVALID_ARGUMENT;
  fill_suite(bp, pte_fb_vec_table(v, (uint32_t)i), out);
  return PTE_OK;
}

pte_status pte_bundled_find_suite(const pte_bundled_program *bp, const char *method_name, pte_bundled_suite *out) {
  if (!bp || !bp->fb || !out || !method_name) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec v = pte_bp_BundledProgram_method_test_suites(bp_root(bp));
  uint32_t i = pte_rt_find_key(v, pte_bp_BundledMethodTestSuite_method_name_SLOT, method_name);
  if (i == UINT32_MAX) return PTE_ERR_NOT_FOUND;
  fill_suite(bp, pte_fb_vec_table(v, i), out);
  return PTE_OK;
}

pte_status pte_bundled_get_case(const pte_bundled_suite *suite, size_t i, pte_bundled_case *out) {
  if (!suite || !suite->bp || !suite->bp->fb || !out) return PTE_ERR_INVALID_ARGUMENT;
  const pte_bundled_program *bp = suite->bp;
  pte_fb_table st = pte_fb_table_at(bp->fb, bp->fb_size, suite->pos);
  pte_fb_vec cases = pte_bp_BundledMethodTestSuite_test_cases(st);
  if (!cases.present || i >= cases.len) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_table tc = pte_fb_vec_table(cases, (uint32_t)i);
  pte_fb_vec in = pte_bp_BundledMethodTestCase_inputs(tc);
  pte_fb_vec ex = pte_bp_BundledMethodTestCase_expected_outputs(tc);
  out->num_inputs = in.present ? in.len : 0;
  out->num_expected_outputs = ex.present ? ex.len : 0;
  out->bp = bp;
  out->pos = tc.pos;
  return PTE_OK;
}

static pte_status case_value(const pte_bundled_case *tc, bool inputs, size_t i, pte_bundled_value *out) {
  if (!tc || !tc->bp || !tc->bp->fb || !out) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_table t = pte_fb_table_at(tc->bp->fb, tc->bp->fb_size, tc->pos);
  pte_fb_vec v = inputs ? pte_bp_BundledMethodTestCase_inputs(t) : pte_bp_BundledMethodTestCase_expected_outputs(t);
  if (!v.present || i >= v.len) return PTE_ERR_INVALID_ARGUMENT;
  return decode_value(pte_fb_vec_table(v, (uint32_t)i), out, NULL);
}

pte_status pte_bundled_case_input(const pte_bundled_case *tc, size_t i, pte_bundled_value *out) {
  return case_value(tc, true, i, out);
}

pte_status pte_bundled_case_expected_output(const pte_bundled_case *tc, size_t i, pte_bundled_value *out) {
  return case_value(tc, false, i, out);
}
