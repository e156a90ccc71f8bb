#define _POSIX_C_SOURCE 200809L
/* pte_data_writer: memory writer (growable, fixed, limits) and file writer (temp + rename,
 * discard on destroy, replace rules, permissions, advisory lock across writers and processes). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pte/data_writer.h"
#include "pte/io.h"
#include "test.h"

/* ------------------------------------------------------------------ memory writer */
TEST(memory_writer_growable) {
  pte_memory_writer mw;
  CHECK_OK(pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0));
  pte_error_info err;
  CHECK_OK(pte_data_writer_write(&mw.base, "abcd", 4, 10, &err));
  CHECK_OK(pte_data_writer_write(&mw.base, "XY", 2, 0, &err));
  size_t n = 0;
  const uint8_t *d = pte_memory_writer_data(&mw, &n);
  CHECK_EQ_INT(n, 14);
  const uint8_t expect[14] = {'X', 'Y', 0, 0, 0, 0, 0, 0, 0, 0, 'a', 'b', 'c', 'd'};
  CHECK(memcmp(d, expect, 14) == 0);
  /* large write forces several growth steps */
  uint8_t big[100000];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 31);
  CHECK_OK(pte_data_writer_write(&mw.base, big, sizeof big, 14, &err));
  d = pte_memory_writer_data(&mw, &n);
  CHECK_EQ_INT(n, 100014);
  CHECK(memcmp(d + 14, big, sizeof big) == 0);
  CHECK(memcmp(d, expect, 14) == 0);
  /* set_size truncates; bytes past the end read as zero again when it grows */
  CHECK_OK(pte_data_writer_set_size(&mw.base, 12, &err));
  CHECK_OK(pte_data_writer_set_size(&mw.base, 16, &err));
  d = pte_memory_writer_data(&mw, &n);
  CHECK_EQ_INT(n, 16);
  CHECK(d[10] == 'a' && d[11] == 'b' && d[12] == 0 && d[15] == 0);
  CHECK(!pte_memory_writer_published(&mw));
  CHECK_OK(pte_data_writer_publish(&mw.base, &err));
  CHECK(pte_memory_writer_published(&mw));
  CHECK_STATUS(pte_data_writer_write(&mw.base, "z", 1, 0, &err), PTE_ERR_INVALID_STATE);
  pte_data_writer_destroy(&mw.base);
  pte_data_writer_destroy(&mw.base); /* idempotent */
}

TEST(memory_writer_limits) {
  pte_memory_writer mw;
  CHECK_OK(pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 100));
  pte_error_info err;
  CHECK_OK(pte_data_writer_write(&mw.base, "x", 1, 99, &err));
  CHECK_STATUS(pte_data_writer_write(&mw.base, "x", 1, 100, &err), PTE_ERR_OUT_OF_RESOURCES);
  CHECK_CONTAINS(err.msg, "limit");
  CHECK_STATUS(pte_data_writer_write(&mw.base, "x", 1, UINT64_MAX, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_data_writer_write(&mw.base, NULL, 1, 0, &err), PTE_ERR_INVALID_ARGUMENT);
  pte_data_writer_destroy(&mw.base);

  uint8_t buf[8];
  CHECK_OK(pte_memory_writer_init_fixed(&mw, buf, sizeof buf));
  CHECK_OK(pte_data_writer_write(&mw.base, "12345678", 8, 0, &err));
  CHECK_STATUS(pte_data_writer_write(&mw.base, "9", 1, 8, &err), PTE_ERR_OUT_OF_RESOURCES);
  CHECK(memcmp(buf, "12345678", 8) == 0);
  pte_data_writer_destroy(&mw.base);
  CHECK_STATUS(pte_memory_writer_init(NULL, pte_heap_realloc, NULL, 0), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_memory_writer_init(&mw, NULL, NULL, 0), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_data_writer_set_size(NULL, 1, &err), PTE_ERR_INVALID_ARGUMENT);
}

static void *failing_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  (void)ctx;
  (void)old_size;
  if (new_size == 0) {
    free(ptr);
    return NULL;
  }
  return NULL;
}

TEST(memory_writer_allocation_failure) {
  pte_memory_writer mw;
  CHECK_OK(pte_memory_writer_init(&mw, failing_realloc, NULL, 0));
  pte_error_info err;
  CHECK_STATUS(pte_data_writer_write(&mw.base, "x", 1, 0, &err), PTE_ERR_MEMORY_ALLOCATION_FAILED);
  pte_data_writer_destroy(&mw.base);
}

/* ------------------------------------------------------------------ file writer */
static char g_dir[512];

static const char *tmp_dir(void) {
  snprintf(g_dir, sizeof g_dir, "%s", test_tmp_path("writer_io"));
  mkdir(g_dir, 0777);
  return g_dir;
}

static const char *in_dir(const char *name) {
  static char buf[4][600];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", tmp_dir(), name);
  return buf[k];
}

/* Number of directory entries other than . and .. */
static int dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

static void clean_dir(void) {
  DIR *d = opendir(tmp_dir());
  if (!d) return;
  struct dirent *e;
  char p[1200];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
    unlink(p);
  }
  closedir(d);
}

static pte_file_writer_options fast_opts(void) {
  pte_file_writer_options o;
  pte_file_writer_options_init(&o);
  o.no_fsync = true;
  return o;
}

TEST(file_writer_publish) {
  clean_dir();
  const char *dest = in_dir("out.bin");
  pte_file_writer fw;
  pte_error_info err;
  pte_file_writer_options o;
  pte_file_writer_options_init(&o); /* with fsync */
  CHECK_OK(pte_file_writer_open(&fw, dest, &o, &err));
  CHECK_OK(pte_data_writer_write(&fw.base, "world", 5, 6, &err));
  CHECK_OK(pte_data_writer_write(&fw.base, "hello", 5, 0, &err));
  CHECK_OK(pte_data_writer_set_size(&fw.base, 16, &err));
  struct stat st;
  CHECK(stat(dest, &st) != 0); /* nothing visible before publish */
  CHECK_OK(pte_data_writer_publish(&fw.base, &err));
  CHECK_STATUS(pte_data_writer_write(&fw.base, "x", 1, 0, &err), PTE_ERR_INVALID_STATE);
  CHECK_STATUS(pte_data_writer_publish(&fw.base, &err), PTE_ERR_INVALID_STATE);
  pte_data_writer_destroy(&fw.base);
  size_t n = 0;
  uint8_t *d = test_read_file(dest, &n);
  CHECK(d);
  CHECK_EQ_INT(n, 16);
  CHECK(memcmp(d, "hello\0world\0\0\0\0\0", 16) == 0);
  free(d);
  CHECK_EQ_INT(dir_entries(tmp_dir()), 1); /* no temp or lock file left */
  clean_dir();
}

TEST(file_writer_discard) {
  clean_dir();
  const char *dest = in_dir("discard.bin");
  CHECK_EQ_INT(test_write_file(dest, "original", 8), 0);
  pte_file_writer fw;
  pte_error_info err;
  pte_file_writer_options o = fast_opts();
  CHECK_OK(pte_file_writer_open(&fw, dest, &o, &err));
  CHECK_OK(pte_data_writer_write(&fw.base, "partial", 7, 0, &err));
  CHECK_EQ_INT(dir_entries(tmp_dir()), 3); /* dest, temp, lock */
  pte_data_writer_destroy(&fw.base);       /* not published: discarded */
  CHECK_EQ_INT(dir_entries(tmp_dir()), 1);
  size_t n = 0;
  uint8_t *d = test_read_file(dest, &n);
  CHECK(d && n == 8 && memcmp(d, "original", 8) == 0);
  free(d);
  clean_dir();
}

TEST(file_writer_replace_rules) {
  clean_dir();
  const char *dest = in_dir("keep.bin");
  CHECK_EQ_INT(test_write_file(dest, "old", 3), 0);
  chmod(dest, 0640);
  pte_file_writer fw;
  pte_error_info err;
  pte_file_writer_options o = fast_opts();
  o.replace_existing = false;
  CHECK_STATUS(pte_file_writer_open(&fw, dest, &o, &err), PTE_ERR_INVALID_STATE);
  CHECK_CONTAINS(err.msg, "already exists");
  pte_data_writer_destroy(&fw.base);
  CHECK_EQ_INT(dir_entries(tmp_dir()), 1);
  /* replacing keeps the permission bits */
  o.replace_existing = true;
  CHECK_OK(pte_file_writer_open(&fw, dest, &o, &err));
  CHECK_OK(pte_data_writer_write(&fw.base, "new!", 4, 0, &err));
  CHECK_OK(pte_data_writer_publish(&fw.base, &err));
  pte_data_writer_destroy(&fw.base);
  struct stat st;
  CHECK(stat(dest, &st) == 0);
  CHECK_EQ_INT(st.st_mode & 0777, 0640);
  CHECK_EQ_INT(st.st_size, 4);
  /* not allowed to replace, and the destination appears while writing: publish refuses */
  const char *d2 = in_dir("late.bin");
  o.replace_existing = false;
  CHECK_OK(pte_file_writer_open(&fw, d2, &o, &err));
  CHECK_EQ_INT(test_write_file(d2, "someone else", 12), 0);
  CHECK_STATUS(pte_data_writer_publish(&fw.base, &err), PTE_ERR_INVALID_STATE);
  pte_data_writer_destroy(&fw.base);
  size_t n = 0;
  uint8_t *d = test_read_file(d2, &n);
  CHECK(d && n == 12);
  free(d);
  CHECK_EQ_INT(dir_entries(tmp_dir()), 2);
  clean_dir();
}

TEST(file_writer_bad_paths) {
  clean_dir();
  pte_file_writer fw;
  pte_error_info err;
  CHECK_STATUS(pte_file_writer_open(&fw, in_dir("no/such/dir/x.pte"), NULL, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "no such file");
  pte_data_writer_destroy(&fw.base);
  CHECK_STATUS(pte_file_writer_open(&fw, tmp_dir(), NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "directory");
  CHECK_STATUS(pte_file_writer_open(&fw, "", NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_file_writer_open(&fw, NULL, NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_file_writer_open(NULL, "x", NULL, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(dir_entries(tmp_dir()), 0);
}

TEST(file_writer_lock_fail_fast) {
  clean_dir();
  const char *dest = in_dir("locked.pte");
  pte_file_writer a, b;
  pte_error_info err;
  pte_file_writer_options o = fast_opts();
  CHECK_OK(pte_file_writer_open(&a, dest, &o, &err));
  CHECK_STATUS(pte_file_writer_open(&b, dest, &o, &err), PTE_ERR_INVALID_STATE);
  CHECK_CONTAINS(err.msg, "being written by another writer");
  pte_data_writer_destroy(&b.base);
  /* a waiter with a timeout gives up */
  o.lock = PTE_FILE_LOCK_WAIT;
  o.lock_timeout_ms = 100;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK_STATUS(pte_file_writer_open(&b, dest, &o, &err), PTE_ERR_INVALID_STATE);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  CHECK_MSG(ms >= 90 && ms < 5000, "waited %.1f ms", ms);
  CHECK_CONTAINS(err.msg, "gave up waiting");
  pte_data_writer_destroy(&b.base);
  CHECK_OK(pte_data_writer_write(&a.base, "A", 1, 0, &err));
  CHECK_OK(pte_data_writer_publish(&a.base, &err));
  pte_data_writer_destroy(&a.base);
  /* released: the next writer gets it */
  o.lock = PTE_FILE_LOCK_FAIL_FAST;
  CHECK_OK(pte_file_writer_open(&b, dest, &o, &err));
  pte_data_writer_destroy(&b.base);
  CHECK_EQ_INT(dir_entries(tmp_dir()), 1);
  clean_dir();
}

/* Another process holds the destination: fail fast; then wait until it publishes. */
TEST(file_writer_lock_across_processes) {
  clean_dir();
  const char *dest = in_dir("shared.pte");
  int ready[2];
  CHECK(pipe(ready) == 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    pte_file_writer fw;
    pte_file_writer_options o = fast_opts();
    if (pte_file_writer_open(&fw, dest, &o, NULL) != PTE_OK) _exit(2);
    pte_data_writer_write(&fw.base, "child", 5, 0, NULL);
    if (write(ready[1], "r", 1) != 1) _exit(3);
    struct timespec ts = {0, 300 * 1000000L};
    nanosleep(&ts, NULL);
    int rc = pte_data_writer_publish(&fw.base, NULL) == PTE_OK ? 0 : 4;
    pte_data_writer_destroy(&fw.base);
    _exit(rc);
  }
  char c;
  CHECK(read(ready[0], &c, 1) == 1);
  pte_file_writer fw;
  pte_error_info err;
  pte_file_writer_options o = fast_opts();
  CHECK_STATUS(pte_file_writer_open(&fw, dest, &o, &err), PTE_ERR_INVALID_STATE);
  pte_data_writer_destroy(&fw.base);
  o.lock = PTE_FILE_LOCK_WAIT;
  o.lock_timeout_ms = 10000;
  CHECK_OK(pte_file_writer_open(&fw, dest, &o, &err)); /* waits for the child to publish */
  size_t n = 0;
  uint8_t *d = test_read_file(dest, &n);
  CHECK(d && n == 5 && memcmp(d, "child", 5) == 0); /* the child's file was complete when we got the lock */
  free(d);
  CHECK_OK(pte_data_writer_write(&fw.base, "parent", 6, 0, &err));
  CHECK_OK(pte_data_writer_publish(&fw.base, &err));
  pte_data_writer_destroy(&fw.base);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  d = test_read_file(dest, &n);
  CHECK(d && n == 6 && memcmp(d, "parent", 6) == 0);
  free(d);
  close(ready[0]);
  close(ready[1]);
  CHECK_EQ_INT(dir_entries(tmp_dir()), 1);
  clean_dir();
}

int main(void) {
  RUN(memory_writer_growable);
  RUN(memory_writer_limits);
  RUN(memory_writer_allocation_failure);
  RUN(file_writer_publish);
  RUN(file_writer_discard);
  RUN(file_writer_replace_rules);
  RUN(file_writer_bad_paths);
  RUN(file_writer_lock_fail_fast);
  RUN(file_writer_lock_across_processes);
  return test_summary();
}
