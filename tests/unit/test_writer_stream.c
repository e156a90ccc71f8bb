#define _POSIX_C_SOURCE 200809L
/* The program builder / writer's output side: source kinds, streaming bounds (memory and
 * progress), bad options and arguments, error cases (nothing left at the destination), and the
 * .ptd writer. Layout, values, delegates, dedup, planner: test_writer.c. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pte/headers.h"
#include "pte/ptd.h"
#include "test_writer_util.h"

/* ------------------------------------------------------------------ sources */
static pte_status counting_source(void *ctx, uint64_t off, void *dst, size_t n, pte_error_info *err) {
  (void)err;
  size_t *calls = (size_t *)ctx;
  (*calls)++;
  uint8_t *d = (uint8_t *)dst;
  for (size_t i = 0; i < n; i++) d[i] = (uint8_t)((off + i) * 13 + 7);
  return PTE_OK;
}

TEST(source_kinds) {
  const char *path = test_tmp_path("writer_src.bin");
  uint8_t data[300];
  for (int i = 0; i < 300; i++) data[i] = (uint8_t)(i ^ 0x5c);
  CHECK_EQ_INT(test_write_file(path, data, 300), 0);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  size_t ldsz = 0;
  uint8_t *ldbytes = test_read_file(path, &ldsz);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, ldbytes, ldsz);
  size_t calls = 0;
  pte_writer_options o;
  memset(&o, 0, sizeof o);
  o.buffer_size = 4096;
  pte_writer *w = tw_new_writer(&o);
  pte_error_info err;
  pte_source srcs[4] = {pte_source_fd(fd, 10, 50), pte_source_path(path, 100, 60), pte_source_loader(&bl.base, 200, 70),
                        pte_source_callback(counting_source, &calls, 10000)};
  for (int i = 0; i < 4; i++) CHECK_OK(pte_writer_add_constant(w, &srcs[i], NULL, &err));
  /* ranges past the end are refused when added */
  pte_source bad = pte_source_path(path, 290, 20);
  CHECK_STATUS(pte_writer_add_constant(w, &bad, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "past the end");
  bad = pte_source_fd(fd, 0, 301);
  CHECK_STATUS(pte_writer_add_constant(w, &bad, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  bad = pte_source_loader(&bl.base, 250, 51);
  CHECK_STATUS(pte_writer_add_constant(w, &bad, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  bad = pte_source_path(test_tmp_path("no_such_file.bin"), 0, 1);
  CHECK_STATUS(pte_writer_add_constant(w, &bad, NULL, &err), PTE_ERR_ACCESS_FAILED);
  bad = pte_source_memory(NULL, 5);
  CHECK_STATUS(pte_writer_add_constant(w, &bad, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  bad = pte_source_callback(NULL, NULL, 5);
  CHECK_STATUS(pte_writer_add_constant(w, &bad, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  size_t n = 0;
  uint8_t *bytes = tw_write_mem(w, &n, &err);
  CHECK_MSG(bytes, "%s", err.msg);
  tw_prog p;
  CHECK_OK(tw_load_bytes(&p, bytes, n));
  const void *x;
  CHECK_OK(pte_program_constant_data(&p.prog, 1, 50, &x));
  CHECK(memcmp(x, data + 10, 50) == 0);
  CHECK_OK(pte_program_constant_data(&p.prog, 2, 60, &x));
  CHECK(memcmp(x, data + 100, 60) == 0);
  CHECK_OK(pte_program_constant_data(&p.prog, 3, 70, &x));
  CHECK(memcmp(x, data + 200, 70) == 0);
  CHECK_OK(pte_program_constant_data(&p.prog, 4, 10000, &x));
  const uint8_t *y = (const uint8_t *)x;
  for (int i = 0; i < 10000; i++) CHECK_EQ_INT(y[i], (uint8_t)(i * 13 + 7));
  CHECK(calls >= 3); /* streamed in buffer-sized pieces */
  tw_free(&p);
  free(bytes);
  pte_writer_destroy(w);
  close(fd);
  free(ldbytes);
  unlink(path);
}

/* A data writer that records the largest single write and the bytes, for streaming checks. */
typedef struct rec_writer {
  pte_data_writer base;
  pte_memory_writer mem;
  size_t max_write, writes;
  uint64_t bytes_written;
} rec_writer;

static pte_status rec_write(pte_data_writer *self, const void *d, size_t n, uint64_t off, pte_error_info *err) {
  rec_writer *r = (rec_writer *)self;
  if (n > r->max_write) r->max_write = n;
  r->writes++;
  r->bytes_written += n;
  return pte_data_writer_write(&r->mem.base, d, n, off, err);
}
static pte_status rec_set_size(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  return pte_data_writer_set_size(&((rec_writer *)self)->mem.base, size, err);
}
static pte_status rec_publish(pte_data_writer *self, pte_error_info *err) {
  return pte_data_writer_publish(&((rec_writer *)self)->mem.base, err);
}
static void rec_destroy(pte_data_writer *self) { pte_data_writer_destroy(&((rec_writer *)self)->mem.base); }
static const pte_data_writer_vtable k_rec_vt = {
    .write = rec_write, .set_size = rec_set_size, .publish = rec_publish, .destroy = rec_destroy};

/* Tracks the writer's own heap use. */
typedef struct heap_meter {
  size_t cur, peak;
} heap_meter;

static void *metered_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  heap_meter *h = (heap_meter *)ctx;
  void *q = pte_heap_realloc(NULL, ptr, old_size, new_size);
  if (new_size == 0) {
    h->cur -= old_size;
    return NULL;
  }
  if (q) {
    h->cur += new_size - old_size;
    if (h->cur > h->peak) h->peak = h->cur;
  }
  return q;
}

static pte_status zero_or_pattern(void *ctx, uint64_t off, void *dst, size_t n, pte_error_info *err) {
  (void)ctx;
  (void)err;
  uint8_t *d = (uint8_t *)dst;
  for (size_t i = 0; i < n; i++) {
    uint64_t k = off + i;
    d[i] = (k / 262144) % 2 ? (uint8_t)(k | 1) : 0; /* alternating 256 KiB zero / data runs */
  }
  return PTE_OK;
}

static void on_progress(void *ctx, uint64_t done, uint64_t total) {
  uint64_t *p = (uint64_t *)ctx;
  if (done < p[0] || total != p[2]) p[1]++; /* went backwards / inconsistent total */
  p[0] = done;
  p[3]++;
}

TEST(streaming_is_bounded) {
  heap_meter hm = {0, 0};
  pte_writer_options o;
  memset(&o, 0, sizeof o);
  o.buffer_size = 65536;
  o.realloc_fn = metered_realloc;
  o.realloc_ctx = &hm;
  o.sparse = true;
  uint64_t prog[4] = {0, 0, 0, 0};
  o.progress = on_progress;
  o.progress_ctx = prog;
  pte_writer *w = tw_new_writer(&o);
  pte_error_info err;
  const uint64_t big = 32u << 20; /* 32 MiB of constants from a callback */
  pte_source s = pte_source_callback(zero_or_pattern, NULL, big);
  for (int i = 0; i < 2; i++) CHECK_OK(pte_writer_add_constant(w, &s, NULL, &err));
  uint32_t m;
  CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
  pte_writer_layout L;
  CHECK_OK(pte_writer_compute_layout(w, &L, &err));
  prog[2] = L.file_size;
  rec_writer r;
  memset(&r, 0, sizeof r);
  r.base.vt = &k_rec_vt;
  pte_memory_writer_init(&r.mem, pte_heap_realloc, NULL, 0);
  CHECK_OK(pte_writer_write(w, &r.base, &err));
  CHECK(r.max_write <= 65536);
  CHECK(hm.peak < (1u << 20)); /* the builder never held the 64 MiB */
  CHECK(r.bytes_written < L.file_size * 3 / 4); /* zero runs were not written (sparse) */
  CHECK_EQ_INT(prog[1], 0);
  CHECK_EQ_INT(prog[0], L.file_size);
  CHECK(prog[3] >= big / 65536); /* one progress report per buffer flushed */
  size_t n = 0;
  const uint8_t *d = pte_memory_writer_data(&r.mem, &n);
  CHECK_EQ_INT(n, L.file_size);
  /* identical sources were deduplicated by content: one copy */
  CHECK_EQ_INT(L.constant_segment_size, big);
  const uint8_t *seg = d + L.segment_base_offset;
  for (uint64_t k = 0; k < big; k += 4099) CHECK_EQ_INT(seg[k], (k / 262144) % 2 ? (uint8_t)(k | 1) : 0);
  pte_data_writer_destroy(&r.base);
  pte_writer_destroy(w);
  CHECK_EQ_INT(hm.cur, 0); /* everything released */
}

/* ------------------------------------------------------------------ errors */
TEST(bad_options_and_arguments) {
  pte_writer *w = NULL;
  pte_error_info err;
  pte_writer_options o;
  memset(&o, 0, sizeof o);
  o.segment_alignment = 100;
  CHECK_STATUS(pte_writer_create(&o, &w, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "segment alignment 100 is not a power of two");
  o.segment_alignment = 0;
  o.tensor_alignment = 24;
  CHECK_STATUS(pte_writer_create(&o, &w, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "tensor alignment 24");
  o.tensor_alignment = 0;
  o.delegate_alignment = 3;
  CHECK_STATUS(pte_writer_create(&o, &w, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK(w == NULL);
  w = tw_new_writer(NULL);
  uint32_t m, b;
  CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
  CHECK_STATUS(pte_writer_add_method(w, "forward", NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "duplicate method");
  /* source size vs dtype x numel */
  float c[5] = {0};
  pte_source s = pte_source_memory(c, 20);
  int32_t sz[2] = {2, 3};
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = 2;
  t.sizes = sz;
  CHECK_STATUS(pte_writer_add_constant_tensor(w, m, &t, &s, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "source size disagrees");
  uint32_t ci;
  CHECK_OK(pte_writer_add_constant(w, &s, &ci, &err));
  t.constant = ci;
  CHECK_STATUS(pte_writer_add_tensor(w, m, &t, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "needs 24");
  t.constant = 99;
  CHECK_STATUS(pte_writer_add_tensor(w, m, &t, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  t.constant = 0;
  t.mutable_init = 1;
  CHECK_STATUS(pte_writer_add_tensor(w, m, &t, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  t.mutable_init = 0;
  uint8_t bad_order[2] = {1, 1};
  t.dim_order = bad_order;
  CHECK_STATUS(pte_writer_add_tensor(w, m, &t, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "permutation");
  t.dim_order = NULL;
  t.dtype = 40;
  CHECK_STATUS(pte_writer_add_tensor(w, m, &t, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  t.dtype = PTE_DTYPE_FLOAT;
  t.external = true;
  CHECK_STATUS(pte_writer_add_tensor(w, m, &t, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "fqn");
  /* named data */
  CHECK_OK(pte_writer_add_blob(w, &s, &b, &err));
  CHECK_OK(pte_writer_add_named_data(w, "k", b, 16, &err));
  CHECK_STATUS(pte_writer_add_named_data(w, "k", b, 16, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "duplicate named data key 'k'");
  CHECK_STATUS(pte_writer_add_named_data(w, "k2", b, 12, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "not a power of two");
  CHECK_STATUS(pte_writer_add_named_data(w, "k3", 7, 16, &err), PTE_ERR_INVALID_ARGUMENT);
  /* lists must reference earlier tensors */
  int32_t vi;
  CHECK_OK(pte_writer_add_int(w, m, 3, &vi, &err));
  CHECK_STATUS(pte_writer_add_tensor_list(w, m, &vi, 1, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  int32_t later = 50;
  CHECK_STATUS(pte_writer_add_tensor_list(w, m, &later, 1, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  /* instruction indices are checked at write time: nothing is written */
  uint32_t ch;
  CHECK_OK(pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &ch, &err));
  int32_t args[1] = {1000};
  uint32_t op;
  CHECK_OK(pte_writer_add_operator(w, m, "aten::x", "out", &op, &err));
  CHECK_OK(pte_writer_add_kernel_call(w, m, ch, op, args, 1, NULL, &err));
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  CHECK_STATUS(pte_writer_write(w, &mw.base, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "argument value 1000 out of range");
  size_t n = 5;
  pte_memory_writer_data(&mw, &n);
  CHECK_EQ_INT(n, 0);
  CHECK(!pte_memory_writer_published(&mw));
  pte_data_writer_destroy(&mw.base);
  CHECK_STATUS(pte_writer_add_kernel_call(w, m, 7, op, args, 1, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_writer_add_int(w, 9, 1, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  pte_writer_destroy(w);
}

typedef struct fail_ctx {
  uint64_t fail_at;
} fail_ctx;

static pte_status failing_source(void *ctx, uint64_t off, void *dst, size_t n, pte_error_info *err) {
  fail_ctx *f = (fail_ctx *)ctx;
  if (off + n > f->fail_at) return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "sensor unplugged");
  memset(dst, 0x77, n);
  return PTE_OK;
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  if (d) closedir(d);
  return n;
}

/* A source that fails mid-stream: the error is the source's, nothing appears at the destination
 * (an existing file there is untouched) and no temp/lock file remains. */
TEST(failing_source_leaves_nothing) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s", test_tmp_path("writer_fail"));
  mkdir(dir, 0777);
  char dest[600];
  snprintf(dest, sizeof dest, "%s/model.pte", dir);
  unlink(dest);
  for (int existing = 0; existing < 2; existing++) {
    if (existing) CHECK_EQ_INT(test_write_file(dest, "previous", 8), 0);
    pte_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = 4096;
    pte_writer *w = tw_new_writer(&o);
    pte_error_info err;
    fail_ctx fc = {100000};
    pte_source s = pte_source_callback(failing_source, &fc, 1 << 20);
    CHECK_OK(pte_writer_add_constant(w, &s, NULL, &err));
    pte_file_writer_options fo;
    pte_file_writer_options_init(&fo);
    fo.no_fsync = true;
    CHECK_STATUS(pte_writer_write_file(w, dest, &fo, &err), PTE_ERR_ACCESS_FAILED);
    CHECK_CONTAINS(err.msg, "sensor unplugged");
    CHECK_CONTAINS(err.msg, "constant 1");
    struct stat st;
    if (existing) {
      size_t n = 0;
      uint8_t *d = test_read_file(dest, &n);
      CHECK(d && n == 8 && memcmp(d, "previous", 8) == 0);
      free(d);
      CHECK_EQ_INT(count_entries(dir), 1);
    } else {
      CHECK(stat(dest, &st) != 0);
      CHECK_EQ_INT(count_entries(dir), 0);
    }
    pte_writer_destroy(w);
  }
  unlink(dest);
  rmdir(dir);
}

/* A file source that shrinks after it was added fails at write time with AccessFailed. */
TEST(file_source_shrinks) {
  const char *path = test_tmp_path("shrinking.bin");
  uint8_t data[8192];
  memset(data, 1, sizeof data);
  CHECK_EQ_INT(test_write_file(path, data, sizeof data), 0);
  pte_writer *w = tw_new_writer(NULL);
  pte_error_info err;
  pte_source s = pte_source_path(path, 0, 8192);
  CHECK_OK(pte_writer_add_constant(w, &s, NULL, &err));
  CHECK_EQ_INT(test_write_file(path, data, 100), 0);
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  CHECK_STATUS(pte_writer_write(w, &mw.base, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "shorter");
  CHECK(!pte_memory_writer_published(&mw));
  pte_data_writer_destroy(&mw.base);
  pte_writer_destroy(w);
  unlink(path);
}

/* ------------------------------------------------------------------ .ptd */
TEST(ptd_writer_basic) {
  pte_ptd_writer *pw = NULL;
  pte_error_info err;
  CHECK_OK(pte_ptd_writer_create(NULL, &pw, &err));
  float w1[6] = {1, 2, 3, 4, 5, 6};
  float w2[2] = {-1, -2};
  int32_t s1[2] = {2, 3}, s2[1] = {2};
  pte_source a = pte_source_memory(w1, 24), b = pte_source_memory(w2, 8), c = pte_source_memory("opaque!", 7);
  CHECK_OK(pte_ptd_writer_add_tensor(pw, "layer.weight", PTE_DTYPE_FLOAT, s1, 2, NULL, &a, &err));
  CHECK_OK(pte_ptd_writer_add_tensor(pw, "layer.bias", PTE_DTYPE_FLOAT, s2, 1, NULL, &b, &err));
  CHECK_OK(pte_ptd_writer_add_blob(pw, "blob", &c, 256, &err));
  CHECK_STATUS(pte_ptd_writer_add_tensor(pw, "layer.bias", PTE_DTYPE_FLOAT, s2, 1, NULL, &b, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "duplicate key");
  CHECK_STATUS(pte_ptd_writer_add_tensor(pw, "x", PTE_DTYPE_FLOAT, s1, 2, NULL, &b, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "source size disagrees");
  CHECK_STATUS(pte_ptd_writer_add_blob(pw, "y", &c, 3, &err), PTE_ERR_INVALID_ARGUMENT);
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  CHECK_OK(pte_ptd_writer_write(pw, &mw.base, &err));
  size_t n = 0;
  const uint8_t *d = pte_memory_writer_data(&mw, &n);
  uint8_t *bytes = (uint8_t *)aligned_alloc(64, (n + 63) / 64 * 64);
  memcpy(bytes, d, n);
  CHECK(memcmp(bytes + 4, "FT01", 4) == 0 && memcmp(bytes + 8, "FH01", 4) == 0);
  pte_flat_tensor_header h;
  CHECK_OK(pte_flat_tensor_header_parse(bytes, n, &h, NULL));
  CHECK_EQ_INT(h.header_length, 40);
  CHECK_EQ_INT(h.flatbuffer_offset, 48);
  CHECK_EQ_INT(h.segment_base_offset % 128, 0);
  CHECK_EQ_INT(h.segment_base_offset, (48 + (h.flatbuffer_size + 15) / 16 * 16 + 127) / 128 * 128);
  CHECK_EQ_INT(h.segment_data_size, 256 + 7); /* 24 @0, 8 @128, blob @256 (lcm(128, 256)) */
  CHECK_EQ_INT(n, h.segment_base_offset + h.segment_data_size);
  CHECK(memcmp(bytes + h.segment_base_offset + 128, w2, 8) == 0);
  CHECK(memcmp(bytes + h.segment_base_offset + 256, "opaque!", 7) == 0);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, n);
  pte_ptd ptd;
  CHECK_OK(pte_ptd_load(&bl.base, &ptd, &err));
  pte_tensor_layout lay;
  CHECK_OK(pte_named_data_map_get_tensor_layout(pte_ptd_map(&ptd), "layer.weight", &lay));
  CHECK(lay.dtype == PTE_DTYPE_FLOAT && lay.dim == 2 && lay.sizes[1] == 3 && lay.nbytes == 24);
  CHECK(pte_named_data_map_get_tensor_layout(pte_ptd_map(&ptd), "blob", &lay) != PTE_OK); /* opaque: no layout */
  pte_freeable_buffer fb;
  CHECK_OK(pte_named_data_map_get_data(pte_ptd_map(&ptd), "layer.weight", &fb));
  CHECK(fb.size == 24 && memcmp(fb.data, w1, 24) == 0);
  pte_freeable_buffer_free(&fb);
  pte_ptd_destroy(&ptd);

  /* a program that takes "layer.bias" from this .ptd: out = x + bias */
  pte_writer *w = tw_new_writer(NULL);
  uint32_t m, ch, op;
  int32_t x, bias, one, out;
  pte_wr_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = PTE_DTYPE_FLOAT;
  t.dim = 1;
  t.sizes = s2;
  t.plan = PTE_WR_PLAN_AUTO;
  CHECK_OK(pte_writer_add_method(w, "forward", &m, &err));
  CHECK_OK(pte_writer_add_tensor(w, m, &t, &x, &err));
  pte_wr_tensor te = t;
  te.plan = PTE_WR_PLAN_NONE;
  te.external = true;
  te.fqn = "layer.bias";
  CHECK_OK(pte_writer_add_tensor(w, m, &te, &bias, &err));
  CHECK_OK(pte_writer_add_int(w, m, 1, &one, &err));
  CHECK_OK(pte_writer_add_tensor(w, m, &t, &out, &err));
  CHECK_OK(pte_writer_add_operator(w, m, "aten::add", "out", &op, &err));
  CHECK_OK(pte_writer_add_chain(w, m, NULL, 0, NULL, 0, &ch, &err));
  int32_t args[5] = {x, bias, one, out, out};
  CHECK_OK(pte_writer_add_kernel_call(w, m, ch, op, args, 5, NULL, &err));
  CHECK_OK(pte_writer_set_inputs(w, m, &x, 1, &err));
  CHECK_OK(pte_writer_set_outputs(w, m, &out, 1, &err));
  tw_prog p;
  CHECK_OK(tw_write_and_load(w, &p, &err));
  CHECK_OK(pte_ptd_load(&bl.base, &ptd, &err));
  tw_run r;
  tw_run_method(&p.prog, "forward", pte_ptd_map(&ptd), &r);
  CHECK_OK(r.load_status);
  CHECK_OK(r.exec_status);
  float res[2];
  memcpy(res, r.data[0], 8);
  CHECK_NEAR(res[0], -1.25 - 1, 0); /* inputs from tw_fill: -1.25, 0.5 */
  CHECK_NEAR(res[1], 0.5 - 2, 0);
  tw_run_free(&r);
  pte_ptd_destroy(&ptd);
  tw_free(&p);
  pte_writer_destroy(w);
  free(bytes);
  pte_data_writer_destroy(&mw.base);
  pte_ptd_writer_destroy(pw);
}

int main(void) {
  RUN(source_kinds);
  RUN(streaming_is_bounded);
  RUN(bad_options_and_arguments);
  RUN(failing_source_leaves_nothing);
  RUN(file_source_shrinks);
  RUN(ptd_writer_basic);
  return test_summary();
}
