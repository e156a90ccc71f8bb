#define _POSIX_C_SOURCE 200809L
/* Data loaders: file loader, mmap loader (both strategies), window loader, heap realloc. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pte/data_loader.h"
#include "pte/io.h"
#include "pte/named_data_map.h"
#include "pte/program.h"
#include "test.h"

static const char *const kFiles[] = {"arduino_AddModel.pte", "upstream_android_xor.pte",
                                     "module_test_bundled_program.bpte",
                                     "upstream_android_xor.ptd", "djl_stress_mlp.pte"};
#define N_FILES (sizeof kFiles / sizeof kFiles[0])

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* Ranges to compare for a file of `n` bytes: whole file, head, tail, straddling pages, odd
 * offsets. Entries past the end are skipped by the callers. */
static void ranges_for(size_t n, size_t off[8], size_t len[8]) {
  size_t o[8] = {0, 0, n > 1 ? n - 1 : 0, 3, 8, 4095, 4097, n / 3};
  size_t l[8] = {n, 64, n > 0 ? 1 : 0, 13, 32, 2, 8191, n / 3};
  memcpy(off, o, sizeof o);
  memcpy(len, l, sizeof l);
}

/* ------------------------------------------------------------------ file loader */
TEST(file_loader_matches_plain_read) {
  const size_t aligns[] = {0, 1, 8, 16, 64, 4096};
  for (size_t f = 0; f < N_FILES; ++f) {
    size_t n = 0;
    uint8_t *ref = test_read_corpus(kFiles[f], &n);
    CHECK(ref);
    for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; ++a) {
      pte_file_loader l;
      pte_error_info err = {0};
      CHECK_OK(pte_file_loader_open(&l, test_corpus_path(kFiles[f]), aligns[a], &err));
      size_t want_align = aligns[a] ? aligns[a] : 64; /* the documented default (pte/io.h) */
      CHECK_EQ_INT(l.alignment, want_align);
      uint64_t sz = 0;
      CHECK_OK(pte_data_loader_size(&l.base, &sz));
      CHECK_EQ_INT(sz, n);
      size_t off[8], len[8];
      ranges_for(n, off, len);
      for (int r = 0; r < 8; ++r) {
        if (off[r] + len[r] > n || len[r] == 0) continue;
        pte_freeable_buffer b;
        CHECK_OK(pte_data_loader_load(&l.base, off[r], len[r], NULL, &b));
        CHECK(b.data != NULL);
        CHECK_EQ_INT(b.size, len[r]);
        CHECK(b.free_fn != NULL);
        CHECK_MSG((uintptr_t)b.data % want_align == 0, "%s: buffer %p not %zu-aligned", kFiles[f],
                  b.data, want_align);
        CHECK_MSG(memcmp(b.data, ref + off[r], len[r]) == 0, "%s [%zu,+%zu) differs", kFiles[f],
                  off[r], len[r]);
        pte_freeable_buffer_free(&b);
        CHECK(b.data == NULL);
        /* load_into straight into a caller buffer */
        uint8_t *dst = malloc(len[r] + 1);
        CHECK(dst);
        dst[len[r]] = 0xA5;
        CHECK_OK(pte_data_loader_load_into(&l.base, off[r], len[r], NULL, dst + 0));
        CHECK(memcmp(dst, ref + off[r], len[r]) == 0);
        CHECK_EQ_INT(dst[len[r]], 0xA5); /* nothing written past the range */
        free(dst);
      }
      pte_file_loader_close(&l);
      CHECK_EQ_INT(l.fd, -1);
    }
    free(ref);
  }
}

TEST(file_loader_ranges_at_and_past_end) {
  size_t n = 0;
  uint8_t *ref = test_read_corpus("arduino_AddModel.pte", &n);
  CHECK(ref);
  CHECK_EQ_INT(n, 1156);
  pte_file_loader l;
  CHECK_OK(pte_file_loader_open(&l, test_corpus_path("arduino_AddModel.pte"), 0, NULL));
  pte_freeable_buffer b;
  /* last 4 bytes: the constant segment (float 1.0) */
  CHECK_OK(pte_data_loader_load(&l.base, 1152, 4, NULL, &b));
  CHECK(memcmp(b.data, ref + 1152, 4) == 0);
  pte_freeable_buffer_free(&b);
  /* size 0: {NULL, 0}, also exactly at the end */
  CHECK_OK(pte_data_loader_load(&l.base, 10, 0, NULL, &b));
  CHECK(b.data == NULL && b.size == 0 && b.free_fn == NULL);
  CHECK_OK(pte_data_loader_load(&l.base, 1156, 0, NULL, &b));
  CHECK(b.data == NULL && b.size == 0);
  CHECK_OK(pte_data_loader_load_into(&l.base, 1156, 0, NULL, NULL));
  /* one byte past the end */
  CHECK_STATUS(pte_data_loader_load(&l.base, 1152, 5, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_data_loader_load(&l.base, 0, 1157, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_data_loader_load(&l.base, 1157, 0, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  uint8_t tmp[8];
  CHECK_STATUS(pte_data_loader_load_into(&l.base, 1155, 2, NULL, tmp), PTE_ERR_INVALID_ARGUMENT);
  /* overflow of offset + size */
  CHECK_STATUS(pte_data_loader_load(&l.base, UINT64_MAX, 2, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_data_loader_load(&l.base, 8, SIZE_MAX, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  pte_file_loader_close(&l);
  pte_file_loader_close(&l); /* twice is harmless */
  free(ref);
}

TEST(file_loader_open_errors) {
  pte_file_loader l;
  pte_error_info err = {0};
  const char *missing = test_tmp_path("loaders_definitely_missing.pte");
  unlink(missing);
  CHECK_STATUS(pte_file_loader_open(&l, missing, 0, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_EQ_INT(err.status, PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "loaders_definitely_missing.pte");
  CHECK_CONTAINS(err.msg, "no such file");
  CHECK_EQ_INT(l.fd, -1);
  pte_file_loader_close(&l);

  /* a directory */
  const char *corpus_dir = getenv("PTE_CORPUS");
  CHECK(corpus_dir);
  CHECK_STATUS(pte_file_loader_open(&l, corpus_dir, 0, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "is a directory");

  /* a component that is a file */
  char path[1024];
  snprintf(path, sizeof path, "%s/x", test_corpus_path("arduino_AddModel.pte"));
  CHECK_STATUS(pte_file_loader_open(&l, path, 0, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "not a directory");

  /* bad alignment */
  const char *ok = test_corpus_path("arduino_AddModel.pte");
  CHECK_STATUS(pte_file_loader_open(&l, ok, 3, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "power of two");
  CHECK_STATUS(pte_file_loader_open(&l, ok, 24, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_file_loader_open(&l, NULL, 0, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_file_loader_open(NULL, ok, 0, &err), PTE_ERR_INVALID_ARGUMENT);

  /* permission denied (meaningless for root, who bypasses file modes) */
  if (geteuid() != 0) {
    const char *p = test_tmp_path("loaders_noperm.bin");
    CHECK(test_write_file(p, "abcd", 4) == 0);
    CHECK(chmod(p, 0) == 0);
    CHECK_STATUS(pte_file_loader_open(&l, p, 0, &err), PTE_ERR_ACCESS_FAILED);
    CHECK_CONTAINS(err.msg, "permission denied");
    chmod(p, 0600);
    unlink(p);
  }
}

TEST(file_loader_from_fd_and_uri) {
  size_t n = 0;
  uint8_t *ref = test_read_corpus("upstream_android_xor.ptd", &n);
  CHECK(ref);
  int fd = open(test_corpus_path("upstream_android_xor.ptd"), O_RDONLY);
  CHECK(fd >= 0);
  pte_file_loader l;
  pte_error_info err = {0};
  CHECK_OK(pte_file_loader_from_fd(&l, fd, 32, &err));
  CHECK(l.fd != fd); /* duplicated */
  /* the caller may close its own descriptor */
  pte_file_loader l2;
  char uri[64];
  snprintf(uri, sizeof uri, "fd:///%d", fd);
  CHECK_OK(pte_file_loader_open_uri(&l2, uri, 0, &err));
  close(fd);
  pte_freeable_buffer b;
  CHECK_OK(pte_data_loader_load(&l.base, 0, n, NULL, &b));
  CHECK((uintptr_t)b.data % 32 == 0);
  CHECK(memcmp(b.data, ref, n) == 0);
  pte_freeable_buffer_free(&b);
  CHECK_OK(pte_data_loader_load(&l2.base, 8, 40, NULL, &b));
  CHECK(memcmp(b.data, ref + 8, 40) == 0);
  pte_freeable_buffer_free(&b);
  uint64_t sz = 0;
  CHECK_OK(pte_data_loader_size(&l2.base, &sz));
  CHECK_EQ_INT(sz, 760);
  pte_file_loader_close(&l);
  pte_file_loader_close(&l2);

  /* a plain path through the URI entry point */
  CHECK_OK(pte_file_loader_open_uri(&l, test_corpus_path("upstream_android_xor.ptd"), 0, &err));
  CHECK_EQ_INT(l.file_size, 760);
  pte_file_loader_close(&l);

  /* errors */
  CHECK_STATUS(pte_file_loader_from_fd(&l, -1, 0, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_file_loader_from_fd(&l, fd /* now closed */, 0, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "bad file descriptor");
  CHECK_STATUS(pte_file_loader_open_uri(&l, "fd://3", 0, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "malformed fd URI");
  CHECK_STATUS(pte_file_loader_open_uri(&l, "fd:///", 0, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_file_loader_open_uri(&l, "fd:///12x", 0, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_file_loader_open_uri(&l, "fd:///99999999999", 0, &err),
               PTE_ERR_INVALID_ARGUMENT);
  free(ref);
}

TEST(file_loader_short_read_is_access_failed) {
  const char *p = test_tmp_path("loaders_shrink.bin");
  uint8_t data[3000];
  for (size_t i = 0; i < sizeof data; ++i) data[i] = (uint8_t)(i * 7);
  CHECK(test_write_file(p, data, sizeof data) == 0);
  pte_file_loader l;
  CHECK_OK(pte_file_loader_open(&l, p, 0, NULL));
  CHECK(truncate(p, 1000) == 0); /* the file shrinks after open: size() still says 3000 */
  uint64_t sz = 0;
  CHECK_OK(pte_data_loader_size(&l.base, &sz));
  CHECK_EQ_INT(sz, 3000);
  pte_freeable_buffer b;
  CHECK_OK(pte_data_loader_load(&l.base, 0, 1000, NULL, &b));
  CHECK(memcmp(b.data, data, 1000) == 0);
  pte_freeable_buffer_free(&b);
  CHECK_STATUS(pte_data_loader_load(&l.base, 500, 1000, NULL, &b), PTE_ERR_ACCESS_FAILED);
  CHECK(b.data == NULL);
  uint8_t dst[100];
  CHECK_STATUS(pte_data_loader_load_into(&l.base, 2000, 100, NULL, dst), PTE_ERR_ACCESS_FAILED);
  pte_file_loader_close(&l);
  /* reads after close fail instead of touching a stale descriptor */
  CHECK_STATUS(pte_data_loader_load_into(&l.base, 0, 10, NULL, dst), PTE_ERR_ACCESS_FAILED);
  unlink(p);
}

TEST(file_loader_empty_file) {
  const char *p = test_tmp_path("loaders_empty.bin");
  CHECK(test_write_file(p, "", 0) == 0);
  pte_file_loader l;
  CHECK_OK(pte_file_loader_open(&l, p, 0, NULL));
  uint64_t sz = 1;
  CHECK_OK(pte_data_loader_size(&l.base, &sz));
  CHECK_EQ_INT(sz, 0);
  pte_freeable_buffer b;
  CHECK_OK(pte_data_loader_load(&l.base, 0, 0, NULL, &b));
  CHECK(b.data == NULL);
  CHECK_STATUS(pte_data_loader_load(&l.base, 0, 1, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  pte_file_loader_close(&l);
  unlink(p);
}

/* ------------------------------------------------------------------ mmap loader */
static void check_mmap_file(const char *name, unsigned flags) {
  size_t n = 0;
  uint8_t *ref = test_read_corpus(name, &n);
  CHECK(ref);
  pte_mmap_loader l;
  pte_error_info err = {0};
  CHECK_OK(pte_mmap_loader_open_ex(&l, test_corpus_path(name), PTE_MLOCK_NONE, flags, &err));
  CHECK_EQ_INT(l.file_size, n);
  if (flags == PTE_MMAP_WHOLE_FILE) CHECK(l.map != NULL && l.map_size == n);
  else CHECK(l.map == NULL);
  const size_t ps = page_size();
  size_t off[8], len[8];
  ranges_for(n, off, len);
  for (int r = 0; r < 8; ++r) {
    if (off[r] + len[r] > n || len[r] == 0) continue;
    pte_freeable_buffer b;
    CHECK_OK(pte_data_loader_load(&l.base, off[r], len[r], NULL, &b));
    CHECK_EQ_INT(b.size, len[r]);
    CHECK_MSG(memcmp(b.data, ref + off[r], len[r]) == 0, "%s [%zu,+%zu) differs", name, off[r],
              len[r]);
    /* in-memory alignment == file offset alignment modulo the page size */
    CHECK_EQ_INT((uintptr_t)b.data % ps, off[r] % ps);
    if (flags == PTE_MMAP_WHOLE_FILE) {
      CHECK(b.free_fn == NULL);
      CHECK(b.data == l.map + off[r]);
    } else {
      CHECK(b.free_fn != NULL);
    }
    pte_freeable_buffer_free(&b);
    uint8_t *dst = malloc(len[r]);
    CHECK(dst);
    CHECK_OK(pte_data_loader_load_into(&l.base, off[r], len[r], NULL, dst));
    CHECK(memcmp(dst, ref + off[r], len[r]) == 0);
    free(dst);
  }
  pte_mmap_loader_close(&l);
  CHECK_EQ_INT(l.fd, -1);
  free(ref);
}

TEST(mmap_loader_matches_plain_read) {
  for (size_t f = 0; f < N_FILES; ++f) {
    check_mmap_file(kFiles[f], PTE_MMAP_WHOLE_FILE);
    if (test_current_failed) return;
    check_mmap_file(kFiles[f], PTE_MMAP_PER_LOAD);
    if (test_current_failed) return;
  }
}

TEST(mmap_loader_segment_alignment) {
  /* djl_stress_mlp.pte: segment base 6144 (128-aligned) -> 128-aligned in memory, both modes */
  for (unsigned flags = 0; flags <= 1; ++flags) {
    pte_mmap_loader l;
    CHECK_OK(pte_mmap_loader_open_ex(&l, test_corpus_path("djl_stress_mlp.pte"), PTE_MLOCK_NONE,
                                     flags, NULL));
    pte_freeable_buffer b;
    CHECK_OK(pte_data_loader_load(&l.base, 6144, 2702976, NULL, &b));
    CHECK((uintptr_t)b.data % 128 == 0);
    pte_freeable_buffer_free(&b);
    CHECK_OK(pte_data_loader_load(&l.base, 6144 + 4, 16, NULL, &b));
    CHECK((uintptr_t)b.data % 128 == 4);
    pte_freeable_buffer_free(&b);
    pte_mmap_loader_close(&l);
  }
}

TEST(mmap_loader_per_load_buffer_outlives_loader) {
  size_t n = 0;
  uint8_t *ref = test_read_corpus("upstream_android_xor.pte", &n);
  CHECK(ref);
  pte_mmap_loader l;
  CHECK_OK(pte_mmap_loader_open_ex(&l, test_corpus_path("upstream_android_xor.pte"),
                                   PTE_MLOCK_NONE, PTE_MMAP_PER_LOAD, NULL));
  pte_freeable_buffer a, b;
  CHECK_OK(pte_data_loader_load(&l.base, 13824, 8, NULL, &a));
  CHECK_OK(pte_data_loader_load(&l.base, 100, 5000, NULL, &b));
  pte_mmap_loader_close(&l);
  CHECK(memcmp(a.data, ref + 13824, 8) == 0);
  CHECK(memcmp(b.data, ref + 100, 5000) == 0);
  pte_freeable_buffer_free(&a);
  pte_freeable_buffer_free(&b);
  /* after close, new loads fail */
  CHECK_STATUS(pte_data_loader_load(&l.base, 0, 8, NULL, &a), PTE_ERR_ACCESS_FAILED);
  free(ref);
}

TEST(mmap_loader_ranges_and_errors) {
  for (unsigned flags = 0; flags <= 1; ++flags) {
    pte_mmap_loader l;
    pte_error_info err = {0};
    CHECK_OK(pte_mmap_loader_open_ex(&l, test_corpus_path("arduino_AddModel.pte"), PTE_MLOCK_NONE,
                                     flags, &err));
    pte_freeable_buffer b;
    CHECK_OK(pte_data_loader_load(&l.base, 1156, 0, NULL, &b));
    CHECK(b.data == NULL && b.size == 0);
    CHECK_OK(pte_data_loader_load(&l.base, 1155, 1, NULL, &b));
    pte_freeable_buffer_free(&b);
    CHECK_STATUS(pte_data_loader_load(&l.base, 1152, 5, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(pte_data_loader_load(&l.base, 1157, 0, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(pte_data_loader_load(&l.base, UINT64_MAX, 2, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
    uint8_t tmp[4];
    CHECK_STATUS(pte_data_loader_load_into(&l.base, 1154, 4, NULL, tmp), PTE_ERR_INVALID_ARGUMENT);
    pte_mmap_loader_close(&l);
  }
  pte_mmap_loader l;
  pte_error_info err = {0};
  const char *missing = test_tmp_path("loaders_missing_mmap.pte");
  unlink(missing);
  CHECK_STATUS(pte_mmap_loader_open(&l, missing, PTE_MLOCK_NONE, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "loaders_missing_mmap.pte");
  CHECK_CONTAINS(err.msg, "no such file");
  pte_mmap_loader_close(&l);
  CHECK_STATUS(pte_mmap_loader_open(&l, getenv("PTE_CORPUS"), PTE_MLOCK_NONE, &err),
               PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "is a directory");
  const char *ok = test_corpus_path("arduino_AddModel.pte");
  CHECK_STATUS(pte_mmap_loader_open(&l, ok, (pte_mlock_mode)7, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_mmap_loader_open_ex(&l, ok, PTE_MLOCK_NONE, 5, &err), PTE_ERR_INVALID_ARGUMENT);
  /* populate only makes sense for the whole-file mapping */
  CHECK_STATUS(pte_mmap_loader_open_ex(&l, ok, PTE_MLOCK_NONE, PTE_MMAP_PER_LOAD | PTE_MMAP_POPULATE, &err),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "conflicting flags");
  /* a populated whole-file mapping serves the same bytes as a plain read */
  {
    size_t n = 0;
    uint8_t *want = test_read_file(ok, &n);
    CHECK(want);
    CHECK_OK(pte_mmap_loader_open_ex(&l, ok, PTE_MLOCK_NONE, PTE_MMAP_WHOLE_FILE | PTE_MMAP_POPULATE, &err));
    CHECK(l.map != NULL);
    pte_freeable_buffer b;
    CHECK_OK(pte_data_loader_load(&l.base, 0, n, NULL, &b));
    CHECK(b.size == n && memcmp(b.data, want, n) == 0);
    pte_freeable_buffer_free(&b);
    pte_mmap_loader_close(&l);
    free(want);
  }
  CHECK_STATUS(pte_mmap_loader_open(&l, NULL, PTE_MLOCK_NONE, &err), PTE_ERR_INVALID_ARGUMENT);

  /* empty file: nothing to map, size-0 loads only */
  const char *p = test_tmp_path("loaders_empty_mmap.bin");
  CHECK(test_write_file(p, "", 0) == 0);
  CHECK_OK(pte_mmap_loader_open(&l, p, PTE_MLOCK_NONE, &err));
  CHECK(l.map == NULL);
  pte_freeable_buffer b;
  CHECK_OK(pte_data_loader_load(&l.base, 0, 0, NULL, &b));
  CHECK_STATUS(pte_data_loader_load(&l.base, 0, 1, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  pte_mmap_loader_close(&l);
  unlink(p);
}

TEST(mmap_loader_lock_modes) {
  size_t n = 0;
  uint8_t *ref = test_read_corpus("djl_spike_lin129.pte", &n);
  CHECK(ref);
  const pte_mlock_mode modes[] = {PTE_MLOCK, PTE_MLOCK_IGNORE_ERRORS, PTE_MADVISE};
  for (int m = 0; m < 3; ++m) {
    for (unsigned flags = 0; flags <= 1; ++flags) {
      pte_mmap_loader l;
      CHECK_OK(pte_mmap_loader_open_ex(&l, test_corpus_path("djl_spike_lin129.pte"), modes[m],
                                       flags, NULL));
      pte_freeable_buffer b;
      pte_status s = pte_data_loader_load(&l.base, 1280, 34048, NULL, &b);
      if (modes[m] == PTE_MLOCK) {
        CHECK(s == PTE_OK || s == PTE_ERR_NOT_SUPPORTED); /* depends on RLIMIT_MEMLOCK */
      } else {
        CHECK_OK(s);
      }
      if (s == PTE_OK) {
        CHECK(memcmp(b.data, ref + 1280, 34048) == 0);
        pte_freeable_buffer_free(&b);
      }
      pte_mmap_loader_close(&l);
    }
  }

  /* With RLIMIT_MEMLOCK 0 an unprivileged mlock fails: PTE_MLOCK reports NOT_SUPPORTED and
   * PTE_MLOCK_IGNORE_ERRORS still succeeds. Skipped when this process may lock anyway. */
  struct rlimit old;
  CHECK(getrlimit(RLIMIT_MEMLOCK, &old) == 0);
  struct rlimit zero = old;
  zero.rlim_cur = 0;
  if (setrlimit(RLIMIT_MEMLOCK, &zero) == 0) {
    int pfd = open(test_corpus_path("djl_spike_lin129.pte"), O_RDONLY);
    CHECK(pfd >= 0);
    void *probe = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, pfd, 0);
    int can_lock = probe != MAP_FAILED && mlock(probe, page_size()) == 0;
    if (probe != MAP_FAILED) munmap(probe, page_size());
    close(pfd);
    if (!can_lock) {
      for (unsigned flags = 0; flags <= 1; ++flags) {
        pte_mmap_loader l;
        CHECK_OK(pte_mmap_loader_open_ex(&l, test_corpus_path("djl_spike_lin129.pte"), PTE_MLOCK,
                                         flags, NULL));
        pte_freeable_buffer b;
        CHECK_STATUS(pte_data_loader_load(&l.base, 1280, 34048, NULL, &b), PTE_ERR_NOT_SUPPORTED);
        CHECK(b.data == NULL);
        pte_mmap_loader_close(&l);
        CHECK_OK(pte_mmap_loader_open_ex(&l, test_corpus_path("djl_spike_lin129.pte"),
                                         PTE_MLOCK_IGNORE_ERRORS, flags, NULL));
        CHECK_OK(pte_data_loader_load(&l.base, 1280, 34048, NULL, &b));
        CHECK(memcmp(b.data, ref + 1280, 34048) == 0);
        pte_freeable_buffer_free(&b);
        pte_mmap_loader_close(&l);
      }
    } else {
      printf("  (mlock allowed despite RLIMIT_MEMLOCK=0: NOT_SUPPORTED path not exercised)\n");
    }
    setrlimit(RLIMIT_MEMLOCK, &old);
  }
  free(ref);
}

/* ------------------------------------------------------------------ window loader */
/* A loader without load_into, to check the window falls back through the inner's load. */
typedef struct {
  pte_data_loader base;
  pte_buffer_loader inner;
} no_into_loader;
static pte_status ni_load(const pte_data_loader *self, uint64_t off, size_t size,
                          const pte_segment_info *info, pte_freeable_buffer *out) {
  return pte_data_loader_load(&((const no_into_loader *)self)->inner.base, off, size, info, out);
}
static pte_status ni_size(const pte_data_loader *self, uint64_t *out) {
  return pte_data_loader_size(&((const no_into_loader *)self)->inner.base, out);
}
static const pte_data_loader_vtable ni_vt = {ni_load, NULL, ni_size};

/* Records the last segment info and offset it saw. */
typedef struct {
  pte_data_loader base;
  pte_buffer_loader inner;
  uint64_t last_off;
  pte_segment_type last_type;
  size_t last_index;
} spy_loader;
static pte_status spy_load(const pte_data_loader *self, uint64_t off, size_t size,
                           const pte_segment_info *info, pte_freeable_buffer *out) {
  spy_loader *s = (spy_loader *)(uintptr_t)self;
  s->last_off = off;
  s->last_type = info->type;
  s->last_index = info->segment_index;
  return pte_data_loader_load(&s->inner.base, off, size, info, out);
}
static pte_status spy_size(const pte_data_loader *self, uint64_t *out) {
  return pte_data_loader_size(&((const spy_loader *)self)->inner.base, out);
}
static const pte_data_loader_vtable spy_vt = {spy_load, NULL, spy_size};

static void check_window_over(const pte_data_loader *inner, const uint8_t *ref) {
  pte_window_loader w;
  CHECK_OK(pte_window_loader_init(&w, inner, 64, 1696));
  uint64_t sz = 0;
  CHECK_OK(pte_data_loader_size(&w.base, &sz));
  CHECK_EQ_INT(sz, 1696);
  pte_freeable_buffer b;
  CHECK_OK(pte_data_loader_load(&w.base, 0, 1696, NULL, &b));
  CHECK(memcmp(b.data, ref + 64, 1696) == 0);
  CHECK(memcmp((const uint8_t *)b.data + 4, "ET12", 4) == 0);
  pte_freeable_buffer_free(&b);
  CHECK_OK(pte_data_loader_load(&w.base, 1664, 32, NULL, &b));
  CHECK(memcmp(b.data, ref + 64 + 1664, 32) == 0);
  pte_freeable_buffer_free(&b);
  uint8_t dst[100];
  CHECK_OK(pte_data_loader_load_into(&w.base, 1596, 100, NULL, dst));
  CHECK(memcmp(dst, ref + 64 + 1596, 100) == 0);
  CHECK_OK(pte_data_loader_load(&w.base, 1696, 0, NULL, &b));
  CHECK(b.data == NULL);
  CHECK_STATUS(pte_data_loader_load(&w.base, 1596, 101, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_data_loader_load(&w.base, 1697, 0, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_data_loader_load_into(&w.base, 1690, 7, NULL, dst), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_data_loader_load(&w.base, UINT64_MAX - 1, 4, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
}

TEST(window_loader_over_every_loader) {
  size_t n = 0;
  uint8_t *ref = test_read_corpus("module_test_bundled_program.bpte", &n);
  CHECK(ref);
  CHECK_EQ_INT(n, 4608);
  const char *path = test_corpus_path("module_test_bundled_program.bpte");

  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, ref, n);
  check_window_over(&bl.base, ref);
  if (test_current_failed) return;
  /* a view into the buffer, no copy */
  pte_window_loader w;
  CHECK_OK(pte_window_loader_init(&w, &bl.base, 64, 1696));
  pte_freeable_buffer b;
  CHECK_OK(pte_data_loader_load(&w.base, 0, 8, NULL, &b));
  CHECK(b.data == ref + 64);

  pte_file_loader fl;
  CHECK_OK(pte_file_loader_open(&fl, path, 0, NULL));
  check_window_over(&fl.base, ref);
  pte_file_loader_close(&fl);
  if (test_current_failed) return;

  for (unsigned flags = 0; flags <= 1; ++flags) {
    pte_mmap_loader ml;
    CHECK_OK(pte_mmap_loader_open_ex(&ml, path, PTE_MLOCK_NONE, flags, NULL));
    check_window_over(&ml.base, ref);
    if (test_current_failed) return;
    CHECK_OK(pte_window_loader_init(&w, &ml.base, 64, 1696));
    CHECK_OK(pte_data_loader_load(&w.base, 0, 1696, NULL, &b));
    CHECK((uintptr_t)b.data % 32 == 0); /* 32-aligned program stays 32-aligned in memory */
    pte_freeable_buffer_free(&b);
    pte_mmap_loader_close(&ml);
  }

  no_into_loader ni;
  ni.base.vt = &ni_vt;
  pte_buffer_loader_init(&ni.inner, ref, n);
  check_window_over(&ni.base, ref);
  if (test_current_failed) return;

  /* segment info and shifted offset reach the inner loader unchanged */
  spy_loader spy;
  spy.base.vt = &spy_vt;
  pte_buffer_loader_init(&spy.inner, ref, n);
  CHECK_OK(pte_window_loader_init(&w, &spy.base, 64, 1696));
  pte_segment_info info = {PTE_SEGMENT_CONSTANT, 3, NULL};
  CHECK_OK(pte_data_loader_load(&w.base, 1664, 4, &info, &b));
  CHECK_EQ_INT(spy.last_off, 64 + 1664);
  CHECK_EQ_INT(spy.last_type, PTE_SEGMENT_CONSTANT);
  CHECK_EQ_INT(spy.last_index, 3);

  /* init errors */
  CHECK_STATUS(pte_window_loader_init(&w, &bl.base, 64, 4608 - 63), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_window_loader_init(&w, &bl.base, 4609, 0), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_window_loader_init(&w, &bl.base, UINT64_MAX, 2), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_window_loader_init(&w, NULL, 0, 0), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(pte_window_loader_init(&w, &bl.base, 4608, 0)); /* empty window at the end */
  CHECK_STATUS(pte_data_loader_load(&w.base, 0, 1, NULL, &b), PTE_ERR_INVALID_ARGUMENT);
  /* nested windows compose */
  pte_window_loader w2;
  CHECK_OK(pte_window_loader_init(&w, &bl.base, 64, 1696));
  CHECK_OK(pte_window_loader_init(&w2, &w.base, 8, 32));
  CHECK_OK(pte_data_loader_load(&w2.base, 0, 4, NULL, &b));
  CHECK(memcmp(b.data, "eh00", 4) == 0);
  free(ref);
}

/* ------------------------------------------------------------------ heap realloc */
TEST(heap_realloc_grows_keeps_and_frees) {
  uint8_t *p = pte_heap_realloc(NULL, NULL, 0, 16);
  CHECK(p);
  for (int i = 0; i < 16; ++i) p[i] = (uint8_t)i;
  p = pte_heap_realloc(NULL, p, 16, 1 << 20);
  CHECK(p);
  for (int i = 0; i < 16; ++i) CHECK_EQ_INT(p[i], i);
  p[(1 << 20) - 1] = 7;
  p = pte_heap_realloc(NULL, p, 1 << 20, 8);
  CHECK(p);
  CHECK_EQ_INT(p[7], 7);
  CHECK(pte_heap_realloc(NULL, p, 8, 0) == NULL); /* frees (ASan would flag a leak) */
  CHECK(pte_heap_realloc(NULL, NULL, 0, 0) == NULL);
}

/* The names before the prefix alignment (pte_loader_*, pte_ndm_*, pte_pte_data_map) still compile
 * and reach the same functions. */
TEST(deprecated_names_still_work) {
  static const uint8_t bytes[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, bytes, sizeof bytes);
  uint64_t n = 0;
  CHECK_OK(pte_loader_size(&bl.base, &n));
  CHECK_EQ_INT(n, 10);
  uint8_t got[4] = {0};
  CHECK_OK(pte_loader_load_into(&bl.base, 3, 4, NULL, got));
  CHECK_EQ_INT(got[0], 3);
  CHECK_EQ_INT(got[3], 6);
  pte_freeable_buffer fb;
  CHECK_OK(pte_loader_load(&bl.base, 8, 2, NULL, &fb));
  CHECK_EQ_INT(fb.size, 2);
  CHECK_EQ_INT(((const uint8_t *)fb.data)[1], 9);
  pte_freeable_buffer_free(&fb);
  uint32_t keys = 99;
  CHECK_STATUS(pte_ndm_num_keys(NULL, &keys), PTE_ERR_NOT_FOUND); /* documented: a NULL map */
  pte_merged_data_map mm;
  pte_merged_data_map_init(&mm, NULL, NULL);
  CHECK_OK(pte_ndm_num_keys(&mm.base, &keys));
  CHECK_EQ_INT(keys, 0);
  CHECK_STATUS(pte_ndm_get_data(&mm.base, "w", &fb), PTE_ERR_NOT_FOUND);
  pte_program_data_map pdm;
  memset(&pdm, 0, sizeof pdm);
  pte_pte_data_map *old = &pdm;
  CHECK(old->program == NULL);
}

int main(void) {
  RUN(file_loader_matches_plain_read);
  RUN(file_loader_ranges_at_and_past_end);
  RUN(file_loader_open_errors);
  RUN(file_loader_from_fd_and_uri);
  RUN(file_loader_short_read_is_access_failed);
  RUN(file_loader_empty_file);
  RUN(mmap_loader_matches_plain_read);
  RUN(mmap_loader_segment_alignment);
  RUN(mmap_loader_per_load_buffer_outlives_loader);
  RUN(mmap_loader_ranges_and_errors);
  RUN(mmap_loader_lock_modes);
  RUN(window_loader_over_every_loader);
  RUN(heap_realloc_grows_keeps_and_frees);
  RUN(deprecated_names_still_work);
  return test_summary();
}
