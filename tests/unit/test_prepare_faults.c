#define _POSIX_C_SOURCE 200809L
/* test_prepare_faults.c — prepare never damages the original and never publishes a partial file:
 * an injected failure at every write / set_size / reserve / publish (memory and file writers), a
 * real rename failure, a real write failure (RLIMIT_FSIZE), lock contention, stale temp cleanup,
 * in-place prepare, SIGKILL at spread-out points of a real `pte prepare` run, and values larger
 * than one write piece (written in prefaulted pieces, durable output with early writeback). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fault_writer.h"
#include "packing_backend.h"
#include "pte/io.h"
#include "pte/prepare.h"
#include "test.h"

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static char g_dir[1024];

/* A fresh empty directory under $PTE_TMP. */
static const char *fresh_dir(const char *name) {
  snprintf(g_dir, sizeof g_dir, "%s", test_tmp_path(name));
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", g_dir, g_dir);
  int rc = system(cmd);
  (void)rc;
  return g_dir;
}

static const char *path_in(const char *dir, const char *name) {
  static char buf[4][1200];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

/* Names in dir, sorted, joined by ' ' (dot files included, . and .. excluded). */
static void list_dir(const char *dir, char *out, size_t cap) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | sort | tr '\\n' ' '", dir);
  char *s = test_run_capture(cmd, NULL);
  snprintf(out, cap, "%s", s ? s : "?");
  free(s);
}

static bool file_equals(const char *path, const uint8_t *bytes, size_t size) {
  size_t n = 0;
  uint8_t *d = test_read_file(path, &n);
  bool eq = d && n == size && memcmp(d, bytes, size) == 0;
  free(d);
  return eq;
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static uint8_t *build_model(size_t *size, bool passthrough, uint32_t n_pass, size_t pass_size) {
  static const packing_layer layers[3] = {{true, -1}, {false, -1}, {true, -1}};
  packing_model_spec spec = {32, 3, layers, 9, false, "QnnBackend", passthrough, n_pass, pass_size};
  pte_error_info err;
  uint8_t *m = packing_model_build(&spec, size, &err);
  if (!m) fprintf(stderr, "build: %s\n", err.msg);
  return m;
}

/* ---- every k: memory writer ------------------------------------------------------------------- */

static pte_status mem_read_back(void *ctx, uint64_t off, void *dst, size_t n, pte_error_info *err) {
  size_t size = 0;
  const uint8_t *d = pte_memory_writer_data((const pte_memory_writer *)ctx, &size);
  if (off > size || n > size - off) return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "read back out of range");
  memcpy(dst, d + off, n);
  return PTE_OK;
}

static void fault_sweep_memory(const uint8_t *in, size_t size, bool rebuild, bool expect_change, bool speculate) {
  pte_prepare_options opt;
  memset(&opt, 0, sizeof opt);
  opt.force_rebuild = rebuild;
  opt.read_back = speculate ? mem_read_back : NULL;
  opt.buffer_size = 4096; /* many writes */
  uint8_t *orig = (uint8_t *)malloc(size);
  memcpy(orig, in, size);
  uint64_t total_ops = 0;
  size_t ref_size = 0;
  uint8_t *ref = NULL;
  for (uint64_t k = 0;; k++) {
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, in, size);
    pte_memory_writer mw;
    pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
    pte_fault_writer fw;
    pte_fault_writer_init(&fw, &mw.base, k == 0 ? 0 : k);
    opt.read_back_ctx = &mw;
    pte_error_info err;
    pte_prepare_report rep;
    pte_status s = pte_initialize_and_save_backend_data_ex(&bl.base, &fw.base, NULL, NULL, &opt, &rep, &err);
    CHECK(memcmp(in, orig, size) == 0);
    if (k == 0) {
      CHECK_OK(s);
      CHECK_EQ_INT(rep.changed, expect_change);
      CHECK(pte_memory_writer_published(&mw));
      total_ops = fw.ops;
      CHECK(total_ops >= 4);
      const uint8_t *d = pte_memory_writer_data(&mw, &ref_size);
      ref = (uint8_t *)malloc(ref_size);
      memcpy(ref, d, ref_size);
    } else if (k <= total_ops) {
      CHECK_MSG(s == PTE_ERR_ACCESS_FAILED, "k=%llu: %s %s", (unsigned long long)k, pte_status_name(s), err.msg);
      CHECK_CONTAINS(err.msg, "injected failure");
      CHECK_MSG(!pte_memory_writer_published(&mw), "k=%llu published", (unsigned long long)k);
    } else {
      CHECK_OK(s); /* past the last operation: succeeds, same bytes */
      size_t n = 0;
      const uint8_t *d = pte_memory_writer_data(&mw, &n);
      CHECK(n == ref_size && memcmp(d, ref, n) == 0);
      pte_data_writer_destroy(&fw.base);
      break;
    }
    pte_data_writer_destroy(&fw.base);
  }
  free(ref);
  free(orig);
}

TEST(fault_every_operation_memory) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  size_t size = 0;
  uint8_t *in = build_model(&size, false, 0, 0);
  CHECK(in);
  fault_sweep_memory(in, size, false, true, false); /* patch path */
  fault_sweep_memory(in, size, true, true, false);  /* rebuild path */
  fault_sweep_memory(in, size, false, true, true);  /* patch path, values placed speculatively */
  fault_sweep_memory(in, size, true, true, true);   /* rebuild path, placed values read back */
  free(in);
  /* verbatim path (nothing to prepare) */
  size_t ov_size = 0;
  uint8_t *ov = test_read_corpus("djl_openvino_tiny.pte", &ov_size);
  CHECK(ov);
  fault_sweep_memory(ov, ov_size, false, false, false);
  free(ov);
}

/* ---- every k: file writer --------------------------------------------------------------------- */

typedef struct publish_sabotage {
  const char *dest;
} publish_sabotage;

static void make_dest_a_dir(void *ctx) { mkdir(((publish_sabotage *)ctx)->dest, 0755); }

typedef struct temp_rb {
  pte_file_writer *fw;
} temp_rb;

static pte_status temp_read_back(void *ctx, uint64_t off, void *dst, size_t n, pte_error_info *err) {
  temp_rb *rb = (temp_rb *)ctx;
  int fd = open(rb->fw->temp, O_RDONLY);
  if (fd < 0) return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "read back: open");
  ssize_t r = pread(fd, dst, n, (off_t)off);
  close(fd);
  return r == (ssize_t)n ? PTE_OK : pte_error_set(err, PTE_ERR_ACCESS_FAILED, "read back: short");
}

/* pte_prepare_file, but through a fault writer around the file writer (values placed
 * speculatively, read back through the temp file). */
static pte_status prepare_file_faulty(const char *in, const char *out, uint64_t fail_at, bool rebuild,
                                      void (*before_publish)(void *), void *ctx, uint64_t *ops, pte_error_info *err) {
  pte_mmap_loader ml;
  pte_file_loader fl;
  pte_status s = pte_mmap_loader_open_ex(&ml, in, PTE_MLOCK_NONE, PTE_MMAP_PER_LOAD, err);
  if (s != PTE_OK) return s;
  s = pte_file_loader_open(&fl, in, 0, err);
  if (s != PTE_OK) {
    pte_mmap_loader_close(&ml);
    return s;
  }
  pte_file_writer fwr;
  pte_file_writer_options fo;
  pte_file_writer_options_init(&fo);
  fo.no_fsync = false;
  s = pte_file_writer_open(&fwr, out, &fo, err);
  if (s == PTE_OK) {
    pte_fault_writer fw;
    pte_fault_writer_init(&fw, &fwr.base, fail_at);
    fw.before_publish = before_publish;
    fw.before_publish_ctx = ctx;
    pte_prepare_options opt;
    memset(&opt, 0, sizeof opt);
    opt.copy_loader = &fl.base;
    opt.buffer_size = 8192;
    opt.force_rebuild = rebuild;
    temp_rb rb = {&fwr};
    opt.read_back = temp_read_back;
    opt.read_back_ctx = &rb;
    s = pte_initialize_and_save_backend_data_ex(&ml.base, &fw.base, NULL, NULL, &opt, NULL, err);
    if (ops) *ops = fw.ops;
    pte_data_writer_destroy(&fw.base); /* destroys the file writer: discards unless published */
  }
  pte_file_loader_close(&fl);
  pte_mmap_loader_close(&ml);
  return s;
}

TEST(fault_every_operation_file) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  size_t size = 0;
  uint8_t *bytes = build_model(&size, false, 0, 0);
  CHECK(bytes);
  const char *dir = fresh_dir("prep_fault_file");
  const char *in = path_in(dir, "in.pte");
  const char *out = path_in(dir, "out.pte");
  CHECK_EQ_INT(test_write_file(in, bytes, size), 0);
  char listing[4096];
  for (int rebuild = 0; rebuild < 2; rebuild++) {
    pte_error_info err;
    uint64_t ops = 0;
    CHECK_OK(prepare_file_faulty(in, out, 0, rebuild, NULL, NULL, &ops, &err));
    size_t ref_size = 0;
    uint8_t *ref = test_read_file(out, &ref_size);
    CHECK(ref && ref_size > 0);
    CHECK(unlink(out) == 0);
    CHECK(ops >= 4);
    for (uint64_t k = 1; k <= ops; k++) {
      pte_status s = prepare_file_faulty(in, out, k, rebuild, NULL, NULL, NULL, &err);
      CHECK_MSG(s == PTE_ERR_ACCESS_FAILED, "k=%llu: %s", (unsigned long long)k, err.msg);
      CHECK_MSG(!exists(out), "k=%llu: destination exists", (unsigned long long)k);
      list_dir(dir, listing, sizeof listing);
      CHECK_MSG(!strcmp(listing, "in.pte "), "k=%llu: directory holds '%s'", (unsigned long long)k, listing);
      CHECK(file_equals(in, bytes, size));
    }
    /* a real rename failure: the destination became a directory just before publish */
    publish_sabotage ps = {out};
    pte_status s = prepare_file_faulty(in, out, 0, rebuild, make_dest_a_dir, &ps, NULL, &err);
    CHECK_STATUS(s, PTE_ERR_ACCESS_FAILED);
    CHECK_CONTAINS(err.msg, "cannot rename");
    CHECK(rmdir(out) == 0);
    list_dir(dir, listing, sizeof listing);
    CHECK_MSG(!strcmp(listing, "in.pte "), "after rename failure: '%s'", listing);
    CHECK(file_equals(in, bytes, size));
    /* and the successful run gives the same bytes as before */
    CHECK_OK(prepare_file_faulty(in, out, ops + 1, rebuild, NULL, NULL, NULL, &err));
    CHECK(file_equals(out, ref, ref_size));
    CHECK(unlink(out) == 0);
    free(ref);
  }
  free(bytes);
}

/* A real write failure: the process may not write files past 64 KiB (RLIMIT_FSIZE, EFBIG). */
TEST(real_write_failure_rlimit) {
  CHECK_OK(packing_backend_register());
  size_t size = 0;
  uint8_t *bytes = build_model(&size, true, 4, 64 << 10);
  CHECK(bytes);
  CHECK(size > (256 << 10));
  const char *dir = fresh_dir("prep_fsize");
  const char *in = path_in(dir, "in.pte");
  const char *out = path_in(dir, "out.pte");
  CHECK_EQ_INT(test_write_file(in, bytes, size), 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {64 << 10, 64 << 10};
    setrlimit(RLIMIT_FSIZE, &rl);
    if (!pte_get_backend("TestPassthrough")) pte_register_backend("TestPassthrough", pte_prepare_passthrough_backend());
    pte_error_info err;
    pte_status s = pte_prepare_file(in, out, NULL, NULL, &err);
    if (s == PTE_ERR_ACCESS_FAILED && strstr(err.msg, "too large")) _exit(3);
    if (s == PTE_ERR_ACCESS_FAILED) _exit(4);
    _exit(s == PTE_OK ? 0 : 5);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st));
  CHECK_MSG(WEXITSTATUS(st) == 3 || WEXITSTATUS(st) == 4, "child exit %d", WEXITSTATUS(st));
  char listing[4096];
  list_dir(dir, listing, sizeof listing);
  CHECK_MSG(!strcmp(listing, "in.pte "), "directory holds '%s'", listing);
  CHECK(file_equals(in, bytes, size));
  free(bytes);
}

/* ---- locking, stale temp files, in place ------------------------------------------------------- */

TEST(lock_contention) {
  CHECK_OK(packing_backend_register());
  size_t size = 0;
  uint8_t *bytes = build_model(&size, false, 0, 0);
  CHECK(bytes);
  const char *dir = fresh_dir("prep_lock");
  const char *in = path_in(dir, "in.pte");
  const char *out = path_in(dir, "out.pte");
  CHECK_EQ_INT(test_write_file(in, bytes, size), 0);
  pte_file_writer holder;
  pte_error_info err;
  CHECK_OK(pte_file_writer_open(&holder, out, NULL, &err));
  CHECK_STATUS(pte_prepare_file(in, out, NULL, NULL, &err), PTE_ERR_INVALID_STATE);
  CHECK_CONTAINS(err.msg, "is being written by another writer");
  pte_prepare_file_options fo;
  memset(&fo, 0, sizeof fo);
  pte_file_writer_options_init(&fo.file);
  fo.file.lock = PTE_FILE_LOCK_WAIT;
  fo.file.lock_timeout_ms = 150;
  uint64_t t0 = now_ms();
  CHECK_STATUS(pte_prepare_file(in, out, &fo, NULL, &err), PTE_ERR_INVALID_STATE);
  CHECK(now_ms() - t0 >= 140);
  CHECK_CONTAINS(err.msg, "gave up waiting after 150 ms");
  pte_data_writer_destroy(&holder.base);
  CHECK_OK(pte_prepare_file(in, out, &fo, NULL, &err));
  CHECK(exists(out));
  free(bytes);
}

TEST(stale_temps_removed_and_in_place) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  size_t size = 0;
  uint8_t *bytes = build_model(&size, false, 0, 0);
  CHECK(bytes);
  const char *dir = fresh_dir("prep_stale");
  char in[1200];
  snprintf(in, sizeof in, "%s", path_in(dir, "model.pte"));
  CHECK_EQ_INT(test_write_file(in, bytes, size), 0);
  /* leftovers of killed writers of model.pte, plus files that must stay */
  CHECK_EQ_INT(test_write_file(path_in(dir, ".model.pte.999999.3.tmp"), "x", 1), 0);
  CHECK_EQ_INT(test_write_file(path_in(dir, ".model.pte.12.0.tmp"), "x", 1), 0);
  CHECK_EQ_INT(test_write_file(path_in(dir, ".pte-spool.999999.abcdef"), "x", 1), 0);
  CHECK_EQ_INT(test_write_file(path_in(dir, ".other.pte.1.2.tmp"), "x", 1), 0);
  CHECK_EQ_INT(test_write_file(path_in(dir, ".model.pte.x.2.tmp"), "x", 1), 0);
  pte_error_info err;
  pte_prepare_report rep;
  float x[32], y0[32], y1[32];
  for (int i = 0; i < 32; i++) x[i] = (float)i / 8.0f;
  CHECK_OK(packing_model_run(bytes, size, 32, x, y0, NULL, &err));
  pte_status ps = pte_prepare_file(in, in, NULL, &rep, &err); /* in place */
  CHECK_MSG(ps == PTE_OK, "in place: %s", err.msg);
  CHECK(rep.changed);
  char listing[4096];
  list_dir(dir, listing, sizeof listing);
  CHECK_STR(listing, ".model.pte.x.2.tmp .other.pte.1.2.tmp model.pte ");
  size_t n = 0;
  uint8_t *prepared = test_read_file(in, &n);
  CHECK(prepared);
  CHECK_EQ_INT(n, rep.size_after);
  packing_reset();
  CHECK_OK(packing_model_run(prepared, n, 32, x, y1, NULL, &err));
  CHECK_EQ_INT(packing_stats.packs, 0);
  CHECK_EQ_INT(packing_stats.direct, 3);
  CHECK(memcmp(y0, y1, sizeof y0) == 0);
  free(prepared);
  free(bytes);
}

/* ---- values larger than one write piece ------------------------------------------------------ */

static void register_passthrough(void) {
  if (!pte_get_backend("TestPassthrough")) pte_register_backend("TestPassthrough", pte_prepare_passthrough_backend());
}

/* Forwards to a memory writer and records the largest single write. */
typedef struct size_spy {
  pte_data_writer base;
  pte_memory_writer *inner;
  size_t max_write;
  uint64_t bytes, writes;
} size_spy;

static pte_status spy_write(pte_data_writer *self, const void *data, size_t size, uint64_t off, pte_error_info *err) {
  size_spy *w = (size_spy *)self;
  if (size > w->max_write) w->max_write = size;
  w->bytes += size;
  w->writes++;
  return pte_data_writer_write(&w->inner->base, data, size, off, err);
}
static pte_status spy_set_size(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  return pte_data_writer_set_size(&((size_spy *)self)->inner->base, size, err);
}
static pte_status spy_publish(pte_data_writer *self, pte_error_info *err) {
  return pte_data_writer_publish(&((size_spy *)self)->inner->base, err);
}
static void spy_destroy(pte_data_writer *self) { (void)self; }
static const pte_data_writer_vtable k_spy_vt = {
    .write = spy_write, .set_size = spy_set_size, .publish = spy_publish, .destroy = spy_destroy};

/* Values are written in pieces of at most 1 MiB (each prefaulted), whether placed at their final
 * offset or streamed from the spool through the (default 4 MiB) buffer; a failure at any piece
 * (memory writer, values placed at their final offset) publishes nothing. */
TEST(fault_every_operation_large_values) {
  packing_reset();
  CHECK_OK(packing_backend_register());
  register_passthrough();
  size_t size = 0;
  const size_t blob = ((size_t)2 << 20) + 100; /* 3 pieces each */
  uint8_t *in = build_model(&size, true, 2, blob);
  CHECK(in);
  uint8_t *first = NULL;
  size_t first_size = 0;
  for (int speculate = 0; speculate < 2; speculate++) {
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, in, size);
    pte_memory_writer mw;
    pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
    size_spy spy = {{&k_spy_vt}, &mw, 0, 0, 0};
    pte_prepare_options opt;
    memset(&opt, 0, sizeof opt);
    opt.read_back = speculate ? mem_read_back : NULL;
    opt.read_back_ctx = &mw;
    pte_prepare_report rep;
    pte_error_info err;
    CHECK_OK(pte_initialize_and_save_backend_data_ex(&bl.base, &spy.base, NULL, NULL, &opt, &rep, &err));
    CHECK(pte_memory_writer_published(&mw));
    CHECK_EQ_INT(rep.values_in_place > 0, speculate);
    CHECK_MSG(spy.max_write <= ((size_t)1 << 20), "speculate %d: a write of %zu bytes", speculate, spy.max_write);
    CHECK(spy.bytes >= 2 * blob);
    size_t n = 0;
    const uint8_t *d = pte_memory_writer_data(&mw, &n);
    if (!first) { /* spooled on the heap, written from there */
      first = (uint8_t *)malloc(n);
      memcpy(first, d, n);
      first_size = n;
    } else { /* placed at the final offsets: the same bytes */
      CHECK(n == first_size && memcmp(d, first, n) == 0);
    }
    pte_data_writer_destroy(&mw.base);
  }
  free(first);
  { /* the full rebuild writes in pieces too */
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, in, size);
    pte_memory_writer mw;
    pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
    size_spy spy = {{&k_spy_vt}, &mw, 0, 0, 0};
    pte_prepare_options opt;
    memset(&opt, 0, sizeof opt);
    opt.force_rebuild = true;
    pte_prepare_report rep;
    pte_error_info err;
    CHECK_OK(pte_initialize_and_save_backend_data_ex(&bl.base, &spy.base, NULL, NULL, &opt, &rep, &err));
    CHECK(rep.rebuilt);
    CHECK_MSG(spy.max_write <= ((size_t)1 << 20), "rebuild: a write of %zu bytes", spy.max_write);
    CHECK(spy.bytes >= 2 * blob);
    size_t n = 0;
    const uint8_t *d = pte_memory_writer_data(&mw, &n);
    pte_buffer_loader ob;
    pte_buffer_loader_init(&ob, d, n);
    pte_program p;
    CHECK_OK(pte_program_load(&ob.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
    pte_program_destroy(&p);
    pte_data_writer_destroy(&mw.base);
  }
  fault_sweep_memory(in, size, false, true, true);
  free(in);
}

/* A durable pte_prepare_file of a file larger than the early-writeback step, with values that are
 * several write pieces long and start at no particular page offset: every replaced blob is the
 * envelope + exactly the input's bytes, everything else is unchanged. */
TEST(large_values_file) {
  packing_reset();
  register_passthrough();
  size_t size = 0;
  const size_t blob = ((size_t)3 << 20) + 777;
  uint8_t *bytes = build_model(&size, true, 6, blob);
  CHECK(bytes);
  const char *dir = fresh_dir("prep_large");
  const char *in = path_in(dir, "in.pte");
  const char *out = path_in(dir, "out.pte");
  CHECK_EQ_INT(test_write_file(in, bytes, size), 0);
  pte_prepare_file_options fo;
  memset(&fo, 0, sizeof fo);
  pte_file_writer_options_init(&fo.file); /* fsync on */
  const char *only[1] = {"TestPassthrough"};
  fo.prepare.backends = only;
  fo.prepare.n_backends = 1;
  pte_prepare_report rep;
  pte_error_info err;
  pte_status ps = pte_prepare_file(in, out, &fo, &rep, &err);
  CHECK_MSG(ps == PTE_OK, "%s", err.msg);
  CHECK(!rep.rebuilt);
  CHECK_EQ_INT(rep.values_in_place, 6);
  CHECK_EQ_INT(rep.values_moved, 0);
  CHECK_EQ_INT(rep.bytes_replaced, 6 * (blob + PTE_PREPARED_HEADER_SIZE));
  CHECK(rep.size_after > ((uint64_t)16 << 20));
  size_t out_size = 0;
  uint8_t *ob = test_read_file(out, &out_size);
  CHECK(ob);
  CHECK_EQ_INT(out_size, rep.size_after);
  pte_buffer_loader bi, bo;
  pte_buffer_loader_init(&bi, bytes, size);
  pte_buffer_loader_init(&bo, ob, out_size);
  pte_program pi, po;
  CHECK_OK(pte_program_load(&bi.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &pi, &err));
  CHECK_OK(pte_program_load(&bo.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &po, &err));
  CHECK_EQ_INT(pte_program_num_segments(&pi), pte_program_num_segments(&po));
  int wrapped = 0;
  for (size_t i = 0; i < pte_program_num_segments(&pi); i++) {
    pte_freeable_buffer a, b;
    CHECK_OK(pte_program_load_segment(&pi, i, NULL, &a));
    CHECK_OK(pte_program_load_segment(&po, i, NULL, &b));
    pte_prepared_info info;
    if (pte_prepared_envelope_check(b.data, b.size, "TestPassthrough", 1, "passthrough", 11, &info, NULL) == PTE_OK) {
      wrapped++;
      CHECK_EQ_INT(a.size, blob);
      CHECK_EQ_INT(info.payload_size, blob);
      CHECK_MSG(memcmp(info.payload, a.data, blob) == 0, "segment %zu: payload differs from the input blob", i);
    } else {
      CHECK_MSG(a.size == b.size && (a.size == 0 || memcmp(a.data, b.data, a.size) == 0), "segment %zu changed", i);
    }
    pte_freeable_buffer_free(&a);
    pte_freeable_buffer_free(&b);
  }
  CHECK_EQ_INT(wrapped, 6);
  pte_program_destroy(&pi);
  pte_program_destroy(&po);
  char listing[4096];
  list_dir(dir, listing, sizeof listing);
  CHECK_STR(listing, "in.pte out.pte ");
  free(ob);
  free(bytes);
}

/* ---- the CLI: report, JSON, and SIGKILL at random points --------------------------------------- */

static int run_cli(const char *const *args, int *status) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int devnull = open("/dev/null", 1);
    if (devnull >= 0) {
      dup2(devnull, 1);
      dup2(devnull, 2);
    }
    execv(args[0], (char *const *)args);
    _exit(127);
  }
  if (status) {
    waitpid(pid, status, 0);
    return 0;
  }
  return pid;
}

TEST(cli_report_json) {
  const char *cli = getenv("PTE_CLI");
  CHECK(cli);
  size_t size = 0;
  uint8_t *bytes = build_model(&size, true, 2, 4096);
  CHECK(bytes);
  const char *dir = fresh_dir("prep_cli");
  const char *in = path_in(dir, "in.pte");
  CHECK_EQ_INT(test_write_file(in, bytes, size), 0);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' prepare '%s' -o '%s/out.pte' --passthrough TestPassthrough --json", cli, in, dir);
  int rc = -1;
  char *o = test_run_capture(cmd, &rc);
  CHECK(o);
  CHECK_MSG(rc == 0, "exit %d: %s", rc, o);
  CHECK_CONTAINS(o, "\"ok\": true");
  CHECK_CONTAINS(o, "\"changed\": true");
  CHECK_CONTAINS(o, "\"id\": \"TestPassthrough\"");
  CHECK_CONTAINS(o, "\"blobs_replaced\": 2");
  CHECK_CONTAINS(o, "\"id\": \"TestPacking\",\n      \"state\": \"not registered\"");
  CHECK_CONTAINS(o, "\"id\": \"QnnBackend\",\n      \"state\": \"not registered\"");
  CHECK_CONTAINS(o, "\"bytes_replaced\": 8448");
  free(o);
  /* text report */
  snprintf(cmd, sizeof cmd, "'%s' prepare '%s' -o '%s/out2.pte' --passthrough TestPassthrough", cli, in, dir);
  o = test_run_capture(cmd, &rc);
  CHECK(o && rc == 0);
  CHECK_CONTAINS(o, "TestPassthrough      prepared: 2 blobs and 0 named values replaced (8192 -> 8448 bytes)");
  CHECK_CONTAINS(o, "QnnBackend           not registered: copied unchanged [1 delegate, 1 blob]");
  CHECK_CONTAINS(o, "layout: segment table patched in place");
  free(o);
  /* usage errors */
  snprintf(cmd, sizeof cmd, "'%s' prepare '%s' 2>&1", cli, in);
  o = test_run_capture(cmd, &rc);
  CHECK_EQ_INT(rc, 2);
  CHECK_CONTAINS(o, "give -o OUT or --in-place");
  free(o);
  /* a bad input: exit 1, nothing written */
  snprintf(cmd, sizeof cmd, "'%s' prepare /dev/null -o '%s/bad.pte' 2>&1", cli, dir);
  o = test_run_capture(cmd, &rc);
  CHECK_EQ_INT(rc, 1);
  CHECK_CONTAINS(o, "pte prepare: InvalidProgram");
  free(o);
  CHECK(!exists(path_in(dir, "bad.pte")));
  free(bytes);
}

static unsigned rnd(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return (*state >> 16) & 0x7fff;
}

TEST(sigkill_real_prepare) {
  const char *cli = getenv("PTE_CLI");
  CHECK(cli);
  size_t size = 0;
  uint8_t *bytes = build_model(&size, true, 24, 2 << 20); /* ~48 MiB of blobs */
  CHECK(bytes);
  const char *dir = fresh_dir("prep_kill");
  char in[1200], out[1200], ref[1200], inplace[1200];
  snprintf(in, sizeof in, "%s", path_in(dir, "in.pte"));
  snprintf(out, sizeof out, "%s", path_in(dir, "out.pte"));
  snprintf(ref, sizeof ref, "%s", path_in(dir, "ref.pte"));
  snprintf(inplace, sizeof inplace, "%s", path_in(dir, "inplace.pte"));
  CHECK_EQ_INT(test_write_file(in, bytes, size), 0);
  const char *ref_args[] = {cli, "prepare", in, "-o", ref, "--passthrough", "TestPassthrough", "-q", NULL};
  int st = 0;
  uint64_t t0 = now_ms();
  CHECK(run_cli(ref_args, &st) == 0);
  uint64_t dur = now_ms() - t0;
  CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "reference run failed");
  size_t ref_size = 0;
  uint8_t *ref_bytes = test_read_file(ref, &ref_size);
  CHECK(ref_bytes && ref_size > size);
  if (dur < 5) dur = 5;
  unsigned seed = 12345;
  int killed = 0, completed = 0, absent = 0, leftovers = 0;
  const int rounds = 16;
  for (int r = 0; r < rounds; r++) {
    unlink(out);
    bool in_place = (r % 4) == 3;
    if (in_place) CHECK_EQ_INT(test_write_file(inplace, bytes, size), 0);
    const char *args_out[] = {cli, "prepare", in, "-o", out, "--passthrough", "TestPassthrough", "-q", NULL};
    const char *args_inp[] = {cli, "prepare", inplace, "--in-place", "--passthrough", "TestPassthrough", "-q", NULL};
    pid_t pid = run_cli(in_place ? args_inp : args_out, NULL);
    CHECK(pid > 0);
    /* spread over [0, 1.6 x the reference run]: early kills, kills while streaming, around
     * publish, and some runs that complete */
    unsigned delay = (unsigned)((dur * 16 / 10) * (unsigned)r / rounds) + rnd(&seed) % 5;
    /* wait for the delay, or less when the run completes first; a completed run also tells how
     * long a run takes now (the reference run may have been slowed by a busy machine), so the
     * next delays are spread over the real duration */
    uint64_t t_spawn = now_ms();
    bool exited = false;
    while (now_ms() - t_spawn < delay) {
      if (waitpid(pid, &st, WNOHANG) == pid) {
        exited = true;
        break;
      }
      sleep_ms(1);
    }
    if (exited) {
      uint64_t took = now_ms() - t_spawn;
      if (took < dur) dur = took < 5 ? 5 : took;
    } else {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
    }
    if (WIFSIGNALED(st)) killed++;
    CHECK_MSG(file_equals(in, bytes, size), "round %d: the original changed", r);
    char after[4096];
    list_dir(dir, after, sizeof after);
    if (strstr(after, ".tmp")) leftovers++;
    const char *dest = in_place ? inplace : out;
    if (!exists(dest)) {
      CHECK_MSG(!in_place, "round %d: in-place file vanished", r);
      absent++;
    } else if (in_place) {
      CHECK_MSG(file_equals(dest, bytes, size) || file_equals(dest, ref_bytes, ref_size),
                "round %d: in-place file is neither the original nor the prepared one", r);
      completed += file_equals(dest, ref_bytes, ref_size);
    } else {
      CHECK_MSG(file_equals(dest, ref_bytes, ref_size), "round %d: destination exists but is incomplete", r);
      completed++;
    }
  }
  fprintf(stderr, "  sigkill: %d rounds, %d killed, %d absent, %d complete (reference run %llu ms)\n", rounds, killed,
          absent, completed, (unsigned long long)dur);
  CHECK(killed >= rounds / 4);
  fprintf(stderr, "  temp files left behind by a killed run: seen after %d rounds\n", leftovers);
  CHECK(killed < 4 || leftovers > 0); /* the cleanup (by the next run) is really exercised */
  /* the next prepare of each destination removes the leftovers of the killed ones */
  const char *again_out[] = {cli, "prepare", in, "-o", out, "--passthrough", "TestPassthrough", "-q", NULL};
  CHECK(run_cli(again_out, &st) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  CHECK(file_equals(out, ref_bytes, ref_size));
  const char *again_inp[] = {cli, "prepare", inplace, "--in-place", "--passthrough", "TestPassthrough", "-q", NULL};
  CHECK(run_cli(again_inp, &st) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  char listing[4096];
  list_dir(dir, listing, sizeof listing);
  CHECK_STR(listing, "in.pte inplace.pte out.pte ref.pte ");
  free(ref_bytes);
  free(bytes);
}

int main(void) {
  RUN(fault_every_operation_memory);
  RUN(fault_every_operation_file);
  RUN(real_write_failure_rlimit);
  RUN(lock_contention);
  RUN(stale_temps_removed_and_in_place);
  RUN(cli_report_json);
  RUN(sigkill_real_prepare);
  RUN(fault_every_operation_large_values);
  RUN(large_values_file);
  return test_summary();
}
