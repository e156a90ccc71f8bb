#define _POSIX_C_SOURCE 200809L
/* flock() is BSD, not POSIX: ask for it explicitly (glibc/musl, macOS). */
#define _DEFAULT_SOURCE 1
#define _DARWIN_C_SOURCE 1
#define _GNU_SOURCE 1 /* sync_file_range (Linux) */
/* data_writer_file.c — the file pte_data_writer: temp file + pwrite + fsync + rename + directory
 * fsync, guarded by an advisory lock file so two writers of one destination cannot interleave. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "io/io_internal.h"
#include "pte/data_writer.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

static const char *fw_errno_text(int e) {
  switch (e) {
    case ENOSPC: return "no space left on device";
#ifdef EDQUOT
    case EDQUOT: return "disk quota exceeded";
#endif
    case EROFS: return "read-only file system";
    case EEXIST: return "file exists";
    case EXDEV: return "cross-device rename";
    case EBUSY: return "device or resource busy";
    default: return pte_io_errno_text(e);
  }
}

static pte_status fw_fail(pte_error_info *err, const char *what, const char *path, int e) {
  const char *why = fw_errno_text(e);
  if (why) return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s '%s': %s", what, path, why);
  return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "%s '%s': errno %d", what, path, e);
}

static char *fw_strdup(const char *s) {
  size_t n = strlen(s);
  char *p = (char *)malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

/* "<dir>/<prefix><base><suffix>" for a destination path; dir is "." when the path has no '/'. */
static char *fw_sibling(const char *dest, const char *prefix, const char *suffix) {
  const char *slash = strrchr(dest, '/');
  const char *base = slash ? slash + 1 : dest;
  size_t dir_len = slash ? (size_t)(slash - dest) + 1 : 0; /* keeps the '/' */
  size_t n = dir_len + strlen(prefix) + strlen(base) + strlen(suffix) + 1;
  char *p = (char *)malloc(n);
  if (!p) return NULL;
  memcpy(p, dest, dir_len);
  snprintf(p + dir_len, n - dir_len, "%s%s%s", prefix, base, suffix);
  return p;
}

/* Directory of a destination ("." when none; "/" for "/x"). */
static char *fw_dirname(const char *dest) {
  const char *slash = strrchr(dest, '/');
  if (!slash) return fw_strdup(".");
  size_t n = (size_t)(slash - dest);
  if (n == 0) n = 1;
  char *p = (char *)malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, dest, n);
  p[n] = 0;
  return p;
}

static void fw_sleep_ms(unsigned ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static uint64_t fw_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ------------------------------------------------------------------ live temp and lock files
 * Registries of the temp and lock files that open writers of this process hold, so that a signal
 * handler (pte_file_writer_install_signal_cleanup) can remove them before the process dies. A file
 * is registered in the same signal-blocked section that creates (or takes) it, and unregistered in
 * the one that renames or removes it, so no signal lands between the two. Slots point to the
 * writers' heap strings; a writer empties its slot before freeing them. */
#define FW_LIVE_MAX 64
static _Atomic(const char *) fw_live_temp[FW_LIVE_MAX], fw_live_lock[FW_LIVE_MAX];

static void fw_block(sigset_t *old) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &s, old);
}

static void fw_unblock(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

static int fw_live_put(_Atomic(const char *) *tab, const char *path) {
  for (int i = 0; i < FW_LIVE_MAX; i++) {
    const char *none = NULL;
    if (atomic_compare_exchange_strong(&tab[i], &none, path)) return i;
  }
  return -1; /* full: this file is not cleaned up on a signal (the next writer sweeps temps) */
}

static void fw_live_clear(_Atomic(const char *) *tab, int *slot) {
  if (*slot >= 0 && *slot < FW_LIVE_MAX) atomic_store(&tab[*slot], NULL);
  *slot = -1;
}

static void fw_on_signal(int sig) {
  for (int i = 0; i < FW_LIVE_MAX; i++) { /* unlink() is async-signal-safe */
    const char *t = atomic_load(&fw_live_temp[i]), *l = atomic_load(&fw_live_lock[i]);
    if (t) unlink(t);
    if (l) unlink(l);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Takes the lock file. The holder unlinks it when done; a waiter that wins the lock on a file
 * that was unlinked meanwhile (inode no longer at the path) retries with a fresh one. */
static pte_status fw_lock(pte_file_writer *w, pte_error_info *err) {
  if (w->opt.lock == PTE_FILE_LOCK_NONE) return PTE_OK;
  uint64_t start = fw_now_ms();
  for (;;) {
    sigset_t old;
    fw_block(&old);
    int fd = open(w->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      int e = errno;
      fw_unblock(&old);
      return fw_fail(err, "cannot create lock file", w->lock_path, e);
    }
    int r;
    do {
      r = flock(fd, LOCK_EX | LOCK_NB);
    } while (r != 0 && errno == EINTR);
    if (r == 0) {
      struct stat a, b;
      if (fstat(fd, &a) == 0 && stat(w->lock_path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
        w->lock_fd = fd;
        w->live_lock_slot = fw_live_put(fw_live_lock, w->lock_path);
        fw_unblock(&old);
        return PTE_OK;
      }
      close(fd); /* lost a race with a releasing holder: try again */
      fw_unblock(&old);
      continue;
    }
    int e = errno;
    close(fd);
    fw_unblock(&old);
    if (e != EWOULDBLOCK && e != EAGAIN) return fw_fail(err, "cannot lock", w->lock_path, e);
    if (w->opt.lock == PTE_FILE_LOCK_FAIL_FAST)
      return pte_error_set(err, PTE_ERR_INVALID_STATE,
                           "'%s' is being written by another writer (lock '%s' is held)", w->dest, w->lock_path);
    if (w->opt.lock_timeout_ms && fw_now_ms() - start >= w->opt.lock_timeout_ms)
      return pte_error_set(err, PTE_ERR_INVALID_STATE,
                           "'%s' is being written by another writer: gave up waiting after %u ms", w->dest,
                           w->opt.lock_timeout_ms);
    fw_sleep_ms(10);
  }
}

static void fw_unlock(pte_file_writer *w) {
  if (w->lock_fd < 0) return;
  sigset_t old;
  fw_block(&old);
  unlink(w->lock_path); /* while still holding it: see fw_lock */
  fw_live_clear(fw_live_lock, &w->live_lock_slot);
  flock(w->lock_fd, LOCK_UN);
  close(w->lock_fd);
  w->lock_fd = -1;
  fw_unblock(&old);
}

#define FW_PREALLOC_STEP ((uint64_t)64 << 20)

static int fw_fallocate(int fd, uint64_t from, uint64_t len) {
  int r;
  do {
    r = posix_fallocate(fd, (off_t)from, (off_t)len);
  } while (r == EINTR);
  return r;
}

/* Sequential appends reserve space ahead (see pte/data_writer.h): large extents on delayed-
 * allocation file systems, early "no space left". */
static pte_status fw_preallocate(pte_file_writer *w, uint64_t need_end, pte_error_info *err) {
  uint64_t step = w->size / 8 > FW_PREALLOC_STEP ? w->size / 8 : FW_PREALLOC_STEP;
  uint64_t from = w->alloc_end > w->size ? w->alloc_end : w->size;
  if (need_end <= from) return PTE_OK;
  uint64_t ahead = need_end + step;
  if (ahead > (uint64_t)INT64_MAX) ahead = need_end;
  int r = fw_fallocate(w->fd, from, ahead - from);
  if (r == ENOSPC
#ifdef EDQUOT
      || r == EDQUOT
#endif
  ) {
    r = fw_fallocate(w->fd, from, need_end - from); /* maybe only the look-ahead does not fit */
    if (r == 0) {
      w->alloc_end = need_end;
      w->prealloc_off = true; /* nearly full: stop reserving ahead */
      return PTE_OK;
    }
  }
  if (r == 0) {
    w->alloc_end = ahead;
    return PTE_OK;
  }
  if (r == ENOSPC || r == EFBIG
#ifdef EDQUOT
      || r == EDQUOT
#endif
  )
    return fw_fail(err, "cannot write", w->temp, r);
  w->prealloc_off = true; /* not supported here: plain writes */
  return PTE_OK;
}

#define FW_PIECE ((size_t)1 << 20)
#define FW_WRITEBACK_STEP ((uint64_t)16 << 20)

/* With fsync on, start writeback of every 16 MiB of sequential output as it is written, so the
 * final fsync does not have to push the whole file at once (a multi-GiB output otherwise stays
 * below the kernel's background threshold until publish). Linux only; elsewhere a no-op. The
 * final fsync still waits for everything and reports errors. */
static void fw_early_writeback(pte_file_writer *w, uint64_t from, uint64_t to) {
  if (w->opt.no_fsync) return;
  if (from != w->wb_next) { /* not sequential: restart tracking here */
    w->wb_from = from;
  }
  w->wb_next = to;
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
  if (w->wb_next - w->wb_from >= FW_WRITEBACK_STEP) {
    (void)sync_file_range(w->fd, (off_t)w->wb_from, (off_t)(w->wb_next - w->wb_from), SYNC_FILE_RANGE_WRITE);
    w->wb_from = w->wb_next;
  }
#endif
}

static pte_status fw_write(pte_data_writer *self, const void *data, size_t size, uint64_t offset,
                           pte_error_info *err) {
  pte_file_writer *w = (pte_file_writer *)self;
  if (w->published || w->fd < 0)
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "file writer '%s': not open for writing", w->dest ? w->dest : "");
  if (!w->prealloc_off && offset <= w->size && offset + size > w->alloc_end) {
    pte_status ps = fw_preallocate(w, offset + size, err);
    if (ps != PTE_OK) return ps;
  }
  const uint8_t *p = (const uint8_t *)data;
  uint64_t off = offset;
  size_t left = size;
  while (left > 0) {
    /* 1 MiB pieces: large single pwrites fall back to 4 KiB page-cache steps after a short copy
     * (and behave erratically with huge page-cache folios); 1 MiB measured best (docs/prepare.md) */
    size_t chunk = left > FW_PIECE ? FW_PIECE : left;
    if (off > (uint64_t)INT64_MAX - chunk)
      return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file writer: offset %llu too large", (unsigned long long)off);
    ssize_t n = pwrite(w->fd, p, chunk, (off_t)off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fw_fail(err, "cannot write", w->temp, errno);
    }
    if (n == 0) return fw_fail(err, "cannot write", w->temp, ENOSPC);
    p += n;
    off += (uint64_t)n;
    left -= (size_t)n;
  }
  if (off > w->size) w->size = off;
  fw_early_writeback(w, offset, off);
  return PTE_OK;
}

static pte_status fw_set_size(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  pte_file_writer *w = (pte_file_writer *)self;
  if (w->published || w->fd < 0)
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "file writer '%s': not open for writing", w->dest ? w->dest : "");
  if (size > (uint64_t)INT64_MAX)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file writer: size %llu too large", (unsigned long long)size);
  int r;
  do {
    r = ftruncate(w->fd, (off_t)size);
  } while (r != 0 && errno == EINTR);
  if (r != 0) return fw_fail(err, "cannot resize", w->temp, errno);
  w->size = size;
  if (w->alloc_end > size) w->alloc_end = size;
  return PTE_OK;
}

static pte_status fw_fsync_dir(const char *dest, pte_error_info *err) {
  char *dir = fw_dirname(dest);
  if (!dir) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "file writer: out of memory");
  int fd = open(dir, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    pte_status s = fw_fail(err, "cannot open directory", dir, errno);
    free(dir);
    return s;
  }
  int r;
  do {
    r = fsync(fd);
  } while (r != 0 && errno == EINTR);
  int e = errno;
  close(fd);
  /* Some file systems refuse fsync on directories (EINVAL): the rename is still done. */
  pte_status s = (r != 0 && e != EINVAL && e != EBADF) ? fw_fail(err, "cannot sync directory", dir, e) : PTE_OK;
  free(dir);
  return s;
}

pte_status pte_file_writer_install_signal_cleanup(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fw_on_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sigs[i], NULL, &old) != 0) return PTE_ERR_INTERNAL;
    if (old.sa_handler == SIG_IGN) continue; /* e.g. nohup: keep ignoring */
    if (sigaction(sigs[i], &sa, NULL) != 0) return PTE_ERR_INTERNAL;
  }
  return PTE_OK;
}

/* ------------------------------------------------------------------ stale temp files */

static bool fw_all_digits(const char *s, size_t n) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

/* ".<base>.<pid>.<n>.tmp": the temp name of a writer of <base>; *pid receives the writer's pid. */
static bool fw_is_temp_of(const char *name, const char *base, long *pid) {
  size_t bl = strlen(base), nl = strlen(name);
  if (nl < bl + 1 + 4 || name[0] != '.' || strncmp(name + 1, base, bl) != 0) return false;
  const char *p = name + 1 + bl;
  if (*p != '.') return false;
  p++;
  size_t rest = strlen(p);
  if (rest < 4 || strcmp(p + rest - 4, ".tmp") != 0) return false;
  const char *dot = memchr(p, '.', rest - 4);
  if (!dot || !fw_all_digits(p, (size_t)(dot - p)) || !fw_all_digits(dot + 1, (size_t)(p + rest - 4 - dot - 1)))
    return false;
  *pid = strtol(p, NULL, 10);
  return true;
}

size_t pte_file_writer_remove_stale_temps(const char *dest_path, const char *keep, bool any_pid) {
  if (!dest_path || !*dest_path) return 0;
  const char *slash = strrchr(dest_path, '/');
  const char *base = slash ? slash + 1 : dest_path;
  char *dir = fw_dirname(dest_path);
  if (!dir) return 0;
  const char *keep_base = NULL;
  if (keep) {
    const char *ks = strrchr(keep, '/');
    keep_base = ks ? ks + 1 : keep;
  }
  size_t removed = 0;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      long pid = 0;
      if (keep_base && strcmp(e->d_name, keep_base) == 0) continue;
      if (!fw_is_temp_of(e->d_name, base, &pid)) continue;
      /* without the lock, only temps of processes that are gone */
      if (!any_pid && (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
      size_t dl = strlen(dir), n = dl + strlen(e->d_name) + 2;
      char *p = (char *)malloc(n);
      if (!p) break;
      memcpy(p, dir, dl);
      p[dl] = '/';
      memcpy(p + dl + 1, e->d_name, strlen(e->d_name) + 1);
      if (unlink(p) == 0) removed++;
      free(p);
    }
    closedir(d);
  }
  free(dir);
  return removed;
}

static void fw_discard(pte_file_writer *w) {
  if (w->fd >= 0) {
    close(w->fd);
    w->fd = -1;
  }
  sigset_t old;
  fw_block(&old);
  if (w->temp && !w->published) unlink(w->temp);
  fw_live_clear(fw_live_temp, &w->live_slot);
  fw_unblock(&old);
}

static pte_status fw_publish(pte_data_writer *self, pte_error_info *err) {
  pte_file_writer *w = (pte_file_writer *)self;
  if (w->published) return pte_error_set(err, PTE_ERR_INVALID_STATE, "file writer '%s': already published", w->dest);
  if (w->fd < 0) return pte_error_set(err, PTE_ERR_INVALID_STATE, "file writer: not open");
  pte_status s = PTE_OK;
  int r;
  if (w->alloc_end > w->size) { /* drop the preallocated tail */
    do {
      r = ftruncate(w->fd, (off_t)w->size);
    } while (r != 0 && errno == EINTR);
    if (r != 0) {
      s = fw_fail(err, "cannot resize", w->temp, errno);
      fw_discard(w);
      fw_unlock(w);
      return s;
    }
    w->alloc_end = w->size;
  }
  if (!w->opt.no_fsync) {
    do {
      r = fsync(w->fd);
    } while (r != 0 && errno == EINTR);
    if (r != 0) {
      s = fw_fail(err, "cannot sync", w->temp, errno);
      fw_discard(w);
      fw_unlock(w);
      return s;
    }
  }
  struct stat st;
  if (stat(w->dest, &st) == 0) {
    if (!w->opt.replace_existing) {
      fw_discard(w);
      fw_unlock(w);
      return pte_error_set(err, PTE_ERR_INVALID_STATE, "'%s' already exists (replacing is not allowed)", w->dest);
    }
    if (S_ISREG(st.st_mode)) fchmod(w->fd, st.st_mode & 07777); /* keep the original's permissions */
  }
  if (close(w->fd) != 0 && errno != EINTR) {
    int e = errno;
    w->fd = -1;
    s = fw_fail(err, "cannot close", w->temp, e);
    fw_discard(w);
    fw_unlock(w);
    return s;
  }
  w->fd = -1;
  sigset_t old;
  fw_block(&old);
  if (rename(w->temp, w->dest) != 0) {
    int e = errno;
    fw_unblock(&old);
    s = fw_fail(err, "cannot rename temp file to", w->dest, e);
    fw_discard(w);
    fw_unlock(w);
    return s;
  }
  w->published = true;
  fw_live_clear(fw_live_temp, &w->live_slot);
  fw_unblock(&old);
  if (!w->opt.no_fsync) s = fw_fsync_dir(w->dest, err);
  fw_unlock(w);
  return s;
}

static void fw_destroy(pte_data_writer *self) {
  pte_file_writer *w = (pte_file_writer *)self;
  fw_discard(w);
  fw_unlock(w);
  free(w->dest);
  free(w->temp);
  free(w->lock_path);
  w->dest = w->temp = w->lock_path = NULL;
}

static pte_status fw_reserve(pte_data_writer *self, uint64_t size, pte_error_info *err) {
  pte_file_writer *w = (pte_file_writer *)self;
  if (w->published || w->fd < 0)
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "file writer '%s': not open for writing", w->dest ? w->dest : "");
  if (w->opt.no_preallocate || size <= w->alloc_end) return PTE_OK;
  if (size > (uint64_t)INT64_MAX)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file writer: size %llu too large", (unsigned long long)size);
  int r = fw_fallocate(w->fd, w->alloc_end, size - w->alloc_end);
  if (r == 0) {
    w->alloc_end = size;
    w->prealloc_off = true; /* everything reserved: no look-ahead needed */
    return PTE_OK;
  }
  if (r == ENOSPC || r == EFBIG
#ifdef EDQUOT
      || r == EDQUOT
#endif
  )
    return pte_error_set(err, PTE_ERR_ACCESS_FAILED, "cannot reserve %llu bytes for '%s': %s", (unsigned long long)size,
                         w->dest, fw_errno_text(r));
  w->prealloc_off = true; /* not supported by this file system: a hint only */
  return PTE_OK;
}

static const pte_data_writer_vtable k_fw_vt = {
    .write = fw_write, .set_size = fw_set_size, .publish = fw_publish, .destroy = fw_destroy, .reserve = fw_reserve};

void pte_file_writer_options_init(pte_file_writer_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->replace_existing = true;
  o->lock = PTE_FILE_LOCK_FAIL_FAST;
  o->mode = 0666;
}

pte_status pte_file_writer_open(pte_file_writer *w, const char *dest_path,
                                const pte_file_writer_options *opt, pte_error_info *err) {
  if (!w) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file writer: NULL writer");
  memset(w, 0, sizeof *w);
  w->base.vt = &k_fw_vt;
  w->fd = -1;
  w->lock_fd = -1;
  w->live_slot = -1;
  w->live_lock_slot = -1;
  pte_file_writer_options_init(&w->opt);
  if (opt) w->opt = *opt;
  if (w->opt.mode == 0) w->opt.mode = 0666;
  w->prealloc_off = w->opt.no_preallocate;
  if (!dest_path || !*dest_path) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file writer: empty destination path");
  size_t len = strlen(dest_path);
  if (dest_path[len - 1] == '/')
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file writer: destination '%s' is a directory", dest_path);
  if ((unsigned)w->opt.lock > PTE_FILE_LOCK_NONE)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file writer: unknown lock mode %u", (unsigned)w->opt.lock);
  w->dest = fw_strdup(dest_path);
  w->lock_path = fw_sibling(dest_path, ".", ".lock");
  if (!w->dest || !w->lock_path) {
    fw_destroy(&w->base);
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "file writer: out of memory");
  }
  struct stat st;
  if (stat(dest_path, &st) == 0 && S_ISDIR(st.st_mode)) {
    fw_destroy(&w->base);
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "file writer: destination '%s' is a directory", dest_path);
  }
  {
    char *dir = fw_dirname(dest_path);
    struct stat ds;
    int e = 0;
    if (!dir) e = ENOMEM;
    else if (stat(dir, &ds) != 0) e = errno;
    else if (!S_ISDIR(ds.st_mode)) e = ENOTDIR;
    if (e) {
      pte_status s = fw_fail(err, "cannot write into directory", dir ? dir : ".", e);
      free(dir);
      fw_destroy(&w->base);
      return s;
    }
    free(dir);
  }
  pte_status s = fw_lock(w, err);
  if (s != PTE_OK) {
    fw_destroy(&w->base);
    return s;
  }
  if (!w->opt.replace_existing && stat(dest_path, &st) == 0) {
    fw_destroy(&w->base);
    return pte_error_set(err, PTE_ERR_INVALID_STATE, "'%s' already exists (replacing is not allowed)", dest_path);
  }
  static unsigned counter;
  for (int attempt = 0; attempt < 1000; attempt++) {
    char suffix[64];
    snprintf(suffix, sizeof suffix, ".%ld.%u.tmp", (long)getpid(), counter++);
    free(w->temp);
    w->temp = fw_sibling(dest_path, ".", suffix);
    if (!w->temp) {
      fw_destroy(&w->base);
      return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "file writer: out of memory");
    }
    sigset_t old;
    fw_block(&old);
    w->fd = open(w->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)(w->opt.mode & 07777));
    int e = errno;
    if (w->fd >= 0) w->live_slot = fw_live_put(fw_live_temp, w->temp);
    fw_unblock(&old);
    errno = e;
    if (w->fd >= 0) {
      /* temp files a killed writer of this destination left: under the lock every other temp is
       * stale; without it only those of processes that are gone */
      pte_file_writer_remove_stale_temps(dest_path, w->temp, w->lock_fd >= 0);
      return PTE_OK;
    }
    if (errno != EEXIST) break;
  }
  s = fw_fail(err, "cannot create temp file", w->temp ? w->temp : dest_path, errno);
  free(w->temp);
  w->temp = NULL; /* nothing was created */
  fw_destroy(&w->base);
  return s;
}
