#define _POSIX_C_SOURCE 200809L
/* Bundled programs (.bpte): the embedded program through a window loader, and the test cases. */
#include "format/flatbuf.h"
#include "pte/bundled.h"
#include "pte/io.h"
#include "pte/program.h"
#include "pte/tensor.h"
#include "pte_gen/bundled_program_gen.h"
#include "test.h"

#define BPTE "module_test_bundled_program.bpte"

/* Checks the embedded program (MANIFEST: 24-byte eh00, program_size 1584, base 1664, constant
 * segment offsets [0, 0, 16] in a 32-byte segment, forward(x, q) = 3 * x + 2 + q). */
static void check_inner_program(const pte_bundled_program *bp, pte_verification lv, const uint8_t *file) {
  pte_program p;
  pte_error_info err = {0};
  pte_status s = pte_program_load(pte_bundled_program_loader(bp), lv, &p, &err);
  CHECK_MSG(s == PTE_OK, "inner program: %s", err.msg);
  const pte_program_header *h = pte_program_get_header(&p);
  CHECK(h->present);
  CHECK_EQ_INT(h->header_length, 24);
  CHECK_EQ_INT(h->program_size, 1584);
  CHECK_EQ_INT(h->segment_base_offset, 1664);
  CHECK_EQ_INT(h->segment_data_size, 0);
  CHECK_EQ_INT(pte_program_num_methods(&p), 1);
  CHECK_STR(pte_program_method_name(&p, 0), "forward");
  CHECK_EQ_INT(pte_program_constant_storage(&p), PTE_CONSTANTS_SEGMENT);
  size_t fbs;
  const uint8_t *fb = pte_program_flatbuffer(&p, &fbs);
  CHECK_EQ_INT(fbs, 1584);
  if (file) CHECK(fb == file + 64); /* buffer loader: no copy */
  CHECK((uintptr_t)fb % 16 == 0);
  const void *c1, *c2;
  CHECK_OK(pte_program_constant_data(&p, 1, 4, &c1));
  CHECK_OK(pte_program_constant_data(&p, 2, 4, &c2));
  int32_t a, b;
  memcpy(&a, c1, 4);
  memcpy(&b, c2, 4);
  CHECK_EQ_INT(a, 3);
  CHECK_EQ_INT(b, 2);
  pte_program_destroy(&p);
}

static void check_int_tensor(const pte_bundled_value *v, const void *want16) {
  CHECK_EQ_INT(v->kind, PTE_BUNDLED_TENSOR);
  CHECK_EQ_INT(v->tensor.dtype, PTE_DTYPE_INT);
  CHECK_EQ_INT(v->tensor.dim, 2);
  CHECK_EQ_INT(v->tensor.sizes[0], 2);
  CHECK_EQ_INT(v->tensor.sizes[1], 2);
  CHECK(v->tensor.dim_order != NULL);
  CHECK_EQ_INT(v->tensor.dim_order[0], 0);
  CHECK_EQ_INT(v->tensor.dim_order[1], 1);
  CHECK_EQ_INT(v->tensor.nbytes, 16);
  CHECK((uintptr_t)v->tensor.data % 16 == 0);
  CHECK(memcmp(v->tensor.data, want16, 16) == 0);
}

static void check_cases(const pte_bundled_program *bp) {
  size_t n0, n1, n2;
  uint8_t *in0 = test_read_file(test_corpus_path("io/bundled_program.forward.case0.input0.int32.bin"), &n0);
  uint8_t *in1 = test_read_file(test_corpus_path("io/bundled_program.forward.case0.input1.int32.bin"), &n1);
  uint8_t *ex0 = test_read_file(test_corpus_path("io/bundled_program.forward.case0.expected_output0.int32.bin"), &n2);
  CHECK(in0 && in1 && ex0 && n0 == 16 && n1 == 16 && n2 == 16);
  static const int32_t zeros[4] = {0, 0, 0, 0}, twos[4] = {2, 2, 2, 2};
  CHECK(memcmp(in0, zeros, 16) == 0 && memcmp(in1, zeros, 16) == 0 && memcmp(ex0, twos, 16) == 0);

  CHECK_EQ_INT(pte_bundled_num_suites(bp), 1);
  pte_bundled_suite s, s2;
  CHECK_OK(pte_bundled_get_suite(bp, 0, &s));
  CHECK_STR(s.method_name, "forward");
  CHECK_EQ_INT(s.num_cases, 10);
  CHECK_OK(pte_bundled_find_suite(bp, "forward", &s2));
  CHECK_EQ_INT(s2.num_cases, 10);
  CHECK_STATUS(pte_bundled_find_suite(bp, "backward", &s2), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(pte_bundled_get_suite(bp, 1, &s2), PTE_ERR_INVALID_ARGUMENT);
  for (size_t c = 0; c < s.num_cases; c++) {
    pte_bundled_case tc;
    CHECK_OK(pte_bundled_get_case(&s, c, &tc));
    CHECK_EQ_INT(tc.num_inputs, 2);
    CHECK_EQ_INT(tc.num_expected_outputs, 1);
    pte_bundled_value v;
    CHECK_OK(pte_bundled_case_input(&tc, 0, &v));
    check_int_tensor(&v, in0);
    CHECK_OK(pte_bundled_case_input(&tc, 1, &v));
    check_int_tensor(&v, in1);
    CHECK_OK(pte_bundled_case_expected_output(&tc, 0, &v));
    check_int_tensor(&v, ex0);
    CHECK_STATUS(pte_bundled_case_input(&tc, 2, &v), PTE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(pte_bundled_case_expected_output(&tc, 1, &v), PTE_ERR_INVALID_ARGUMENT);
  }
  pte_bundled_case tc;
  CHECK_STATUS(pte_bundled_get_case(&s, 10, &tc), PTE_ERR_INVALID_ARGUMENT);
  free(in0);
  free(in1);
  free(ex0);
}

TEST(bundled_with_buffer_loader) {
  size_t n;
  uint8_t *d = test_read_corpus(BPTE, &n);
  CHECK(d);
  CHECK_EQ_INT(n, 4608);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_bundled_program bp;
  pte_error_info err = {0};
  CHECK_MSG(pte_bundled_program_load(&bl.base, &bp, &err) == PTE_OK, "%s", err.msg);
  CHECK_EQ_INT(pte_bundled_program_version(&bp), 2);
  uint64_t off, size;
  pte_bundled_program_location(&bp, &off, &size);
  CHECK_EQ_INT(off, 64);
  CHECK_EQ_INT(size, 1696);
  uint64_t wsize = 0;
  CHECK_OK(pte_data_loader_size(pte_bundled_program_loader(&bp), &wsize));
  CHECK_EQ_INT(wsize, 1696);
  check_inner_program(&bp, PTE_VERIFY_MINIMAL, d);
  check_inner_program(&bp, PTE_VERIFY_INTERNAL_CONSISTENCY, d);
  check_cases(&bp);
  pte_bundled_program_destroy(&bp);
  CHECK(pte_bundled_program_loader(&bp) == NULL);
  CHECK_EQ_INT(pte_bundled_num_suites(&bp), 0);
  free(d);
}

TEST(bundled_with_file_and_mmap_loaders) {
  pte_error_info err = {0};
  pte_file_loader fl;
  CHECK_OK(pte_file_loader_open(&fl, test_corpus_path(BPTE), 0, &err));
  pte_bundled_program bp;
  CHECK_MSG(pte_bundled_program_load(&fl.base, &bp, &err) == PTE_OK, "%s", err.msg);
  check_inner_program(&bp, PTE_VERIFY_INTERNAL_CONSISTENCY, NULL);
  check_cases(&bp);
  pte_bundled_program_destroy(&bp);
  pte_file_loader_close(&fl);
  for (unsigned mode = 0; mode < 2; mode++) {
    pte_mmap_loader ml;
    CHECK_OK(pte_mmap_loader_open_ex(&ml, test_corpus_path(BPTE), PTE_MLOCK_NONE, mode, &err));
    CHECK_MSG(pte_bundled_program_load(&ml.base, &bp, &err) == PTE_OK, "%s", err.msg);
    check_inner_program(&bp, PTE_VERIFY_INTERNAL_CONSISTENCY, NULL);
    check_cases(&bp);
    pte_bundled_program_destroy(&bp);
    pte_mmap_loader_close(&ml);
  }
}

TEST(bundled_rejects_other_files) {
  size_t n;
  uint8_t *d = test_read_corpus("arduino_AddModel.pte", &n);
  CHECK(d);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_bundled_program bp;
  pte_error_info err = {0};
  CHECK_STATUS(pte_bundled_program_load(&bl.base, &bp, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "identifier 'ET12' != expected 'BP08'");
  CHECK(pte_bundled_program_loader(&bp) == NULL);
  CHECK_STATUS(pte_bundled_program_load(NULL, &bp, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_bundled_program_load(&bl.base, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  pte_buffer_loader_init(&bl, d, 7);
  CHECK_STATUS(pte_bundled_program_load(&bl.base, &bp, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "too small");
  free(d);
  /* And a .bpte is not a program. */
  d = test_read_corpus(BPTE, &n);
  CHECK(d);
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  CHECK_STATUS(pte_program_load(&bl.base, PTE_VERIFY_MINIMAL, &p, &err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(err.msg, "identifier 'BP08' != expected 'ET12'");
  free(d);
}

/* A hand-built bundle: two suites, scalar values of every kind and a tensor without dim_order,
 * wrapping arduino_AddModel.pte. */
static pte_fb_ref bp_value(pte_fb_builder *b, int kind) {
  pte_fb_ref v = 0;
  if (kind == PTE_BUNDLED_INT) {
    pte_bp_Int_start(b);
    pte_bp_Int_add_int_val(b, -1234567890123LL);
    v = pte_bp_Int_end(b);
  } else if (kind == PTE_BUNDLED_BOOL) {
    pte_bp_Bool_start(b);
    pte_bp_Bool_add_bool_val(b, true);
    v = pte_bp_Bool_end(b);
  } else if (kind == PTE_BUNDLED_DOUBLE) {
    pte_bp_Double_start(b);
    pte_bp_Double_add_double_val(b, 2.5);
    v = pte_bp_Double_end(b);
  } else {
    static const float data[3] = {1, 2, 3};
    static const int32_t sizes[1] = {3};
    pte_fb_ref sz = pte_bp_Tensor_create_sizes(b, sizes, 1);
    pte_fb_ref dt = pte_bp_Tensor_create_data(b, (const uint8_t *)data, sizeof data);
    pte_bp_Tensor_start(b);
    pte_bp_Tensor_add_scalar_type(b, PTE_DTYPE_FLOAT);
    pte_bp_Tensor_add_sizes(b, sz);
    pte_bp_Tensor_add_data(b, dt);
    v = pte_bp_Tensor_end(b);
  }
  pte_bp_Value_start(b);
  pte_bp_Value_add_val_type(b, (uint8_t)kind);
  pte_bp_Value_add_val(b, v);
  return pte_bp_Value_end(b);
}

TEST(built_bundle_scalar_values) {
  size_t pn;
  uint8_t *prog = test_read_corpus("arduino_AddModel.pte", &pn);
  CHECK(prog);
  pte_fb_builder b;
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
  pte_fb_ref ins[4];
  for (int k = 0; k < 4; k++) ins[k] = bp_value(&b, k + 1);
  pte_fb_ref inv = pte_bp_BundledMethodTestCase_create_inputs(&b, ins, 4);
  pte_fb_ref outv = pte_bp_BundledMethodTestCase_create_expected_outputs(&b, ins, 0);
  pte_bp_BundledMethodTestCase_start(&b);
  pte_bp_BundledMethodTestCase_add_inputs(&b, inv);
  pte_bp_BundledMethodTestCase_add_expected_outputs(&b, outv);
  pte_fb_ref tc = pte_bp_BundledMethodTestCase_end(&b);
  pte_fb_ref suites[2];
  static const char *const names[2] = {"forward", "other"};
  for (int k = 0; k < 2; k++) {
    pte_fb_ref nm = pte_fb_create_string(&b, names[k], strlen(names[k]));
    pte_fb_ref cases = pte_bp_BundledMethodTestSuite_create_test_cases(&b, &tc, (size_t)(k == 0));
    pte_bp_BundledMethodTestSuite_start(&b);
    pte_bp_BundledMethodTestSuite_add_method_name(&b, nm);
    pte_bp_BundledMethodTestSuite_add_test_cases(&b, cases);
    suites[k] = pte_bp_BundledMethodTestSuite_end(&b);
  }
  pte_fb_ref sv = pte_bp_BundledProgram_create_method_test_suites(&b, suites, 2);
  pte_fb_ref pv = pte_bp_BundledProgram_create_program(&b, prog, pn);
  pte_bp_BundledProgram_start(&b);
  pte_bp_BundledProgram_add_version(&b, 2);
  pte_bp_BundledProgram_add_method_test_suites(&b, sv);
  pte_bp_BundledProgram_add_program(&b, pv);
  pte_fb_ref root = pte_bp_BundledProgram_end(&b);
  const uint8_t *fb;
  size_t n;
  CHECK_OK(pte_bp_finish(&b, root, &fb, &n));
  uint8_t *d = NULL;
  CHECK(posix_memalign((void **)&d, 64, n) == 0);
  memcpy(d, fb, n);
  pte_fb_builder_free(&b);

  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_bundled_program bp;
  pte_error_info err = {0};
  CHECK_MSG(pte_bundled_program_load(&bl.base, &bp, &err) == PTE_OK, "%s", err.msg);
  uint64_t off, size;
  pte_bundled_program_location(&bp, &off, &size);
  CHECK_EQ_INT(size, pn);
  CHECK_EQ_INT(off % 32, 0);
  CHECK(memcmp(d + off, prog, pn) == 0);
  pte_program p;
  CHECK_OK(pte_program_load(pte_bundled_program_loader(&bp), PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  const void *c;
  CHECK_OK(pte_program_constant_data(&p, 1, 4, &c)); /* the segment is reached through the window */
  float one;
  memcpy(&one, c, 4);
  CHECK_NEAR(one, 1.0, 0);
  pte_program_destroy(&p);

  CHECK_EQ_INT(pte_bundled_num_suites(&bp), 2);
  pte_bundled_suite s;
  CHECK_OK(pte_bundled_find_suite(&bp, "other", &s));
  CHECK_EQ_INT(s.num_cases, 0);
  CHECK_OK(pte_bundled_find_suite(&bp, "forward", &s));
  CHECK_EQ_INT(s.num_cases, 1);
  pte_bundled_case t;
  CHECK_OK(pte_bundled_get_case(&s, 0, &t));
  CHECK_EQ_INT(t.num_inputs, 4);
  CHECK_EQ_INT(t.num_expected_outputs, 0);
  pte_bundled_value v;
  CHECK_OK(pte_bundled_case_input(&t, 0, &v));
  CHECK_EQ_INT(v.kind, PTE_BUNDLED_TENSOR);
  CHECK_EQ_INT(v.tensor.dtype, PTE_DTYPE_FLOAT);
  CHECK_EQ_INT(v.tensor.dim, 1);
  CHECK_EQ_INT(v.tensor.sizes[0], 3);
  CHECK(v.tensor.dim_order == NULL);
  CHECK_EQ_INT(v.tensor.nbytes, 12);
  float f[3];
  memcpy(f, v.tensor.data, 12);
  CHECK_NEAR(f[2], 3.0, 0);
  CHECK_OK(pte_bundled_case_input(&t, 1, &v));
  CHECK_EQ_INT(v.kind, PTE_BUNDLED_INT);
  CHECK(v.int_val == -1234567890123LL);
  CHECK_OK(pte_bundled_case_input(&t, 2, &v));
  CHECK_EQ_INT(v.kind, PTE_BUNDLED_BOOL);
  CHECK(v.bool_val);
  CHECK_OK(pte_bundled_case_input(&t, 3, &v));
  CHECK_EQ_INT(v.kind, PTE_BUNDLED_DOUBLE);
  CHECK_NEAR(v.double_val, 2.5, 0);
  CHECK_STATUS(pte_bundled_case_expected_output(&t, 0, &v), PTE_ERR_INVALID_ARGUMENT);
  pte_bundled_program_destroy(&bp);
  free(d);
  free(prog);
}

int main(void) {
  RUN(bundled_with_buffer_loader);
  RUN(bundled_with_file_and_mmap_loaders);
  RUN(bundled_rejects_other_files);
  RUN(built_bundle_scalar_values);
  return test_summary();
}
