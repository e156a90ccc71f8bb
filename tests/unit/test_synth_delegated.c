#define _POSIX_C_SOURCE 200809L
/* `pte synth --delegate xnnpack` and `pte synth denoise` through the CLI binary ($PTE_CLI):
 *   - the delegated MLP stores every weight as named data under the sha256 hex of its bytes
 *     (16-aligned segments), the values are the documented generator's (in the delegate's
 *     [out, in] layout), and running it through the XNNPACK backend gives what a double-precision
 *     MLP computed here from the weights read back from the file gives; it matches the portable
 *     `pte synth mlp` with the same seed;
 *   - the delegated CNN matches the portable CNN;
 *   - denoise: one BackendDelegate (share_handle) called by 10 DelegateCalls, initialised once
 *     (counted by wrapping the backend's init), outputs bit-identical to the --no-share variant
 *     (10 delegates over one stored blob, 10 inits) and to a double reference;
 *   - `pte run --json` reports the delegate inits; bad option combinations are usage errors. */
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pte/backend_xnnpack.h"
#include "test_writer_util.h"
#include "llama_ref.h"

static const char *cli(void) { return getenv("PTE_CLI"); }

static int run_cli(const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", cli(), args);
  int code = -1;
  char *o = test_run_capture(cmd, &code);
  if (out) *out = o;
  else free(o);
  return code;
}

/* The generator of docs/writer.md (tests/support/llama_ref.c re-implements it from its
 * description) with the scale `pte synth` uses, 1/sqrt(fan_in). */
static float gen(uint64_t seed, uint32_t tensor_id, uint32_t fan_in, uint32_t i) {
  return llama_ref_weight(seed, tensor_id, 1.0f / sqrtf((float)fan_in), 0.0f, i);
}

/* ---- the XNNPACK backend, registered with its init() counted ---------------------------------- */
static struct {
  size_t inits, calls_seen;
  bool share_seen;
} g_cnt;
static pte_backend g_counting;

static pte_status counting_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed,
                                const pte_compile_spec *cs, size_t n, pte_delegate_handle **handle) {
  g_cnt.inits++;
  g_cnt.calls_seen += ctx->n_calls;
  g_cnt.share_seen = g_cnt.share_seen || ctx->share_handle;
  return pte_xnnpack_backend()->init(ctx, processed, cs, n, handle);
}

static void register_counting_xnnpack(void) {
  if (pte_get_backend(PTE_XNNPACK_BACKEND_ID) == &g_counting) return;
  g_counting = *pte_xnnpack_backend();
  g_counting.init = counting_init;
  pte_register_backend(PTE_XNNPACK_BACKEND_ID, &g_counting);
}

static void run_counted(const pte_program *p, tw_run *r) {
  register_counting_xnnpack();
  memset(&g_cnt, 0, sizeof g_cnt);
  tw_run_method(p, "forward", NULL, r);
}

/* ---- file helpers -------------------------------------------------------------------------- */
/* Loads in place: the program keeps pointers to its loader (and its named-data map to itself). */
static pte_status load_path(tw_prog *p, const char *path) {
  memset(p, 0, sizeof *p);
  size_t n = 0;
  uint8_t *b = test_read_file(path, &n);
  pte_status s = b ? tw_load_bytes(p, b, n) : PTE_ERR_ACCESS_FAILED;
  free(b);
  return s;
}

static pte_fb_table plan0(const pte_program *p) {
  return pte_fb_vec_table(pte_et_Program_execution_plan(tw_root(p)), 0);
}

/* Instructions of kind `type` in method 0. */
static size_t count_instr(const pte_program *p, uint8_t type) {
  pte_fb_vec chains = pte_et_ExecutionPlan_chains(plan0(p));
  size_t n = 0;
  for (uint32_t c = 0; c < chains.len; c++) {
    pte_fb_vec ins = pte_et_Chain_instructions(pte_fb_vec_table(chains, c));
    for (uint32_t i = 0; i < ins.len; i++) n += pte_et_Instruction_instr_args_type(pte_fb_vec_table(ins, i)) == type;
  }
  return n;
}

/* Named value i (insertion order) as floats (*n of them, NULL on failure); checks its key is the
 * sha256 hex of its bytes and its segment is 16-aligned. */
/* The named_data entry added i-th: the writer sorts Program.named_data by key but lays the
 * segments out in insertion order, so it is the entry with the i-th smallest segment index. */
static uint32_t named_inserted(const pte_program *p, uint32_t i) {
  pte_fb_vec nd = pte_et_Program_named_data(tw_root(p));
  for (uint32_t j = 0; nd.present && j < nd.len; j++) {
    uint32_t sj = pte_et_NamedData_segment_index(pte_fb_vec_table(nd, j)), rank = 0;
    for (uint32_t q = 0; q < nd.len; q++) rank += pte_et_NamedData_segment_index(pte_fb_vec_table(nd, q)) < sj;
    if (rank == i) return j;
  }
  return UINT32_MAX;
}

static void named_floats_into(const pte_program *p, uint32_t i, float **out, size_t *n) {
  const pte_named_data_map *m = pte_program_named_data_map(p);
  const char *key = NULL;
  *out = NULL;
  *n = 0;
  CHECK(m != NULL);
  if (!m) return;
  const uint32_t ki = named_inserted(p, i);
  CHECK_OK(pte_named_data_map_get_key(m, ki, &key));
  pte_freeable_buffer fb;
  CHECK_OK(pte_named_data_map_get_data(m, key, &fb));
  char hex[65];
  pte_sha256_hex(fb.data, fb.size, hex);
  CHECK_STR(key, hex);
  float *f = (float *)malloc(fb.size + 4);
  memcpy(f, fb.data, fb.size);
  *n = fb.size / 4;
  *out = f;
  pte_fb_table nd = pte_fb_vec_table(pte_et_Program_named_data(tw_root(p)), ki);
  uint64_t off = 1, size = 0;
  CHECK_OK(pte_program_segment(p, pte_et_NamedData_segment_index(nd), &off, &size));
  CHECK(off % 16 == 0);
  CHECK_EQ_INT(size, fb.size);
  pte_freeable_buffer_free(&fb);
}

static float *named_floats(const pte_program *p, uint32_t i, size_t *n) {
  float *f;
  named_floats_into(p, i, &f, n);
  return f;
}

static size_t num_named(const pte_program *p) {
  uint32_t n = 0;
  const pte_named_data_map *m = pte_program_named_data_map(p);
  if (m) pte_named_data_map_num_keys(m, &n);
  return n;
}

static double max_abs_diff(const tw_run *a, const tw_run *b) {
  if (a->nbytes[0] != b->nbytes[0] || !a->data[0] || !b->data[0]) return INFINITY;
  const float *x = (const float *)a->data[0], *y = (const float *)b->data[0];
  double m = 0;
  for (size_t i = 0; i < a->nbytes[0] / 4; i++) m = fmax(m, fabs((double)x[i] - (double)y[i]));
  return m;
}

/* The input tw_run_method feeds input 0 (tw_fill, seed 0), element k. */
static double input_elem(size_t k) { return (double)((long)((k * 7) % 11) - 5) * 0.25; }

/* y[b][o] = relu?(sum_k x[b][k] W[o][k] + B[o]) in double, W [out, in]. */
static void linear_ref(const double *x, size_t batch, size_t in, size_t out, const float *W, const float *B, bool relu,
                       double *y) {
  for (size_t b = 0; b < batch; b++)
    for (size_t o = 0; o < out; o++) {
      double acc = B[o];
      for (size_t k = 0; k < in; k++) acc += x[b * in + k] * (double)W[o * in + k];
      y[b * out + o] = relu && acc < 0 ? 0 : acc;
    }
}

/* ---- tests ------------------------------------------------------------------------------------ */
TEST(xnn_mlp_weights_and_output) {
  if (!cli()) return;
  const char *out = test_tmp_path("synth_xnn_mlp.pte"), *ref = test_tmp_path("synth_xnn_mlp_portable.pte");
  enum { L = 3, BATCH = 3 };
  const size_t w[L + 1] = {24, 40, 16, 7};
  char args[1024], *o = NULL;
  snprintf(args, sizeof args, "synth mlp --delegate xnnpack -o '%s' --widths 24,40,16,7 --batch 3 --seed 5 --no-fsync",
           out);
  int code = run_cli(args, &o);
  CHECK_MSG(code == 0, "exit %d: %s", code, o ? o : "");
  CHECK_CONTAINS(o, "XnnpackBackend: 1 delegate, 1 delegate call");
  CHECK_CONTAINS(o, "6 named tensors 7100 bytes"); /* (24*40 + 40 + 40*16 + 16 + 16*7 + 7) * 4 */
  free(o);
  tw_prog p;
  pte_status s = load_path(&p, out);
  CHECK_OK(s);
  if (s != PTE_OK) return;
  /* one method of one DelegateCall, no operators; input and output memory planned */
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(&p.prog, "forward", &meta, NULL));
  CHECK_EQ_INT(pte_method_meta_num_delegates(&meta), 1);
  CHECK_STR(pte_method_meta_delegate_id(&meta, 0), PTE_XNNPACK_BACKEND_ID);
  CHECK_EQ_INT(pte_method_meta_num_instructions(&meta), 1);
  CHECK_EQ_INT(count_instr(&p.prog, pte_et_InstructionArguments_DelegateCall), 1);
  CHECK_EQ_INT(pte_et_ExecutionPlan_operators(plan0(&p.prog)).len, 0);
  pte_tensor_info ti;
  CHECK_OK(pte_method_meta_input_tensor_info(&meta, 0, &ti));
  CHECK(ti.is_memory_planned);
  CHECK_EQ_INT(ti.sizes[0], BATCH);
  CHECK_EQ_INT(ti.sizes[1], 24);
  CHECK_OK(pte_method_meta_output_tensor_info(&meta, 0, &ti));
  CHECK(ti.is_memory_planned);
  CHECK_EQ_INT(ti.sizes[1], 7);
  /* the blob keeps no constants inline: they are the 6 named values (W0, b0, W1, b1, W2, b2) */
  pte_fb_table d = pte_fb_vec_table(pte_et_ExecutionPlan_delegates(plan0(&p.prog)), 0);
  CHECK(!pte_et_BackendDelegate_share_handle(d));
  size_t bsz = 0;
  uint8_t *blob = tw_delegate_blob(&p.prog, d, &bsz);
  pte_xnn_header h;
  CHECK(blob != NULL);
  if (blob) {
    CHECK_OK(pte_xnn_parse_header(blob, bsz, &h, NULL));
    CHECK(h.present);
    CHECK_EQ_INT(h.constant_data_size, 0);
  }
  free(blob);
  CHECK_EQ_INT(num_named(&p.prog), 2 * L);
  float *W[L] = {0}, *B[L] = {0};
  for (uint32_t l = 0; l < L; l++) {
    size_t nw = 0, nb = 0;
    W[l] = named_floats(&p.prog, 2 * l, &nw);
    B[l] = named_floats(&p.prog, 2 * l + 1, &nb);
    CHECK_EQ_INT(nw, w[l] * w[l + 1]);
    CHECK_EQ_INT(nb, w[l + 1]);
    if (nw != w[l] * w[l + 1] || nb != w[l + 1]) goto out;
    /* stored [out, in]; the generator numbers the portable [in, out] layout (tensor 2l), bias 2l+1 */
    size_t bad = 0;
    for (size_t oo = 0; oo < w[l + 1]; oo++) {
      for (size_t k = 0; k < w[l]; k++) {
        float want = gen(5, 2 * l, (uint32_t)w[l], (uint32_t)(k * w[l + 1] + oo));
        bad += memcmp(&W[l][oo * w[l] + k], &want, 4) != 0;
      }
      float want = gen(5, 2 * l + 1, (uint32_t)w[l], (uint32_t)oo);
      bad += memcmp(&B[l][oo], &want, 4) != 0;
    }
    CHECK_EQ_INT(bad, 0);
  }
  /* run through the XNNPACK backend and compare with a double-precision MLP */
  {
    tw_run r;
    run_counted(&p.prog, &r);
    CHECK_OK(r.load_status);
    CHECK_OK(r.exec_status);
    CHECK_EQ_INT(g_cnt.inits, 1);
    CHECK_EQ_INT(r.nbytes[0], BATCH * 7 * 4);
    double x[BATCH * 40], y[BATCH * 40];
    for (size_t k = 0; k < BATCH * w[0]; k++) x[k] = input_elem(k);
    for (size_t l = 0; l < L; l++) {
      linear_ref(x, BATCH, w[l], w[l + 1], W[l], B[l], l + 1 < L, y);
      memcpy(x, y, sizeof(double) * BATCH * w[l + 1]);
    }
    const float *got = r.data[0] ? (const float *)r.data[0] : NULL;
    double mag = 0;
    for (size_t i = 0; got && i < BATCH * 7; i++) {
      CHECK_NEAR(got[i], x[i], 1e-5);
      mag += fabs(x[i]);
    }
    CHECK(mag > 1e-2); /* not a trivial output */
    /* the portable model with the same seed computes the same function */
    snprintf(args, sizeof args, "synth mlp -o '%s' --widths 24,40,16,7 --batch 3 --seed 5 --no-fsync", ref);
    CHECK_EQ_INT(run_cli(args, NULL), 0);
    tw_prog q;
    s = load_path(&q, ref);
    CHECK_OK(s);
    tw_run rq;
    tw_run_method(&q.prog, "forward", NULL, &rq);
    CHECK_OK(rq.exec_status);
    CHECK(max_abs_diff(&r, &rq) < 1e-5);
    tw_run_free(&rq);
    tw_free(&q);
    tw_run_free(&r);
  }
  /* deterministic: same arguments, same bytes */
  snprintf(args, sizeof args, "synth mlp --delegate xnnpack -o '%s' --widths 24,40,16,7 --batch 3 --seed 5 --no-fsync",
           ref);
  CHECK_EQ_INT(run_cli(args, NULL), 0);
  {
    size_t n1 = 0, n2 = 0;
    uint8_t *a = test_read_file(out, &n1), *b = test_read_file(ref, &n2);
    CHECK(a && b && n1 == n2 && memcmp(a, b, n1) == 0);
    free(a);
    free(b);
  }
out:
  for (int l = 0; l < L; l++) {
    free(W[l]);
    free(B[l]);
  }
  tw_free(&p);
  unlink(out);
  unlink(ref);
}

TEST(xnn_cnn_matches_portable) {
  if (!cli()) return;
  const char *a = test_tmp_path("synth_xnn_cnn.pte"), *b = test_tmp_path("synth_cnn_portable.pte");
  char args[1024], *o = NULL;
  snprintf(args, sizeof args,
           "synth cnn --delegate xnnpack -o '%s' --channels 3,4,6 --image 8 --classes 5 --batch 2 --seed 9 --no-fsync", a);
  int code = run_cli(args, &o);
  CHECK_MSG(code == 0, "exit %d: %s", code, o ? o : "");
  CHECK_CONTAINS(o, "6 named tensors");
  free(o);
  snprintf(args, sizeof args, "synth cnn -o '%s' --channels 3,4,6 --image 8 --classes 5 --batch 2 --seed 9 --no-fsync", b);
  CHECK_EQ_INT(run_cli(args, NULL), 0);
  tw_prog pa, pb;
  pte_status s1 = load_path(&pa, a), s2 = load_path(&pb, b);
  CHECK_OK(s1);
  CHECK_OK(s2);
  if (s1 == PTE_OK && s2 == PTE_OK) {
    CHECK_EQ_INT(pte_et_ExecutionPlan_delegates(plan0(&pa.prog)).len, 1);
    CHECK_EQ_INT(pte_et_ExecutionPlan_operators(plan0(&pa.prog)).len, 0);
    /* conv weight 0 is stored OHWI [4, 3, 3, 3]: element (o, h, w, i) is generator element
     * ((o * 3 + i) * 3 + h) * 3 + w of tensor 0 (OIHW), fan_in 27 */
    size_t n = 0;
    float *w0 = named_floats(&pa.prog, 0, &n);
    CHECK_EQ_INT(n, 4 * 3 * 3 * 3);
    size_t bad = 0;
    for (uint32_t oc = 0; w0 && n == 108 && oc < 4; oc++)
      for (uint32_t y = 0; y < 3; y++)
        for (uint32_t x = 0; x < 3; x++)
          for (uint32_t i = 0; i < 3; i++) {
            float want = gen(9, 0, 27, ((oc * 3 + i) * 3 + y) * 3 + x);
            bad += memcmp(&w0[((oc * 3 + y) * 3 + x) * 3 + i], &want, 4) != 0;
          }
    CHECK_EQ_INT(bad, 0);
    free(w0);
    tw_run ra, rb;
    run_counted(&pa.prog, &ra);
    tw_run_method(&pb.prog, "forward", NULL, &rb);
    CHECK_OK(ra.load_status);
    CHECK_OK(ra.exec_status);
    CHECK_OK(rb.exec_status);
    CHECK_EQ_INT(ra.nbytes[0], 2 * 5 * 4);
    double diff = max_abs_diff(&ra, &rb);
    CHECK_MSG(diff < 1e-5, "delegated vs portable CNN differ by %g", diff);
    tw_run_free(&ra);
    tw_run_free(&rb);
  }
  tw_free(&pa);
  tw_free(&pb);
  unlink(a);
  unlink(b);
}

TEST(denoise_shares_one_delegate) {
  if (!cli()) return;
  enum { STEPS = 10, WD = 32 };
  const char *a = test_tmp_path("synth_denoise.pte"), *b = test_tmp_path("synth_denoise_noshare.pte");
  char args[1024], *o = NULL;
  snprintf(args, sizeof args, "synth denoise -o '%s' --steps 10 --width 32 --seed 3 --no-fsync", a);
  int code = run_cli(args, &o);
  CHECK_MSG(code == 0, "exit %d: %s", code, o ? o : "");
  CHECK_CONTAINS(o, "XnnpackBackend: 1 delegate, 10 delegate calls");
  free(o);
  snprintf(args, sizeof args, "synth denoise -o '%s' --steps 10 --width 32 --seed 3 --no-share --no-fsync", b);
  code = run_cli(args, &o);
  CHECK_MSG(code == 0, "exit %d: %s", code, o ? o : "");
  CHECK_CONTAINS(o, "XnnpackBackend: 10 delegates, 10 delegate calls");
  free(o);
  tw_prog pa, pb;
  pte_status s1 = load_path(&pa, a), s2 = load_path(&pb, b);
  CHECK_OK(s1);
  CHECK_OK(s2);
  if (s1 != PTE_OK || s2 != PTE_OK) goto out;
  {
    /* shared: 1 BackendDelegate (share_handle) and 10 DelegateCalls of it, 10 aten::sub.out */
    pte_fb_vec da = pte_et_ExecutionPlan_delegates(plan0(&pa.prog));
    CHECK_EQ_INT(da.len, 1);
    CHECK(pte_et_BackendDelegate_share_handle(pte_fb_vec_table(da, 0)));
    CHECK_EQ_INT(count_instr(&pa.prog, pte_et_InstructionArguments_DelegateCall), STEPS);
    CHECK_EQ_INT(count_instr(&pa.prog, pte_et_InstructionArguments_KernelCall), STEPS);
    /* not shared: 10 BackendDelegates, one per call, all over the same stored blob */
    pte_fb_vec db = pte_et_ExecutionPlan_delegates(plan0(&pb.prog));
    CHECK_EQ_INT(db.len, STEPS);
    CHECK_EQ_INT(count_instr(&pb.prog, pte_et_InstructionArguments_DelegateCall), STEPS);
    uint32_t seg0 = pte_et_BackendDelegateDataReference_index(pte_et_BackendDelegate_processed(pte_fb_vec_table(db, 0)));
    for (uint32_t i = 0; i < db.len; i++) {
      pte_fb_table di = pte_fb_vec_table(db, i);
      CHECK(!pte_et_BackendDelegate_share_handle(di));
      CHECK_EQ_INT(pte_et_BackendDelegateDataReference_location(pte_et_BackendDelegate_processed(di)),
                   pte_et_DataLocation_SEGMENT);
      CHECK_EQ_INT(pte_et_BackendDelegateDataReference_index(pte_et_BackendDelegate_processed(di)), seg0);
    }
    /* segments: constant segment + blob + 4 named values, in both */
    CHECK_EQ_INT(pte_program_num_segments(&pa.prog), 6);
    CHECK_EQ_INT(pte_program_num_segments(&pb.prog), 6);

    /* run: shared = one init seeing 10 call sites; not shared = 10 inits of one call each */
    tw_run ra, rb;
    run_counted(&pa.prog, &ra);
    CHECK_OK(ra.load_status);
    CHECK_OK(ra.exec_status);
    CHECK_EQ_INT(g_cnt.inits, 1);
    CHECK_EQ_INT(g_cnt.calls_seen, STEPS);
    CHECK(g_cnt.share_seen);
    run_counted(&pb.prog, &rb);
    CHECK_OK(rb.load_status);
    CHECK_OK(rb.exec_status);
    CHECK_EQ_INT(g_cnt.inits, STEPS);
    CHECK_EQ_INT(g_cnt.calls_seen, STEPS);
    CHECK(!g_cnt.share_seen);
    char why[256] = "";
    CHECK_MSG(tw_run_diff(&ra, &rb, why, sizeof why) == 0, "shared vs not shared: %s", why);
    CHECK_EQ_INT(ra.nbytes[0], WD * 4);
    /* reference: x <- x - (W1 relu(W0 x + b0) + b1), 10 times, in double */
    size_t n0 = 0, n1 = 0, n2 = 0, n3 = 0;
    float *W0 = named_floats(&pa.prog, 0, &n0), *B0 = named_floats(&pa.prog, 1, &n1);
    float *W1 = named_floats(&pa.prog, 2, &n2), *B1 = named_floats(&pa.prog, 3, &n3);
    CHECK(n0 == WD * WD && n1 == WD && n2 == WD * WD && n3 == WD);
    if (n0 == WD * WD && n1 == WD && n2 == WD * WD && n3 == WD && ra.data[0]) {
      double x[WD], h[WD], e[WD];
      for (size_t k = 0; k < WD; k++) x[k] = input_elem(k);
      for (int t = 0; t < STEPS; t++) {
        linear_ref(x, 1, WD, WD, W0, B0, true, h);
        linear_ref(h, 1, WD, WD, W1, B1, false, e);
        for (size_t k = 0; k < WD; k++) x[k] -= e[k];
      }
      const float *got = (const float *)ra.data[0];
      double mag = 0;
      for (size_t k = 0; k < WD; k++) {
        CHECK_NEAR(got[k], x[k], 1e-4);
        mag += fabs(x[k] - input_elem(k));
      }
      CHECK(mag > 1e-2); /* the steps changed x */
    }
    free(W0), free(B0), free(W1), free(B1);
    tw_run_free(&ra);
    tw_run_free(&rb);
  }
out:
  tw_free(&pa);
  tw_free(&pb);
  unlink(a);
  unlink(b);
}

/* `pte run --json` counts the backend init() calls of the loaded method. */
TEST(run_json_reports_delegate_inits) {
  if (!cli()) return;
  const char *a = test_tmp_path("synth_denoise_json.pte");
  char args[1024], *o = NULL;
  const char *variants[2] = {"", "--no-share"};
  const char *want[2] = {"\"delegate_inits\": 1,", "\"delegate_inits\": 4,"};
  for (int v = 0; v < 2; v++) {
    snprintf(args, sizeof args, "synth denoise -o '%s' --steps 4 --width 16 %s --no-fsync", a, variants[v]);
    CHECK_EQ_INT(run_cli(args, NULL), 0);
    snprintf(args, sizeof args, "run '%s' --json", a);
    int code = run_cli(args, &o);
    CHECK_MSG(code == 0, "exit %d: %s", code, o ? o : "");
    CHECK_CONTAINS(o, want[v]);
    free(o);
  }
  unlink(a);
}

TEST(bad_arguments) {
  if (!cli()) return;
  const char *a = test_tmp_path("synth_bad.pte");
  unlink(a);
  char args[512];
  const char *bad[] = {"synth denoise -o '%s' --delegate none", "synth mlp -o '%s' --steps 3",
                       "synth mlp -o '%s' --no-share", "synth mlp -o '%s' --delegate tpu",
                       "synth denoise -o '%s' --steps 0", "synth denoise -o '%s' --width 0"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(args, sizeof args, bad[i], a);
    CHECK_MSG(run_cli(args, NULL) == 2, "%s: not a usage error", bad[i]);
    struct stat st;
    CHECK(stat(a, &st) != 0);
  }
}

/* The builder hook the delegated models use: a constant known only by its named-data key. */
TEST(builder_named_key) {
  pte_xnn_builder *b = pte_xnn_builder_new();
  CHECK(b != NULL);
  uint32_t dims[2] = {2, 3}, id;
  float data[6] = {0};
  pte_xnn_tensor_desc t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_XNN_DT_FP32;
  t.rank = 2;
  t.dims = dims;
  t.nbytes = 24;
  t.named_key = "k1";
  CHECK_OK(pte_xnn_builder_add_tensor(b, &t, &id));
  CHECK_EQ_INT(id, 0);
  t.nbytes = 20; /* != numel * 4 */
  CHECK_STATUS(pte_xnn_builder_add_tensor(b, &t, &id), PTE_ERR_INVALID_ARGUMENT);
  t.nbytes = 24;
  t.data = data; /* data and key */
  CHECK_STATUS(pte_xnn_builder_add_tensor(b, &t, &id), PTE_ERR_INVALID_ARGUMENT);
  t.data = NULL;
  t.named_key = "";
  CHECK_STATUS(pte_xnn_builder_add_tensor(b, &t, &id), PTE_ERR_INVALID_ARGUMENT);
  char long_key[66];
  memset(long_key, 'a', 65);
  long_key[65] = 0;
  t.named_key = long_key;
  CHECK_STATUS(pte_xnn_builder_add_tensor(b, &t, &id), PTE_ERR_INVALID_ARGUMENT);
  t.named_key = "k1";
  t.flags = PTE_XNN_VALUE_EXTERNAL_INPUT;
  CHECK_STATUS(pte_xnn_builder_add_tensor(b, &t, &id), PTE_ERR_INVALID_ARGUMENT);
  /* NAMED mode: the entry carries the key and size, nothing is returned to store */
  pte_xnn_blob blob;
  pte_error_info err;
  CHECK_OK(pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_NAMED, &blob, &err));
  CHECK_EQ_INT(blob.n_named, 0);
  CHECK(blob.size > 32);
  bool found = false;
  for (size_t i = 0; i + 2 <= blob.size && !found; i++) found = memcmp(blob.data + i, "k1", 2) == 0;
  CHECK(found);
  pte_xnn_blob_free(&blob);
  /* INLINE mode has nowhere to take the bytes from */
  CHECK_STATUS(pte_xnn_builder_finish(b, PTE_XNN_CONSTANTS_INLINE, &blob, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "NAMED mode only");
  pte_xnn_builder_free(b);
}

int main(void) {
  RUN(builder_named_key);
  RUN(xnn_mlp_weights_and_output);
  RUN(xnn_cnn_matches_portable);
  RUN(denoise_shares_one_delegate);
  RUN(run_json_reports_delegate_inits);
  RUN(bad_arguments);
  return test_summary();
}
