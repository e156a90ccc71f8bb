/* pte synth mlp|cnn|large|denoise -o OUT ... — generate benchmark/demo models with real structure.
 *
 * Weights come from a deterministic generator (docs/writer.md, "pte synth"): element i of tensor t
 * with seed s is a 32-bit integer hash of (i, s, t) mapped to a float in [-scale, scale), scale =
 * 1/sqrt(fan_in). The generator is a pte_source callback, so a model of any size is streamed to
 * disk without ever being in memory.
 *
 * --delegate xnnpack lowers the whole model into one XNNPACK delegate, as the exporter does: the
 * blob holds the graph, the weights are Program.named_data entries keyed by the sha256 hex of
 * their bytes (alignment 16, one segment each). A weight is streamed from the generator twice
 * (once through sha256 for its key, once to disk), through one bounded buffer. The delegated
 * models compute the same function as the portable ones with the same seed: the generator
 * numbers elements in the portable layout and the delegate's layouts are permutations of it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jsonw.h"
#include "progress.h"
#include "synth.h"
#include "pte/backend_xnnpack.h"
#include "pte/data_writer.h"
#include "pte/tensor.h"
#include "pte/writer.h"

static double secs_since(const struct timespec *a) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - a->tv_sec) + (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

/* ------------------------------------------------------------------ model building helpers */

static int fail_status(pte_status s, const pte_error_info *err) {
  fprintf(stderr, "pte synth: %s: %s\n", pte_status_name(s), err->msg);
  return PTE_EXIT_FAIL;
}

/* An activation / input tensor planned by the memory planner. */
pte_status synth_act(synth *S, const int32_t *sizes, size_t dim, int32_t *v) {
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.sizes = sizes;
  t.dim = dim;
  t.plan = PTE_WR_PLAN_AUTO;
  return pte_writer_add_tensor(S->w, S->m, &t, v, &S->err);
}

/* A float constant filled by the generator. */
static pte_status weight(synth *S, const int32_t *sizes, size_t dim, uint32_t fan_in, int32_t *v) {
  /* callback contexts must stay put until the write: the array is reserved up front */
  if (S->n_gens == S->cap_gens) return pte_error_set(&S->err, PTE_ERR_INTERNAL, "too many generated tensors");
  pte_cli_gen *g = &S->gens[S->n_gens++];
  g->seed32 = pte_cli_gen_seed32(S->seed, S->next_tensor_id++);
  g->scale = 1.0f / sqrtf((float)(fan_in ? fan_in : 1));
  uint64_t numel = 1;
  for (size_t i = 0; i < dim; i++) numel *= (uint64_t)sizes[i];
  pte_source src = pte_source_callback(pte_cli_gen_read, g, numel * 4);
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.sizes = sizes;
  t.dim = dim;
  return pte_writer_add_constant_tensor(S->w, S->m, &t, &src, v, &S->err);
}

pte_status synth_int_value(synth *S, int64_t x, int32_t *v) { return pte_writer_add_int(S->w, S->m, x, v, &S->err); }

/* out = relu?(x @ W + b) with W [in, out] (pre-transposed) via aten::addmm.out. */
static pte_status linear(synth *S, int32_t x, int32_t batch, int32_t in, int32_t out, bool relu, int32_t *y) {
  int32_t wsz[2] = {in, out}, bsz[1] = {out}, osz[2] = {batch, out};
  int32_t W, B, one, o;
  pte_status s = weight(S, wsz, 2, (uint32_t)in, &W);
  if (s == PTE_OK) s = weight(S, bsz, 1, (uint32_t)in, &B);
  if (s == PTE_OK) s = synth_int_value(S, 1, &one);
  if (s == PTE_OK) s = synth_act(S, osz, 2, &o);
  if (s != PTE_OK) return s;
  int32_t args[7] = {B, x, W, one, one, o, o};
  s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_addmm, args, 7, NULL, &S->err);
  if (s != PTE_OK || !relu) {
    *y = o;
    return s;
  }
  int32_t r;
  s = synth_act(S, osz, 2, &r);
  if (s != PTE_OK) return s;
  int32_t rargs[3] = {o, r, r};
  s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_relu, rargs, 3, NULL, &S->err);
  *y = r;
  return s;
}

static pte_status begin(synth *S, const pte_writer_options *wo, bool portable_ops) {
  pte_status s = pte_writer_create(wo, &S->w, &S->err);
  if (s == PTE_OK) s = pte_writer_add_method(S->w, "forward", &S->m, &S->err);
  if (s == PTE_OK) s = pte_writer_add_chain(S->w, S->m, NULL, 0, NULL, 0, &S->chain, &S->err);
  if (!portable_ops) return s;
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::addmm", "out", &S->op_addmm, &S->err);
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::relu", "out", &S->op_relu, &S->err);
  return s;
}

static pte_status build_mlp(synth *S, const int32_t *widths, size_t n, int32_t batch) {
  int32_t isz[2] = {batch, widths[0]};
  int32_t x;
  pte_status s = synth_act(S, isz, 2, &x);
  if (s != PTE_OK) return s;
  int32_t in = x;
  for (size_t i = 0; i + 1 < n && s == PTE_OK; i++) s = linear(S, x, batch, widths[i], widths[i + 1], i + 2 < n, &x);
  if (s == PTE_OK) s = pte_writer_set_inputs(S->w, S->m, &in, 1, &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, S->m, &x, 1, &S->err);
  return s;
}

static pte_status build_cnn(synth *S, const int32_t *ch, size_t n, int32_t image, int32_t classes, int32_t batch) {
  pte_status s = pte_writer_add_operator(S->w, S->m, "aten::convolution", "out", &S->op_conv, &S->err);
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::max_pool2d_with_indices", "out", &S->op_pool, &S->err);
  if (s == PTE_OK) s = pte_writer_add_operator(S->w, S->m, "aten::view_copy", "out", &S->op_view, &S->err);
  int32_t isz[4] = {batch, ch[0], image, image};
  int32_t x = -1, in;
  if (s == PTE_OK) s = synth_act(S, isz, 4, &x);
  in = x;
  int32_t hw = image;
  int64_t one1[2] = {1, 1}, zero2[2] = {0, 0}, two2[2] = {2, 2};
  int32_t l_stride, l_pad, l_dil, l_opad, l_k2, l_s2, l_p0, l_d1, f, groups;
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, one1, 2, &l_stride, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, one1, 2, &l_pad, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, one1, 2, &l_dil, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, zero2, 2, &l_opad, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, two2, 2, &l_k2, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, two2, 2, &l_s2, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, zero2, 2, &l_p0, &S->err);
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, one1, 2, &l_d1, &S->err);
  if (s == PTE_OK) s = pte_writer_add_bool(S->w, S->m, false, &f, &S->err);
  if (s == PTE_OK) s = synth_int_value(S, 1, &groups);
  for (size_t i = 0; i + 1 < n && s == PTE_OK; i++) {
    int32_t cin = ch[i], cout = ch[i + 1];
    int32_t wsz[4] = {cout, cin, 3, 3}, bsz[1] = {cout}, csz[4] = {batch, cout, hw, hw};
    int32_t W, B, c, r;
    s = weight(S, wsz, 4, (uint32_t)(cin * 9), &W);
    if (s == PTE_OK) s = weight(S, bsz, 1, (uint32_t)(cin * 9), &B);
    if (s == PTE_OK) s = synth_act(S, csz, 4, &c);
    if (s == PTE_OK) s = synth_act(S, csz, 4, &r);
    if (s != PTE_OK) break;
    int32_t cargs[11] = {x, W, B, l_stride, l_pad, l_dil, f, l_opad, groups, c, c};
    s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_conv, cargs, 11, NULL, &S->err);
    int32_t rargs[3] = {c, r, r};
    if (s == PTE_OK) s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_relu, rargs, 3, NULL, &S->err);
    hw /= 2;
    int32_t psz[4] = {batch, cout, hw, hw};
    int32_t p = -1, idx = -1;
    if (s == PTE_OK) s = synth_act(S, psz, 4, &p);
    if (s == PTE_OK) {
      pte_wr_tensor t;
      memset(&t, 0, sizeof t);
      t.dtype = PTE_DTYPE_LONG;
      t.sizes = psz;
      t.dim = 4;
      t.plan = PTE_WR_PLAN_AUTO;
      s = pte_writer_add_tensor(S->w, S->m, &t, &idx, &S->err);
    }
    int32_t pargs[10] = {r, l_k2, l_s2, l_p0, l_d1, f, p, idx, p, idx};
    if (s == PTE_OK) s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_pool, pargs, 10, NULL, &S->err);
    x = p;
  }
  int32_t flat = ch[n - 1] * hw * hw;
  int64_t fsz[2] = {batch, flat};
  int32_t l_fsz = -1, v = -1, y;
  int32_t vsz[2] = {batch, flat};
  if (s == PTE_OK) s = pte_writer_add_int_list_literal(S->w, S->m, fsz, 2, &l_fsz, &S->err);
  if (s == PTE_OK) s = synth_act(S, vsz, 2, &v);
  int32_t vargs[4] = {x, l_fsz, v, v};
  if (s == PTE_OK) s = pte_writer_add_kernel_call(S->w, S->m, S->chain, S->op_view, vargs, 4, NULL, &S->err);
  if (s == PTE_OK) s = linear(S, v, batch, flat, classes, false, &y);
  if (s == PTE_OK) s = pte_writer_set_inputs(S->w, S->m, &in, 1, &S->err);
  if (s == PTE_OK) s = pte_writer_set_outputs(S->w, S->m, &y, 1, &S->err);
  return s;
}

/* ------------------------------------------------------------------ command line */
static void help(FILE *f) {
  fprintf(f,
          "usage: pte synth mlp     -o OUT [--widths 784,256,128,10] [--batch N] [--delegate xnnpack] [options]\n"
          "       pte synth cnn     -o OUT [--channels 3,16,32] [--image 32] [--classes 10] [--batch N]\n"
          "                              [--delegate xnnpack] [options]\n"
          "       pte synth large   -o OUT --size 4G [--layers 4] [--delegate xnnpack] [options]\n"
          "       pte synth denoise -o OUT [--steps 10] [--width 256] [--batch N] [--no-share] [options]\n"
          "       pte synth llama   -o OUT --dim D --layers L --heads H --kv-heads K --vocab V --seq S ...\n"
          "                              (pte synth llama --help)\n"
          "\n"
          "Generates a .pte with real structure and deterministic weights (streamed from a generator,\n"
          "never held in memory):\n"
          "  mlp      Linear layers (aten::addmm.out) with ReLU between them; input [batch, widths[0]].\n"
          "  cnn      3x3 convolutions (padding 1) + ReLU + 2x2 max pooling per stage, then a Linear\n"
          "           classifier; input [batch, channels[0], image, image].\n"
          "  large    an MLP of --layers square layers whose float weights add up to about --size bytes\n"
          "           (suffixes K, M, G; e.g. 4G): a multi-GiB model for streaming benchmarks.\n"
          "  denoise  x <- x - block(x), --steps times, where block (Linear + ReLU + Linear, width\n"
          "           --width) is ONE lowered XNNPACK module called at every step (a DelegateCall per\n"
          "           step, aten::sub.out between them). The module is marked share_handle: the file\n"
          "           has one BackendDelegate (one backend init) for all the calls. --no-share writes\n"
          "           one BackendDelegate per call instead, all referencing the one stored blob.\n"
          "Activations are memory planned by the writer's planner (alignment 16).\n"
          "\n"
          "--delegate xnnpack lowers the whole model into one XnnpackBackend delegate as the exporter\n"
          "does (FullyConnected / Conv2d nodes with ReLU fused as an output clamp, NHWC inside for the\n"
          "cnn; weights in Program.named_data under the sha256 hex of their bytes, alignment 16). The\n"
          "delegated model computes the same function as the portable one with the same seed.\n"
          "\n"
          "options:\n"
          "  -o, --output FILE          output .pte (written to a temp file, then renamed)\n"
          "  --seed N                   generator seed (default 0)\n"
          "  --delegate none|xnnpack    mlp, cnn, large: portable kernels (default) or one XNNPACK delegate\n"
          "  --steps N                  denoise: steps (DelegateCalls), 1..10000 (default 10)\n"
          "  --width N                  denoise: width of the block (default 256)\n"
          "  --no-share                 denoise: one BackendDelegate per call\n"
          "  --segment-alignment N      segment alignment (default 128; e.g. 16384)\n"
          "  --tensor-alignment N       constant alignment (default 16)\n"
          "  --no-fsync                 skip fsync on publish\n"
          "  -q, --quiet                no progress bar (shown only on a terminal anyway)\n"
          "  --json                     print one JSON object describing the written file\n"
          "  -h, --help                 this help\n");
}

static bool parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s) return false;
  char *end = NULL;
  errno = 0;
  double d = strtod(s, &end);
  if (errno || end == s || d < 0) return false;
  double mul = 1;
  if (*end == 'K' || *end == 'k') mul = 1024.0, end++;
  else if (*end == 'M' || *end == 'm') mul = 1024.0 * 1024, end++;
  else if (*end == 'G' || *end == 'g') mul = 1024.0 * 1024 * 1024, end++;
  if (*end == 'i' || *end == 'B') end++;
  if (*end == 'B') end++;
  if (*end) return false;
  d *= mul;
  if (d > 1.8e19) return false;
  *out = (uint64_t)d;
  return true;
}

static size_t parse_list(const char *s, int32_t *out, size_t cap) {
  size_t n = 0;
  while (s && *s && n < cap) {
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || v <= 0 || v > (1L << 24)) return 0;
    out[n++] = (int32_t)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return 0;
  }
  return n;
}

int pte_cli_synth_llama(int argc, char **argv);

static int run_synth(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    help(argc < 2 ? stderr : stdout);
    return argc < 2 ? PTE_EXIT_USAGE : PTE_EXIT_OK;
  }
  const char *kind = argv[1];
  if (!strcmp(kind, "llama")) return pte_cli_synth_llama(argc, argv); /* cmd_synth_llama.c */
  const bool denoise = !strcmp(kind, "denoise");
  if (strcmp(kind, "mlp") && strcmp(kind, "cnn") && strcmp(kind, "large") && !denoise) {
    fprintf(stderr, "pte synth: unknown model kind '%s' (mlp, cnn, large, denoise, llama)\n", kind);
    return PTE_EXIT_USAGE;
  }
  const char *out = NULL;
  int32_t widths[64] = {784, 256, 128, 10}, chans[16] = {3, 16, 32};
  size_t n_widths = 4, n_chans = 3;
  uint64_t seed = 0, size = 0, layers = 4, image = 32, classes = 10, batch = 1, steps = 10, width = 256;
  pte_writer_options wo;
  memset(&wo, 0, sizeof wo);
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  bool json = false;
  bool quiet = false, have_size = false, xnn = denoise, no_share = false, denoise_opt = false;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(stdout);
      return PTE_EXIT_OK;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      out = v, i++, ok = v != NULL;
    } else if (!strcmp(a, "--seed")) {
      ok = parse_u64(v, &seed), i++;
    } else if (!strcmp(a, "--size")) {
      ok = parse_u64(v, &size), i++, have_size = true;
    } else if (!strcmp(a, "--layers")) {
      ok = parse_u64(v, &layers) && layers >= 1 && layers <= 1024, i++;
    } else if (!strcmp(a, "--image")) {
      ok = parse_u64(v, &image) && image >= 1 && image <= 4096, i++;
    } else if (!strcmp(a, "--classes")) {
      ok = parse_u64(v, &classes) && classes >= 1 && classes <= (1u << 20), i++;
    } else if (!strcmp(a, "--batch")) {
      ok = parse_u64(v, &batch) && batch >= 1 && batch <= 4096, i++;
    } else if (!strcmp(a, "--widths")) {
      n_widths = parse_list(v, widths, 64), ok = n_widths >= 2, i++;
    } else if (!strcmp(a, "--channels")) {
      n_chans = parse_list(v, chans, 16), ok = n_chans >= 2, i++;
    } else if (!strcmp(a, "--delegate")) {
      ok = v && (!strcmp(v, "xnnpack") || !strcmp(v, "none")), i++;
      if (ok) xnn = !strcmp(v, "xnnpack");
      if (ok && denoise && !xnn) {
        fprintf(stderr, "pte synth denoise: the model is XNNPACK-delegated by definition\n");
        return PTE_EXIT_USAGE;
      }
    } else if (!strcmp(a, "--steps")) {
      ok = parse_u64(v, &steps) && steps >= 1 && steps <= 10000, i++, denoise_opt = true;
    } else if (!strcmp(a, "--width")) {
      ok = parse_u64(v, &width) && width >= 1 && width <= 16384, i++, denoise_opt = true;
    } else if (!strcmp(a, "--no-share")) {
      no_share = true, denoise_opt = true;
    } else if (!strcmp(a, "--segment-alignment")) {
      ok = parse_u64(v, &wo.segment_alignment), i++;
    } else if (!strcmp(a, "--tensor-alignment")) {
      ok = parse_u64(v, &wo.tensor_alignment), i++;
    } else if (!strcmp(a, "--no-fsync")) {
      fo.no_fsync = true;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = true;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else {
      fprintf(stderr, "pte synth: unknown option '%s'\n", a);
      return PTE_EXIT_USAGE;
    }
    if (!ok) {
      fprintf(stderr, "pte synth: bad or missing value for %s\n", a);
      return PTE_EXIT_USAGE;
    }
  }
  if (!out) {
    fprintf(stderr, "pte synth: no output file (-o OUT)\n");
    return PTE_EXIT_USAGE;
  }
  if (denoise_opt && !denoise) {
    fprintf(stderr, "pte synth %s: --steps, --width and --no-share are denoise options\n", kind);
    return PTE_EXIT_USAGE;
  }
  if ((wo.segment_alignment && (wo.segment_alignment & (wo.segment_alignment - 1))) ||
      (wo.tensor_alignment && (wo.tensor_alignment & (wo.tensor_alignment - 1)))) {
    fprintf(stderr, "pte synth: alignments must be powers of two\n");
    return PTE_EXIT_USAGE;
  }
  if (!strcmp(kind, "large") && (!have_size || size < 4096)) {
    fprintf(stderr, "pte synth large: --size (at least 4K) is required\n");
    return PTE_EXIT_USAGE;
  }
  if (!strcmp(kind, "cnn") && (image >> (n_chans - 1)) < 1) {
    fprintf(stderr, "pte synth cnn: image %llu is too small for %zu pooling stages\n", (unsigned long long)image, n_chans - 1);
    return PTE_EXIT_USAGE;
  }
  struct timespec t_start;
  clock_gettime(CLOCK_MONOTONIC, &t_start);
  pte_cli_progress prog;
  pte_cli_progress_init(&prog, quiet);
  wo.progress = pte_cli_progress_update;
  wo.progress_ctx = &prog;
  wo.no_dedup = true; /* generated tensors are distinct; skip the hashing pass */
  synth S;
  memset(&S, 0, sizeof S);
  S.seed = seed;
  /* generator contexts must not move once handed out: reserve them all now */
  S.cap_gens = 2 * (n_widths + n_chans + layers) + 8;
  S.gens = (pte_cli_gen *)calloc(S.cap_gens, sizeof *S.gens);
  pte_xnn_builder *xb = NULL;
  if (xnn) {
    S.cap_xgens = S.cap_gens;
    S.xgens = (xgen *)calloc(S.cap_xgens, sizeof *S.xgens);
    S.keys = (char(*)[65])calloc(S.cap_xgens, 65);
    S.hash_buf = (uint8_t *)malloc(HASH_BUF_SIZE);
    S.n_delegates = 1;
    xb = pte_xnn_builder_new();
  }
  if (!S.gens || (xnn && (!S.xgens || !S.keys || !S.hash_buf || !xb))) {
    free(S.gens), free(S.xgens), free(S.keys), free(S.hash_buf), pte_xnn_builder_free(xb);
    return fail_status(pte_error_set(&S.err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory"), &S.err);
  }
  /* `large`: layers of W x W floats (+ bias) totalling about `size` bytes; W a multiple of 16 */
  int32_t lw[1025];
  if (!strcmp(kind, "large")) {
    double per = (double)size / (double)layers / 4.0;
    int64_t W = (int64_t)sqrt(per);
    W = W / 16 * 16;
    if (W < 16) W = 16;
    if (W > 46336) W = 46336; /* W*W elements must fit a 32-bit index */
    for (uint64_t i = 0; i <= layers; i++) lw[i] = (int32_t)W;
  }
  if (xnn && !strcmp(kind, "large")) { /* the weights go through sha256 (their keys) first */
    S.progress = &prog;
    S.to_hash = size;
    pte_cli_progress_phase(&prog, "hashing");
  }
  pte_status s = begin(&S, &wo, !xnn);
  if (s == PTE_OK) {
    const int32_t B = (int32_t)batch;
    if (denoise) {
      s = synth_build_denoise(&S, xb, (int32_t)width, B, (uint32_t)steps, !no_share);
    } else if (!strcmp(kind, "cnn")) {
      if (xnn) {
        int32_t isz[4] = {B, chans[0], (int32_t)image, (int32_t)image}, osz[2] = {B, (int32_t)classes};
        s = synth_xnn_cnn_graph(&S, xb, chans, n_chans, (int32_t)image, (int32_t)classes, B);
        if (s == PTE_OK) s = synth_build_delegated(&S, xb, isz, 4, osz, 2);
      } else {
        s = build_cnn(&S, chans, n_chans, (int32_t)image, (int32_t)classes, B);
      }
    } else {
      const int32_t *wv = !strcmp(kind, "large") ? lw : widths;
      size_t nw = !strcmp(kind, "large") ? (size_t)layers + 1 : n_widths;
      if (xnn) {
        int32_t isz[2] = {B, wv[0]}, osz[2] = {B, wv[nw - 1]};
        s = synth_xnn_mlp_graph(&S, xb, wv, nw, B);
        if (s == PTE_OK) s = synth_build_delegated(&S, xb, isz, 2, osz, 2);
      } else {
        s = build_mlp(&S, wv, nw, B);
      }
    }
  }
  pte_writer_layout lay;
  memset(&lay, 0, sizeof lay);
  if (s == PTE_OK) s = pte_writer_compute_layout(S.w, &lay, &S.err);
  pte_cli_progress_phase(&prog, "writing");
  if (s == PTE_OK) s = pte_writer_write_file(S.w, out, &fo, &S.err);
  pte_cli_progress_end(&prog);
  int rc = PTE_EXIT_OK;
  if (s != PTE_OK) {
    rc = fail_status(s, &S.err);
  } else if (json) {
    jsonw jw;
    jw_init(&jw, stdout);
    jw_obj(&jw);
    jw_kstr(&jw, "output", out);
    jw_kstr(&jw, "model", kind);
    jw_kuint(&jw, "bytes", lay.file_size);
    jw_kstr(&jw, "delegate", xnn ? "XnnpackBackend" : "none");
    if (xnn) {
      jw_kuint(&jw, "delegates", S.n_delegates);
      jw_kuint(&jw, "delegate_calls", S.n_calls);
      jw_kuint(&jw, "named_tensors", S.n_keys);
      jw_kuint(&jw, "named_bytes", S.named_bytes);
    } else {
      jw_kuint(&jw, "constant_bytes", lay.constant_segment_size);
    }
    jw_key(&jw, "seconds");
    jw_double(&jw, secs_since(&t_start));
    jw_obj_end(&jw);
    jw_end(&jw);
  } else if (xnn) {
    double el = secs_since(&t_start);
    printf("wrote %s: %llu bytes (%s, XnnpackBackend: %zu delegate%s, %zu delegate call%s, blob %zu bytes, %zu named "
           "tensors %llu bytes) in %.2f s\n",
           out, (unsigned long long)lay.file_size, kind, S.n_delegates, S.n_delegates == 1 ? "" : "s", S.n_calls,
           S.n_calls == 1 ? "" : "s", S.blob.size, S.n_keys, (unsigned long long)S.named_bytes, el);
  } else {
    double el = secs_since(&t_start);
    printf("wrote %s: %llu bytes (%s, %zu generated tensors, constants %llu bytes) in %.2f s\n", out,
           (unsigned long long)lay.file_size, kind, S.n_gens, (unsigned long long)lay.constant_segment_size, el);
  }
  pte_writer_destroy(S.w);
  pte_xnn_builder_free(xb);
  pte_xnn_blob_free(&S.blob);
  free(S.gens);
  free(S.xgens);
  free(S.keys);
  free(S.hash_buf);
  return rc;
}

const pte_cli_verb pte_cli_verb_synth = {"synth", "generate benchmark/demo models (mlp, cnn, large, denoise, llama)", run_synth};
